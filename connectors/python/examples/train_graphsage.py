"""Train GraphSAGE (PyG SAGEConv, 2 layers) on cora with batches sampled by a running Fanout job.

Copy this file to start a trainer. It shows the three ways messages reach a trainer, each turned
into the ``torch_geometric.data.Data`` a ``NeighborLoader`` would give (``fanout_client.to_pyg``):

- ``files``:   the job writes ``.samples`` files (``--output``), the trainer reads them afterwards;
- ``channel``: the trainer pulls live over TCP while the job runs (``--serve --registry``),
               ``for epoch in client.epochs(): for data in epoch``;
- ``shm``:     the job writes shared-memory rings on this host (``--channel.shm``).

plus ``full``: the same model trained full-batch on the whole graph, the reference.

Node features and labels come inside the messages (the job reads ``nodes.tsv.gz``:
``--node-features``); the trainer needs the graph itself only for evaluation. The job's seeds are
the training nodes (a seed file, ``--seeds``), one batch of them per step.

Evaluation is full-batch on the whole graph for every feed: GraphSAGE is inductive, cora fits in
memory many times over, and exact inference over all neighbours gives the accuracy the trained
weights really have, without the noise of sampled evaluation neighbourhoods. It is also the same
evaluator for the four trainings, so their curves differ only by what they were trained on. On a
graph too large for one forward pass, sample the validation/test nodes with a second job instead.

Split: PyG Planetoid's "random" split with a seed: 20 labelled nodes per class for training,
500 validation and 1,000 test nodes drawn from the rest.

    cd connectors/python && /usr/bin/python3 examples/train_graphsage.py --feed all --epochs 60

Needs torch and torch_geometric (``deploy/bin/fanout-torch-setup`` installs both for Debian's python3).
"""

from __future__ import annotations

import argparse
import gzip
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch_geometric.nn import SAGEConv
from torch_geometric.utils import trim_to_layer

try:
    import fanout_client
except ImportError:  # run from a checkout without installing: the package is next to examples/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import fanout_client

ROOT = Path(__file__).resolve().parents[3]
FANOUT_LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
CORA = ROOT.parent / "shared" / "data" / "cora"
FEEDS = ("full", "files", "channel", "shm")


@dataclass
class Graph:
    """The whole graph, for full-batch training and evaluation: features, labels, both edge directions."""
    x: torch.Tensor           # [N, d] float32
    y: torch.Tensor           # [N] int64, -1 = unlabelled
    edge_index: torch.Tensor  # [2, E] int64

    @property
    def num_classes(self) -> int:
        return int(self.y.max()) + 1


def _data_lines(path: Path) -> bytes:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as f:
        return b"".join(line for line in f if not line.startswith(b"#"))


def load_graph(data_dir=CORA) -> Graph:
    """Read ``nodes.tsv[.gz]`` (id, label, features) and ``edges.tsv`` of ``../shared/data/<name>``;
    undirected edges are used in both directions, as the job stores them."""
    data_dir = Path(data_dir)
    nodes_file = next(p for p in (data_dir / "nodes.tsv.gz", data_dir / "nodes.tsv") if p.exists())
    lines = _data_lines(nodes_file)
    width = len(lines.split(b"\n", 1)[0].split())
    table = np.array(lines.split(), dtype=np.float32).reshape(-1, width)
    order = np.argsort(table[:, 0])
    x = torch.from_numpy(np.ascontiguousarray(table[order, 2:]))
    y = torch.from_numpy(table[order, 1].astype(np.int64))
    edges = np.array(_data_lines(data_dir / "edges.tsv").split(), dtype=np.int64).reshape(-1, 2)[:, :2].T
    edge_index = torch.from_numpy(np.concatenate([edges, edges[::-1]], axis=1).copy())
    return Graph(x, y, edge_index)


