"""Link prediction on bitcoin_alpha_typed from Fanout ABLP messages (GiGL's anchor-based link prediction).

1. ``prepare`` derives an ABLP graph directory from ../shared/data/bitcoin_alpha_typed: a seeded fifth of the
   trust edges leave ``user__trusts__user`` (message passing) for the label edge type
   ``user__trusts_gigl_positive__user``; every anchor (a user with a held-out trust edge) gets ``NEG`` negative
   label edges ``user__trusts_gigl_negative__user`` to users it has no edge of any type to. Anchors are split
   by a seeded permutation into train (80 %) and test (20 %).
2. ``run_job`` runs the real job (deploy/bin/fanout-local) over every anchor for several shuffled epochs:
   ``--ablp-positive-type``/``--ablp-negative-type``, label edges never traversed.
3. ``train`` fits a 2-layer heterogeneous GraphSAGE (PyG ``to_hetero``) over degree features (the data has no
   node features) on the train anchors' labels of each message (``to_pyg(msg).y_positive``/``y_negative``):
   binary cross-entropy of an MLP pair score.
4. ``evaluate`` ranks each test anchor's held-out positives against its negatives in the last epoch's
   messages: mean reciprocal rank (MRR) and AUC, beside two non-learned baselines computed on the message-passing
   graph for the same pairs: common neighbours and preferential attachment.

``python3 train_link_prediction.py [--epochs 6] [--work DIR]`` prints the metrics as JSON.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))

import fanout_client  # noqa: E402

FANOUT_LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
BITCOIN = ROOT.parent / "shared" / "data" / "bitcoin_alpha_typed"
POSITIVE = "user__trusts_gigl_positive__user"
NEGATIVE = "user__trusts_gigl_negative__user"
TYPES = ("trusts", "distrusts")


def _edges(path: Path) -> np.ndarray:
    """[E, 2] int64 (src, dst) of an edge file."""
    return np.loadtxt(path, dtype=np.int64, comments="#", usecols=(0, 1), ndmin=2)


class Split:
    """The derived graph: its directory, node count, message-passing edges, anchors and their labels."""

    def __init__(self, directory, num_nodes, passing, positives, negatives, train_anchors, test_anchors):
        self.directory = directory
        self.num_nodes = num_nodes
        self.passing = passing            # {"trusts": [E, 2], "distrusts": [E, 2]} message-passing edges
        self.positives = positives        # [P, 2] held-out trust edges (anchor, user)
        self.negatives = negatives        # [N, 2] (anchor, user) with no edge of any type
        self.train_anchors = train_anchors
        self.test_anchors = test_anchors


def prepare(work: Path, source: Path = BITCOIN, holdout: float = 0.2, neg: int = 20, seed: int = 0) -> Split:
    """Writes the ABLP graph directory under ``work`` (see the module's step 1)."""
    rng = np.random.default_rng(seed)
    out = Path(work) / "bitcoin_ablp"
    out.mkdir(parents=True, exist_ok=True)
    trusts = _edges(source / "edges.user__trusts__user.tsv")
    distrusts = _edges(source / "edges.user__distrusts__user.tsv")
    nodes = np.loadtxt(source / "nodes.user.tsv", dtype=np.int64, comments="#", ndmin=1)
    n = int(nodes.max()) + 1
    held = rng.random(len(trusts)) < holdout
    kept, positives = trusts[~held], trusts[held]
    # Keep the weight and time columns of the trust edges that stay.
    lines = [l for l in (source / "edges.user__trusts__user.tsv").read_text().splitlines() if not l.startswith("#")]
    (out / "edges.user__trusts__user.tsv").write_text(
        "# directed=true columns=src,dst,weight,timestamp\n"
        + "".join(l + "\n" for l, h in zip(lines, held) if not h))
    (out / "edges.user__distrusts__user.tsv").write_bytes((source / "edges.user__distrusts__user.tsv").read_bytes())
    (out / "nodes.user.tsv").write_bytes((source / "nodes.user.tsv").read_bytes())
    np.savetxt(out / f"edges.{POSITIVE}.tsv", positives, fmt="%d", delimiter="\t",
               header="directed=true columns=src,dst", comments="# ")
    linked = set(map(tuple, trusts.tolist())) | set(map(tuple, distrusts.tolist()))
    anchors = np.unique(positives[:, 0])
    negatives = []
    for a in anchors.tolist():
        got = set()
        while len(got) < neg:
            u = int(rng.integers(n))
            if u != a and (a, u) not in linked:
                got.add(u)
        negatives += [(a, u) for u in sorted(got)]
    negatives = np.asarray(negatives, dtype=np.int64)
    np.savetxt(out / f"edges.{NEGATIVE}.tsv", negatives, fmt="%d", delimiter="\t",
               header="directed=true columns=src,dst", comments="# ")
    order = rng.permutation(anchors)
    cut = int(round(0.8 * len(order)))
    return Split(out, n, {"trusts": kept, "distrusts": distrusts}, positives, negatives,
                 np.sort(order[:cut]), np.sort(order[cut:]))


def run_job(split: Split, output: Path, epochs: int = 6, fanout: str = "10,5", batch_size: int = 128,
            parallelism: int = 2, timeout: float = 600) -> float:
    """Runs the ABLP job over every anchor into ``output``; returns its wall time in seconds."""
    args = [str(FANOUT_LOCAL), "--graph", str(split.directory), "--ablp-positive-type", POSITIVE,
            "--ablp-negative-type", NEGATIVE, "--fanout", fanout, "--batch-size", str(batch_size), "--shuffle",
            "--epochs", str(epochs), "--output", str(output), "--parallelism", str(parallelism)]
    start = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"fanout-local failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return time.monotonic() - start


def read_epochs(output: Path) -> list:
    """The job's messages as HeteroData, grouped by epoch in batch order."""
    by_epoch = {}
    for msg in fanout_client.read_samples(output):
        by_epoch.setdefault(int(msg.epoch), []).append((int(msg.batch_id), fanout_client.to_pyg(msg)))
    return [[d for _, d in sorted(by_epoch[e], key=lambda x: x[0])] for e in sorted(by_epoch)]


def degree_features(split: Split):
    """[n, 4] float32: log(1 + degree) in and out of both message-passing types (no node features in the data)."""
    cols = []
    for t in TYPES:
        e = split.passing[t]
        cols += [np.bincount(e[:, 0], minlength=split.num_nodes), np.bincount(e[:, 1], minlength=split.num_nodes)]
    x = np.log1p(np.stack(cols, axis=1))
    return (x / x.max(axis=0)).astype(np.float32)


def new_model(metadata, num_nodes: int, seed: int = 0, hidden: int = 64, emb: int = 0):
    """2-layer GraphSAGE made heterogeneous with ``to_hetero`` over the degree features (plus, with ``emb`` > 0, a
    learned per-node embedding, which overfits here: off by default); a pair's score is an MLP of
    [h_anchor * h_candidate, h_candidate, the candidate's degree features]."""
    import torch
    from torch_geometric.nn import SAGEConv, to_hetero

    torch.manual_seed(seed)

    class Sage(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = SAGEConv((-1, -1), hidden)
            self.conv2 = SAGEConv((-1, -1), hidden)

        def forward(self, x, edge_index):
            return self.conv2(self.conv1(x, edge_index).relu(), edge_index)

    class LinkModel(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = torch.nn.Embedding(num_nodes, emb) if emb else None
            if emb:
                torch.nn.init.normal_(self.embedding.weight, std=0.1)
            self.gnn = to_hetero(Sage(), metadata, aggr="mean")
            self.score = torch.nn.Sequential(torch.nn.Linear(2 * hidden + 4, hidden), torch.nn.ReLU(),
                                             torch.nn.Linear(hidden, 1))

        def forward(self, data, degrees):
            n_id = data["user"].n_id
            x = degrees[n_id]
            x = {"user": x if self.embedding is None else torch.cat([x, self.embedding(n_id)], dim=1)}
            # The candidate's own degrees go to the scorer beside the GNN output (a skip connection).
            return torch.cat([self.gnn(x, data.edge_index_dict)["user"], degrees[n_id]], dim=1)

        def pair_scores(self, h, anchors, candidates):
            ha, hc = h[anchors, :-4], h[candidates]
            return self.score(torch.cat([ha * hc[:, :-4], hc], dim=1)).squeeze(-1)

    return LinkModel()


def _pairs(data, anchors_kept):
    """(anchor local index, candidate local index, label) of the kept anchors' labels in one HeteroData."""
    import torch

    rows, cols, labels = [], [], []
    batch = data["user"].n_id[:len(data.y_positive)]
    keep = torch.from_numpy(np.isin(batch.numpy(), anchors_kept))
    for i in range(len(data.y_positive)):
        if not keep[i]:
            continue
        for name, label in (("y_positive", 1.0), ("y_negative", 0.0)):
            cand = data[name][i]
            rows.append(torch.full((len(cand),), i, dtype=torch.long))
            cols.append(cand)
            labels.append(torch.full((len(cand),), label))
    if not rows:
        return None
    return torch.cat(rows), torch.cat(cols), torch.cat(labels)


def train(epochs_data, split: Split, seed: int = 0, lr: float = 0.005, passes: int = 4) -> tuple:
    """Trains on every epoch but the last, ``passes`` times over; returns (model, degree tensor, mean loss per
    pass)."""
    import torch
    import torch.nn.functional as F

    degrees = torch.from_numpy(degree_features(split))
    model = new_model(epochs_data[0][0].metadata(), split.num_nodes, seed)
    with torch.no_grad():  # lazy SAGEConv sizes
        model(epochs_data[0][0], degrees)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    losses = []
    batches = [data for epoch in epochs_data[:-1] for data in epoch]
    for _ in range(passes):
        total = 0.0
        for data in batches:
            pairs = _pairs(data, split.train_anchors)
            if pairs is None:
                continue
            a, c, y = pairs
            model.train()
            opt.zero_grad()
            h = model(data, degrees)
            loss = F.binary_cross_entropy_with_logits(model.pair_scores(h, a, c), y)
            loss.backward()
            opt.step()
            total += float(loss)
        losses.append(total / len(batches))
    return model, degrees, losses


def _rank_metrics(scores: dict) -> dict:
    """MRR (each positive ranked among its anchor's negatives, ties count against it) and mean per-anchor AUC."""
    rr, aucs = [], []
    for pos, neg in scores.values():
        if len(pos) == 0 or len(neg) == 0:
            continue
        for p in pos:
            rr.append(1.0 / (1 + np.sum(neg >= p)))
        aucs.append(np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])))
    return {"mrr": float(np.mean(rr)), "auc": float(np.mean(aucs)), "positives": len(rr), "anchors": len(aucs)}


