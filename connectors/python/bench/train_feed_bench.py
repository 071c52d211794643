"""Benchmark (not a test): does the channel keep a GNN training loop fed?

One GraphSAGE training loop (examples/train_graphsage.py: encoder + 2 SAGEConv layers, one
optimiser step per message) runs over the same messages five ways:

- in memory: the messages (same job options, so byte-identical) converted to PyG ``Data``
             beforehand and held in a list: the loop alone, nothing to wait for;
- channel, buffered: pulled from a running job (``ChannelClient(as_pyg=True)``) that has had time
             to sample into its endpoint buffer first (after the first message the trainer waits 1.5x
             as long as the offline run of the job took, then starts the clock): the cost of the channel itself
             (transport, decoding, ``to_pyg``) on the trainer's thread, between its steps;
- prefetched: the same through ``fanout_client.prefetch(client)``: receiving, decoding and ``to_pyg``
             on a background thread, overlapping the step (what a trainer should do);
- shm:       prefetched from the job's shared-memory rings on this host (``ShmClient``), buffered;
- live:      prefetched over TCP, with the clock started at the first message while the job samples: the
             trainer also waits for the sampler whenever it is faster than it.

The trainer runs torch with ``--torch-threads`` (default 1) in every mode: on a small machine the job's
JVM needs cores of its own. The modes alternate for ``--rounds`` rounds; printed are the steps/s
(median), the ratios to in memory (goal >= 0.95: training does not wait for data) and the share of
the wall time the training loop waited for its next batch. Flink's start-up is never counted. Also
printed: message bytes per sampled node for each feature dtype.

Graphs: cora (1,433 real binary features, every node a seed) and pubmed (19,717 nodes). Pubmed
ships labels only: ``--pubmed-features N`` writes N **synthetic** random features per node (default
500, PubMed's TF-IDF width) into a temporary nodes file, or ``--pubmed-nodes FILE`` uses a real one.
Features ship as ``--feature-dtype`` (default uint8: exact for cora's 0/1 features, 1 byte a value).

    cd connectors/python && /usr/bin/python3 bench/train_feed_bench.py [--graphs cora,pubmed] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "examples"))
import fanout_client  # noqa: E402
import train_graphsage as trainer  # noqa: E402

DATA = trainer.ROOT.parent / "shared" / "data"

# --pin: the training loop's thread on TRAINER_CPUS, the feed (the prefetch thread and the job's JVM) on the
# other CPUs, so the step never shares its core with the feed: a trainer host keeps cores for data loading.
TRAINER_CPUS: set[int] = set()
FEED_CPUS: set[int] = set()


def pinned_feed(source):
    """``source`` iterated with the calling (prefetch) thread on the feed's CPUs."""
    if FEED_CPUS:
        os.sched_setaffinity(0, FEED_CPUS)  # 0 = the calling thread on Linux
    yield from source
OUT = trainer.ROOT / "deploy" / "target" / "bench"


def synthetic_nodes(path: Path, labels_file: Path, dim: int, seed: int = 0) -> Path:
    """A nodes file with the real labels of ``labels_file`` and ``dim`` random features (3 decimals)."""
    table = np.loadtxt(labels_file, dtype=np.int64, comments="#", ndmin=2)
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        f.write(f"# id\tlabel\tf0..f{dim - 1} | synthetic random features (benchmark only)\n")
        for (node, label), row in zip(table, rng.random((len(table), dim), dtype=np.float32)):
            f.write(f"{node}\t{label}\t" + "\t".join(f"{v:.3f}" for v in row) + "\n")
    return path


def job_args(graph_dir: Path, nodes: Path, epochs: int, batch_size: int, feature_dtype: str) -> list[str]:
    """Every node a seed, shuffled epochs, features and labels in the messages."""
    return [str(trainer.FANOUT_LOCAL), "--graph", str(graph_dir), "--node-features", str(nodes),
            "--feature-dtype", feature_dtype, "--batch-size", str(batch_size), "--fanout", "15,10",
            "--epochs", str(epochs), "--shuffle", "--seed", "7", "--parallelism", "1"]


def make_model(in_dim: int, classes: int):
    torch.manual_seed(0)
    model = trainer.GraphSAGE(in_dim, 64, classes)
    return model, torch.optim.Adam(model.parameters(), lr=0.01)


def step(model, optimizer, data) -> None:
    """The training step of the example, with unlabelled seeds (-1) ignored."""
    model.train()
    optimizer.zero_grad()
    out = model(data.x, data.edge_index, data.num_sampled_nodes, data.num_sampled_edges)[:data.batch_size]
    torch.nn.functional.cross_entropy(out, data.y[:data.batch_size], ignore_index=-1).backward()
    optimizer.step()