def split(y: torch.Tensor, seed: int, per_class: int = 20, num_val: int = 500, num_test: int = 1000):
    """Planetoid-style random split: ``per_class`` training nodes per class, then ``num_val``
    validation and ``num_test`` test nodes from the remaining labelled nodes, all drawn with ``seed``."""
    generator = torch.Generator().manual_seed(seed)
    labelled = torch.nonzero(y >= 0).flatten()
    train = []
    for c in range(int(y.max()) + 1):
        of_class = labelled[y[labelled] == c]
        train.append(of_class[torch.randperm(len(of_class), generator=generator)[:per_class]])
    train = torch.cat(train).sort().values
    rest = labelled[~torch.isin(labelled, train)]
    rest = rest[torch.randperm(len(rest), generator=generator)]
    return train, rest[:num_val].sort().values, rest[num_val:num_val + num_test].sort().values


class GraphSAGE(torch.nn.Module):
    """Two SAGEConv layers (mean aggregation) with ReLU and dropout, after a linear encoder.

    The encoder projects each node's raw features (cora: a 1,433-dim bag of words) to ``hidden``
    dims once, so both layers gather and average ``hidden``-dim rows along the edges instead of
    1,433-dim ones: a mean of projections is the projection of the mean, and gathering rows is what
    costs on a CPU (Debian's torch 1.13 gathers 1,433-dim rows at ~130 MB/s).
    """

    def __init__(self, in_dim: int, hidden: int, out_dim: int, dropout: float = 0.5):
        super().__init__()
        self.encoder = torch.nn.Linear(in_dim, hidden)
        self.convs = torch.nn.ModuleList([SAGEConv(hidden, hidden), SAGEConv(hidden, out_dim)])
        self.dropout = dropout

    def forward(self, x, edge_index, num_sampled_nodes=None, num_sampled_edges=None):
        """Full graph, or a sampled batch; with the per-hop counts each layer first drops the nodes and
        edges later layers cannot use (PyG's ``trim_to_layer``), which gives the seeds the same output."""
        x = self.encoder(x)
        for layer, conv in enumerate(self.convs):
            if num_sampled_nodes is not None:
                x, edge_index, _ = trim_to_layer(layer, num_sampled_nodes, num_sampled_edges, x, edge_index)
            x = conv(F.dropout(x, self.dropout, self.training), edge_index)
            if layer < len(self.convs) - 1:
                x = x.relu()
        return x


@torch.no_grad()
def evaluate(model, graph: Graph, *index_sets) -> list[float]:
    """Accuracy on each index set, full-batch on the whole graph (exact inference)."""
    model.eval()
    predicted = model(graph.x, graph.edge_index).argmax(dim=1)
    return [float((predicted[idx] == graph.y[idx]).float().mean()) for idx in index_sets]


def new_model(graph: Graph, model_seed: int, hidden: int = 64, lr: float = 0.01, weight_decay: float = 5e-3):
    """A freshly initialised GraphSAGE (seeded) and its Adam optimiser."""
    torch.manual_seed(model_seed)
    model = GraphSAGE(graph.x.shape[1], hidden, graph.num_classes)
    return model, torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)


def train_step(model, optimizer, data) -> float:
    """One step on one Fanout batch: loss on the seed rows only (``[:batch_size]``)."""
    model.train()
    optimizer.zero_grad()
    # Bidirectional/induced batches have no per-hop counts (as in PyG): then nothing is trimmed.
    counts = getattr(data, "num_sampled_nodes", None), getattr(data, "num_sampled_edges", None)
    out = model(data.x, data.edge_index, *counts)[:data.batch_size]
    loss = F.cross_entropy(out, data.y[:data.batch_size])
    loss.backward()
    optimizer.step()
    return float(loss)


def train_from_batches(epochs, graph: Graph, splits, model_seeds) -> list[list[dict]]:
    """Train one model per seed in ``model_seeds`` on ``epochs`` (an iterable of epochs, each an
    iterable of PyG batches): every batch is one step of every model, so one pass over a job's
    messages trains them all. Evaluates after each epoch; returns per model one row per epoch
    (epoch, steps, loss, val, test)."""
    train, val, test = splits
    models = [new_model(graph, seed) for seed in model_seeds]
    histories = [[] for _ in models]
    for epoch, batches in enumerate(epochs):
        losses = [[train_step(model, optimizer, data) for model, optimizer in models] for data in batches]
        for k, (model, _) in enumerate(models):
            histories[k].append(dict(epoch=epoch, steps=len(losses), loss=float(np.mean([l[k] for l in losses])),
                                     **dict(zip(("val", "test"), evaluate(model, graph, val, test)))))
    return histories