def evaluate(model, degrees, epoch, split: Split) -> dict:
    """The model and the baselines on the test anchors' labels of one epoch's messages."""
    import torch

    model.eval()
    learned, pairs_global = {}, {}
    with torch.no_grad():
        for data in epoch:
            pairs = _pairs(data, split.test_anchors)
            if pairs is None:
                continue
            a, c, y = pairs
            h = model(data, degrees)
            s = model.pair_scores(h, a, c).numpy()
            n_id = data["user"].n_id.numpy()
            for anchor in np.unique(a.numpy()):
                m = a.numpy() == anchor
                gid = int(n_id[anchor])
                learned[gid] = (s[m & (y.numpy() == 1)], s[m & (y.numpy() == 0)])
                pairs_global[gid] = (n_id[c.numpy()[m & (y.numpy() == 1)]], n_id[c.numpy()[m & (y.numpy() == 0)]])
    # Non-learned baselines on the message-passing graph (undirected view, both types).
    e = np.concatenate([split.passing[t] for t in TYPES])
    nbrs = [set() for _ in range(split.num_nodes)]
    for u, v in e.tolist():
        nbrs[u].add(v)
        nbrs[v].add(u)
    deg = np.array([len(s) for s in nbrs], dtype=np.float64)

    def cn(a, cands):
        return np.array([len(nbrs[a] & nbrs[int(c)]) for c in cands], dtype=np.float64)

    common = {a: (cn(a, p), cn(a, n)) for a, (p, n) in pairs_global.items()}
    pref = {a: (deg[a] * deg[p], deg[a] * deg[n]) for a, (p, n) in pairs_global.items()}
    return {"model": _rank_metrics(learned), "common_neighbours": _rank_metrics(common),
            "preferential_attachment": _rank_metrics(pref)}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=6, help="job epochs: all but the last train, the last evaluates")
    parser.add_argument("--fanout", default="10,5")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="fanout-ablp-"))
    split = prepare(work, seed=args.seed)
    job_seconds = run_job(split, work / "samples", epochs=args.epochs, fanout=args.fanout)
    epochs = read_epochs(work / "samples")
    model, degrees, losses = train(epochs, split, seed=args.seed)
    result = evaluate(model, degrees, epochs[-1], split)
    result["losses"] = losses
    result["job_seconds"] = round(job_seconds, 1)
    result["train_anchors"], result["test_anchors"] = len(split.train_anchors), len(split.test_anchors)
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