def loop_in_memory(batches, in_dim, classes) -> tuple[float, float]:
    """Steps/s and CPU ms per step of the loop over Data already in memory."""
    model, optimizer = make_model(in_dim, classes)
    started, cpu = time.perf_counter(), time.process_time()
    for data in batches:
        step(model, optimizer, data)
    return len(batches) / (time.perf_counter() - started), 1e3 * (time.process_time() - cpu) / len(batches)


def loop_from_channel(args, workdir: Path, in_dim, classes, head_start: float, background: bool,
                      feed: str = "tcp") -> dict:
    """The loop fed by a running job: ``feed`` "tcp" (``ChannelClient``) or "shm" (``ShmClient``, the
    shared-memory rings on this host); ``background``: read through ``fanout_client.prefetch``. The clock
    starts ``head_start`` seconds after the first message arrived (0: at once), the first one not
    counted, and stops at the last step (closing the client and the job's shutdown are not training).
    Returns steps/s, CPU ms per step (all threads of the trainer) and the share of the wall time the
    training loop spent waiting for its next batch."""
    model, optimizer = make_model(in_dim, classes)
    steps, started, cpu, waited = 0, None, 0.0, 0.0
    if feed == "tcp":
        registry = workdir / f"registry-{time.monotonic_ns()}"
        job = args + ["--serve", "--registry", str(registry)]
        open_client = lambda: fanout_client.ChannelClient(registry=registry, connect_timeout=120, as_pyg=True)  # noqa: E731
    else:
        name = f"bench{time.monotonic_ns()}"
        job = args + ["--channel.shm", "--channel.shm-dir", "/dev/shm", "--channel.shm-name", name]
        open_client = lambda: fanout_client.ShmClient("/dev/shm", name, timeout=120, as_pyg=True)  # noqa: E731
    if FEED_CPUS:
        job = ["taskset", "-c", ",".join(map(str, sorted(FEED_CPUS)))] + job
    with trainer.RunningJob(job):
        with open_client() as client:
            source = iter(fanout_client.prefetch(pinned_feed(client)) if background else client)
            while True:
                asked = time.perf_counter()
                data = next(source, None)
                if data is None:
                    break
                if started is not None:
                    waited += time.perf_counter() - asked
                step(model, optimizer, data)
                steps += 1
                if started is None:
                    time.sleep(head_start)  # let the job sample ahead into its endpoint buffer
                    started, cpu = time.perf_counter(), time.process_time()
            ended, cpu = time.perf_counter(), time.process_time() - cpu
    return dict(rate=(steps - 1) / (ended - started), cpu_ms=1e3 * cpu / (steps - 1), steps=steps,
                waiting=waited / (ended - started))


def bytes_per_node(graph_dir: Path, nodes: Path, batch_size: int, workdir: Path) -> dict:
    """Message bytes per sampled node for each feature dtype (one epoch of the job each)."""
    result = {}
    for dtype in ("float32", "float16", "uint8"):
        out = workdir / f"bytes-{graph_dir.name}-{dtype}"
        trainer.run_job(job_args(graph_dir, nodes, 1, batch_size, dtype) + ["--output", str(out)])
        messages = list(fanout_client.read_samples(out))
        result[dtype] = sum(len(m.blob) for m in messages) / sum(len(m["ids"]) for m in messages)
    return result