def train_full_batch(graph: Graph, splits, model_seeds, epochs: int) -> list[list[dict]]:
    """The reference: the same models, one full-graph step per epoch on the training nodes."""
    train, val, test = splits
    histories = []
    for seed in model_seeds:
        model, optimizer = new_model(graph, seed)
        history = []
        for epoch in range(epochs):
            model.train()
            optimizer.zero_grad()
            loss = F.cross_entropy(model(graph.x, graph.edge_index)[train], graph.y[train])
            loss.backward()
            optimizer.step()
            history.append(dict(epoch=epoch, steps=1, loss=float(loss),
                                **dict(zip(("val", "test"), evaluate(model, graph, val, test)))))
        histories.append(history)
    return histories


def selected_test_accuracy(history: list[dict]) -> float:
    """The test accuracy of the epoch with the best validation accuracy (the first such epoch):
    the usual Planetoid protocol, and much less noisy than the last epoch's on 140 training nodes."""
    return max(history, key=lambda row: row["val"])["test"]


def write_seeds(path: Path, nodes: torch.Tensor) -> Path:
    """The job's seed file: one node id per line."""
    Path(path).write_text("# training nodes\n" + "\n".join(str(int(v)) for v in nodes) + "\n")
    return Path(path)


def job_args(seeds_file: Path, epochs: int, data_dir=CORA, batch_size: int = 35, fanout: str = "15,10",
             feature_dtype: str = "uint8", seed: int = 0, parallelism: int = 1) -> list[str]:
    """fanout-local arguments: the training nodes as seeds, shuffled every epoch, features and labels
    from the graph's nodes file carried in every message."""
    data_dir = Path(data_dir)
    nodes = next(p for p in (data_dir / "nodes.tsv.gz", data_dir / "nodes.tsv") if p.exists())
    return [str(FANOUT_LOCAL), "--graph", str(data_dir), "--node-features", str(nodes),
            "--feature-dtype", feature_dtype, "--seeds", str(seeds_file), "--batch-size", str(batch_size),
            "--fanout", fanout, "--epochs", str(epochs), "--shuffle", "--seed", str(seed),
            "--parallelism", str(parallelism)]


def run_job(args: list[str], timeout: float = 600) -> None:
    """Run a job to its end (offline files)."""
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"fanout-local failed ({proc.returncode}):\n{proc.stderr[-4000:]}")


class RunningJob:
    """A job running in the background while the trainer reads it (``with RunningJob(args):``);
    on leaving, waits for its end and raises if it failed."""

    def __init__(self, args: list[str], timeout: float = 600):
        self.args, self.timeout = args, timeout

    def __enter__(self):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:  # the trainer failed: stop the job, let the trainer's error through
            self.proc.kill()
            self.proc.communicate()
            return False
        try:
            _, stderr = self.proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            raise
        if self.proc.returncode != 0:
            raise RuntimeError(f"fanout-local failed ({self.proc.returncode}):\n{stderr[-4000:]}")
        return False


def train_from_files(graph, splits, model_seeds, epochs, workdir, **job) -> list[list[dict]]:
    """(a) The job writes .samples files; then every epoch is read back and trained on."""
    out = Path(workdir) / "samples"
    run_job(job_args(write_seeds(Path(workdir) / "seeds.txt", splits[0]), epochs, **job) + ["--output", str(out)])
    # SamplesReader indexes the files (zero-copy views) and gives them epoch by epoch, by batch id,
    # whatever the part files' order; to_pyg converts one batch at a time.
    epochs = fanout_client.SamplesReader(out).epochs()
    return train_from_batches((map(fanout_client.to_pyg, epoch) for epoch in epochs), graph, splits, model_seeds)