def bench(name: str, graph_dir: Path, nodes: Path, epochs: int, batch_size: int, rounds: int, workdir: Path,
          feature_dtype: str) -> dict:
    args = job_args(graph_dir, nodes, epochs, batch_size, feature_dtype)
    out = workdir / f"{name}-samples"
    started = time.perf_counter()
    trainer.run_job(args + ["--output", str(out)])
    job_seconds = time.perf_counter() - started  # start-up included: more than the sampling needs
    batches = [fanout_client.to_pyg(m) for m in fanout_client.read_samples(out)]
    in_dim = batches[0].x.shape[1]
    classes = int(max(int(d.y.max()) for d in batches)) + 1
    rates = {"memory": [], "buffered": [], "prefetched": [], "shm": [], "live": []}
    cpu_ms = {k: [] for k in rates}
    waiting = {k: [] for k in rates}
    modes = {"buffered": (1.5 * job_seconds, False, "tcp"), "prefetched": (1.5 * job_seconds, True, "tcp"),
             "shm": (1.5 * job_seconds, True, "shm"), "live": (0.0, True, "tcp")}
    for r in range(rounds):
        rate, ms = loop_in_memory(batches, in_dim, classes)
        rates["memory"].append(rate)
        cpu_ms["memory"].append(ms)
        waiting["memory"].append(0.0)
        for mode, (head_start, background, feed) in modes.items():
            got = loop_from_channel(args, workdir, in_dim, classes, head_start, background, feed)
            assert got["steps"] == len(batches), f"{mode} gave {got['steps']} messages, files {len(batches)}"
            rates[mode].append(got["rate"])
            cpu_ms[mode].append(got["cpu_ms"])
            waiting[mode].append(got["waiting"])
        print(f"  {name} round {r}: " + ", ".join(
            f"{k} {v[-1]:.1f} steps/s ({cpu_ms[k][-1]:.0f} CPU ms/step, {100 * waiting[k][-1]:.0f}% waiting)"
            for k, v in rates.items()), flush=True)
    nodes_per_batch = float(np.mean([d.num_nodes for d in batches]))
    result = dict(graph=name, batches=len(batches), batch_size=batch_size, features=in_dim,
                  feature_dtype=feature_dtype, nodes_per_batch=nodes_per_batch,
                  message_mb=float(np.mean([len(m.blob) for m in fanout_client.read_samples(out)])) / 1e6,
                  offline_job_seconds=job_seconds, rounds=rates, cpu_ms_per_step=cpu_ms, waiting=waiting,
                  **{f"{k}_steps_per_s": statistics.median(v) for k, v in rates.items()},
                  **{f"{k}_ratio": statistics.median(c / m for c, m in zip(rates[k], rates["memory"]))
                     for k in modes},
                  bytes_per_node=bytes_per_node(graph_dir, nodes, batch_size, workdir))
    print(f"{name}: {len(batches)} batches of {batch_size} seeds, {nodes_per_batch:.0f} nodes x {in_dim} "
          f"{feature_dtype} features ({result['message_mb']:.1f} MB a message); steps/s in memory "
          f"{result['memory_steps_per_s']:.1f}, channel buffered {result['buffered_steps_per_s']:.1f} "
          f"({result['buffered_ratio']:.2f}x), prefetched {result['prefetched_steps_per_s']:.1f} "
          f"({result['prefetched_ratio']:.2f}x), shm {result['shm_steps_per_s']:.1f} "
          f"({result['shm_ratio']:.2f}x), live {result['live_steps_per_s']:.1f} "
          f"({result['live_ratio']:.2f}x) (medians of {rounds}); bytes per sampled node "
          + ", ".join(f"{k} {v:.0f}" for k, v in result["bytes_per_node"].items()), flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graphs", default="cora,pubmed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--epochs", default="10,2", help="epochs of each graph's job, as --graphs")
    parser.add_argument("--feature-dtype", default="uint8", choices=["float32", "float16", "uint8"])
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--pubmed-features", type=int, default=500, help="synthetic features per pubmed node")
    parser.add_argument("--pubmed-nodes", help="a real pubmed nodes file with features instead")
    parser.add_argument("--torch-threads", type=int, default=1,
                        help="torch intra-op threads of the trainer in every mode (default 1: the sampler's "
                             "JVM runs on this machine too and needs a core of its own; 0 = torch's default)")
    parser.add_argument("--pin", action="store_true",
                        help="the training loop on CPU 0, the feed (prefetch thread, the job's JVM) on the others")
    args = parser.parse_args()
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    if args.pin:
        cpus = sorted(os.sched_getaffinity(0))
        if len(cpus) < 2:
            parser.error("--pin needs at least 2 CPUs")
        TRAINER_CPUS.update(cpus[:1])
        FEED_CPUS.update(cpus[1:])
        os.sched_setaffinity(0, TRAINER_CPUS)  # this (the training) thread; the job and feed threads set theirs
    results = []
    with tempfile.TemporaryDirectory(prefix="fanout-train-bench-") as tmp:
        workdir = Path(tmp)
        for name, epochs in zip(args.graphs.split(","), map(int, args.epochs.split(","))):
            graph_dir = DATA / name
            if name == "pubmed" and not args.pubmed_nodes:
                nodes = synthetic_nodes(workdir / "pubmed-nodes.tsv", graph_dir / "nodes.tsv", args.pubmed_features)
            elif name == "pubmed":
                nodes = Path(args.pubmed_nodes)
            else:
                nodes = next(p for p in (graph_dir / "nodes.tsv.gz", graph_dir / "nodes.tsv") if p.exists())
            results.append(bench(name, graph_dir, nodes, epochs, args.batch_size, args.rounds, workdir,
                                 args.feature_dtype))
            results[-1]["synthetic_features"] = name == "pubmed" and not args.pubmed_nodes
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "train-feed.json").write_text(json.dumps(results, indent=1))
    print(f"results in {OUT / 'train-feed.json'}")


if __name__ == "__main__":
    main()