def train_from_channel(graph, splits, model_seeds, epochs, workdir, **job) -> list[list[dict]]:
    """(b) The trainer pulls from the live channel while the job samples."""
    registry = Path(workdir) / "registry"
    args = job_args(write_seeds(Path(workdir) / "seeds.txt", splits[0]), epochs, **job)
    with RunningJob(args + ["--serve", "--registry", str(registry)]):
        with fanout_client.ChannelClient(registry=registry, connect_timeout=120,
                                         transform=fanout_client.to_pyg) as client:
            # prefetch: the next batches are received and converted on a background thread during the step.
            epochs = (fanout_client.prefetch(epoch) for epoch in client.epochs())
            return train_from_batches(epochs, graph, splits, model_seeds)


def train_from_shm(graph, splits, model_seeds, epochs, workdir, **job) -> list[list[dict]]:
    """(c) The job writes shared-memory rings on this host; the trainer reads them in place."""
    name = f"train-{Path(workdir).name}"
    args = job_args(write_seeds(Path(workdir) / "seeds.txt", splits[0]), epochs, **job)
    with RunningJob(args + ["--channel.shm", "--channel.shm-dir", "/dev/shm", "--channel.shm-name", name]):
        with fanout_client.ShmClient("/dev/shm", name, timeout=120, transform=fanout_client.to_pyg) as client:
            epochs = (fanout_client.prefetch(epoch) for epoch in client.epochs())
            return train_from_batches(epochs, graph, splits, model_seeds)


def train(feed: str, graph: Graph, splits, model_seeds, epochs: int, **job) -> list[list[dict]]:
    """Train one model per seed with one feed (``full``, ``files``, ``channel``, ``shm``); returns
    their histories. ``job``: options of ``job_args`` (batch_size, fanout, feature_dtype, ...)."""
    if feed == "full":
        return train_full_batch(graph, splits, model_seeds, epochs)
    runner = {"files": train_from_files, "channel": train_from_channel, "shm": train_from_shm}[feed]
    with tempfile.TemporaryDirectory(prefix=f"fanout-{feed}-") as workdir:
        return runner(graph, splits, model_seeds, epochs, workdir, **job)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--feed", choices=FEEDS + ("all",), default="all")
    parser.add_argument("--data", default=str(CORA), help="a ../shared/data graph with nodes.tsv[.gz]")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--batch-size", type=int, default=35)
    parser.add_argument("--fanout", default="15,10")
    parser.add_argument("--feature-dtype", default="uint8", choices=["float32", "float16", "uint8"])
    parser.add_argument("--split-seed", type=int, default=0)
    parser.add_argument("--model-seeds", default="0,1,2", help="one model per seed, trained side by side")
    args = parser.parse_args()
    graph = load_graph(args.data)
    splits = split(graph.y, args.split_seed)
    model_seeds = [int(s) for s in args.model_seeds.split(",")]
    print(f"{len(graph.y)} nodes, {graph.edge_index.shape[1]} directed edges, {graph.x.shape[1]} features; "
          f"split {len(splits[0])}/{len(splits[1])}/{len(splits[2])} (seed {args.split_seed})")
    for feed in FEEDS if args.feed == "all" else (args.feed,):
        started = time.perf_counter()
        histories = train(feed, graph, splits, model_seeds, args.epochs, data_dir=args.data,
                          batch_size=args.batch_size, fanout=args.fanout, feature_dtype=args.feature_dtype)
        tests = [selected_test_accuracy(h) for h in histories]
        print(f"{feed:8s} test accuracy at the best validation epoch {np.mean(tests):.3f} "
              f"(models {', '.join(f'{t:.3f}' for t in tests)}); last epoch val "
              f"{np.mean([h[-1]['val'] for h in histories]):.3f} test {np.mean([h[-1]['test'] for h in histories]):.3f}; "
              f"{histories[0][-1]['epoch'] + 1} epochs, {sum(r['steps'] for r in histories[0])} steps, "
              f"{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
