"""Benchmark (not a test): does the channel keep a GNN training loop fed?

One GraphSAGE training loop (examples/train_graphsage.py: encoder + 2 SAGEConv layers, one
optimiser step per message) runs over the same messages five ways:

- in memory: the messages (same job options, so byte-identical) converted to PyG ``Data``
             beforehand and held in a list: the loop alone, nothing to wait for;
- channel, buffered: pulled from a running job (``ChannelClient(transform=to_pyg)``) that has had time
             to sample into its endpoint buffer first (after the first message the trainer waits 1.5x
             as long as the offline run of the job took, then starts the clock): the cost of the channel itself
             (transport, decoding, ``to_pyg``) on the trainer's thread, between its steps;
- prefetched: the same through ``fanout_client.prefetch(client)``: receiving, decoding and ``to_pyg``
             on a background thread, overlapping the step (what a trainer should do);
- shm:       prefetched from the job's shared-memory rings on this host (``ShmClient``), buffered;
- process, process-shm: as prefetched and shm, but through ``prefetch(open_client, process=True,
             transform=to_pyg)``: the reader runs in a worker process that dequantises into shared buffers,
             the training process only wraps them (``ProcessPrefetcher``);
- live, live-process: prefetched over TCP (thread, process), with the clock started at the first message
             while the job samples: the trainer also waits for the sampler whenever it is faster than it;
- busy:      a control, no feed: the in-memory loop while a busy loop of the shell (no memory traffic,
             no I/O) runs on the feed's CPUs (with ``--pin``) or anywhere. Its ratio is what any work next
             to the loop costs on this machine: on a VM whose vCPUs share physical cores it is far below 1,
             and no feed, however small its work, can beat it.

The trainer runs torch with ``--torch-threads`` (default 1) in every mode: on a small machine the job's
JVM needs cores of its own. The modes (``--modes``) alternate for ``--rounds`` rounds; printed are the
steps/s (median), the ratios to in memory (goal >= 0.95: training does not wait for data), the CPU ms
per step of the training thread alone (``time.thread_time``: what the feed adds to the loop itself) and
of the whole training process (the worker process of the process modes not included), the share of
the wall time the training loop waited for its next batch and the load average. Flink's start-up is
never counted. Also printed: message bytes per sampled node for each feature dtype.

Graphs: cora (1,433 real binary features, every node a seed) and pubmed (19,717 nodes). Pubmed
ships labels only: ``--pubmed-features N`` writes N **synthetic** random features per node (default
500, PubMed's TF-IDF width) into a temporary nodes file, or ``--pubmed-nodes FILE`` uses a real one.
Features ship as ``--feature-dtype`` (default uint8: exact for cora's 0/1 features, 1 byte a value).

    cd connectors/python && /usr/bin/python3 bench/train_feed_bench.py [--graphs cora,pubmed] [--rounds 3]
"""

from __future__ import annotations

import argparse
import functools
import os
import json
import statistics
import subprocess
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


def loop_in_memory(batches, in_dim, classes) -> dict:
    """Steps/s and CPU ms per step (process, training thread) of the loop over Data already in memory."""
    model, optimizer = make_model(in_dim, classes)
    started, cpu, thread = time.perf_counter(), time.process_time(), time.thread_time()
    for data in batches:
        step(model, optimizer, data)
    n = len(batches)
    return dict(rate=n / (time.perf_counter() - started), cpu_ms=1e3 * (time.process_time() - cpu) / n,
                thread_ms=1e3 * (time.thread_time() - thread) / n, waiting=0.0, steps=n)


def loop_from_channel(args, workdir: Path, in_dim, classes, head_start: float, background,
                      feed: str = "tcp") -> dict:
    """The loop fed by a running job: ``feed`` "tcp" (``ChannelClient``) or "shm" (``ShmClient``, the
    shared-memory rings on this host); ``background``: False (read between steps), "thread"
    (``fanout_client.prefetch``) or "process" (``prefetch(..., process=True)``). The clock
    starts ``head_start`` seconds after the first message arrived (0: at once), the first one not
    counted, and stops at the last step (closing the client and the job's shutdown are not training).
    Returns steps/s, CPU ms per step (all threads of the trainer) and the share of the wall time the
    training loop spent waiting for its next batch."""
    model, optimizer = make_model(in_dim, classes)
    steps, started, cpu, thread, waited = 0, None, 0.0, 0.0, 0.0
    # The process prefetcher converts in the trainer, from its buffers: its reader yields numpy messages.
    transform = None if background == "process" else fanout_client.to_pyg
    if feed == "tcp":
        registry = workdir / f"registry-{time.monotonic_ns()}"
        job = args + ["--serve", "--registry", str(registry)]
        open_client = functools.partial(fanout_client.ChannelClient, registry=registry, connect_timeout=120,
                                        transform=transform)
    else:
        name = f"bench{time.monotonic_ns()}"
        job = args + ["--channel.shm", "--channel.shm-dir", "/dev/shm", "--channel.shm-name", name]
        open_client = functools.partial(fanout_client.ShmClient, "/dev/shm", name, timeout=120,
                                        transform=transform)
    if FEED_CPUS:
        job = ["taskset", "-c", ",".join(map(str, sorted(FEED_CPUS)))] + job
    with trainer.RunningJob(job):
        if background == "process":
            client = fanout_client.prefetch(open_client, process=True, transform=fanout_client.to_pyg,
                                            cpus=FEED_CPUS or None)
            source = client
        else:
            client = open_client()
            source = iter(fanout_client.prefetch(client, cpus=FEED_CPUS or None) if background else client)
        with client:
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
                    started, cpu, thread = time.perf_counter(), time.process_time(), time.thread_time()
            ended, cpu, thread = time.perf_counter(), time.process_time() - cpu, time.thread_time() - thread
    return dict(rate=(steps - 1) / (ended - started), cpu_ms=1e3 * cpu / (steps - 1), steps=steps,
                thread_ms=1e3 * thread / (steps - 1), waiting=waited / (ended - started))


def loop_next_to_busy_cpu(batches, in_dim, classes) -> dict:
    """The in-memory loop while a shell busy loop (pure ALU: no memory traffic, no system calls) runs on the
    feed's CPUs: the share of the loop's speed that any concurrent work takes on this machine."""
    busy = ["sh", "-c", "while :; do :; done"]
    if FEED_CPUS:
        busy = ["taskset", "-c", ",".join(map(str, sorted(FEED_CPUS)))] + busy
    proc = subprocess.Popen(busy)
    try:
        time.sleep(0.5)
        return loop_in_memory(batches, in_dim, classes)
    finally:
        proc.kill()
        proc.wait()


def bytes_per_node(graph_dir: Path, nodes: Path, batch_size: int, workdir: Path) -> dict:
    """Message bytes per sampled node for each feature dtype (one epoch of the job each)."""
    result = {}
    for dtype in ("float32", "float16", "uint8"):
        out = workdir / f"bytes-{graph_dir.name}-{dtype}"
        trainer.run_job(job_args(graph_dir, nodes, 1, batch_size, dtype) + ["--output", str(out)])
        messages = list(fanout_client.read_samples(out))
        result[dtype] = sum(len(m.blob) for m in messages) / sum(len(m["ids"]) for m in messages)
    return result


# mode -> (head start in offline job times, reading between steps / "thread" / "process", feed)
MODES = {"buffered": (1.5, False, "tcp"), "prefetched": (1.5, "thread", "tcp"), "shm": (1.5, "thread", "shm"),
         "process": (1.5, "process", "tcp"), "process-shm": (1.5, "process", "shm"), "live": (0.0, "thread", "tcp"),
         "live-process": (0.0, "process", "tcp"), "busy": (0.0, None, None)}


def bench(name: str, graph_dir: Path, nodes: Path, epochs: int, batch_size: int, rounds: int, workdir: Path,
          feature_dtype: str, selected, with_bytes: bool = True) -> dict:
    args = job_args(graph_dir, nodes, epochs, batch_size, feature_dtype)
    out = workdir / f"{name}-samples"
    started = time.perf_counter()
    trainer.run_job(args + ["--output", str(out)])
    job_seconds = time.perf_counter() - started  # start-up included: more than the sampling needs
    batches = [fanout_client.to_pyg(m) for m in fanout_client.read_samples(out)]
    in_dim = batches[0].x.shape[1]
    classes = int(max(int(d.y.max()) for d in batches)) + 1
    modes = {k: v for k, v in MODES.items() if k in selected}
    for k, (head, *_) in modes.items():
        modes[k] = (head * job_seconds, *modes[k][1:])
    runs = {k: [] for k in ["memory", *modes]}
    for r in range(rounds):
        # Each channel mode is compared with the in-memory loop run right before and right after it,
        # so a change of the machine's load (other users) between modes does not count as the feed's.
        before = loop_in_memory(batches, in_dim, classes)
        runs["memory"].append(before)
        for mode, (head_start, background, feed) in modes.items():
            load = os.getloadavg()[0]
            got = (loop_next_to_busy_cpu(batches, in_dim, classes) if mode == "busy"
                   else loop_from_channel(args, workdir, in_dim, classes, head_start, background, feed))
            after = loop_in_memory(batches, in_dim, classes)
            assert got["steps"] == len(batches), f"{mode} gave {got['steps']} messages, files {len(batches)}"
            got.update(ratio=got["rate"] / ((before["rate"] + after["rate"]) / 2), load=load)
            runs[mode].append(got)
            runs["memory"].append(after)
            before = after
        print(f"  {name} round {r}: " + ", ".join(
            f"{k} {v[-1]['rate']:.1f} steps/s" + (f" ({v[-1]['ratio']:.2f}x, load {v[-1]['load']:.1f})"
                                                  if k != "memory" else "")
            + f" {v[-1]['thread_ms']:.0f}/{v[-1]['cpu_ms']:.0f} CPU ms/step loop/process, "
            f"{100 * v[-1]['waiting']:.0f}% waiting" for k, v in runs.items()), flush=True)
    nodes_per_batch = float(np.mean([d.num_nodes for d in batches]))
    result = dict(graph=name, batches=len(batches), batch_size=batch_size, features=in_dim,
                  feature_dtype=feature_dtype, nodes_per_batch=nodes_per_batch,
                  message_mb=float(np.mean([len(m.blob) for m in fanout_client.read_samples(out)])) / 1e6,
                  offline_job_seconds=job_seconds, runs=runs,
                  **{f"{k}_steps_per_s": statistics.median(r["rate"] for r in v) for k, v in runs.items()},
                  **{f"{k}_thread_ms": statistics.median(r["thread_ms"] for r in v) for k, v in runs.items()},
                  **{f"{k}_ratio": statistics.median(r["ratio"] for r in runs[k]) for k in modes},
                  bytes_per_node=bytes_per_node(graph_dir, nodes, batch_size, workdir) if with_bytes else None)
    print(f"{name}: {len(batches)} batches of {batch_size} seeds, {nodes_per_batch:.0f} nodes x {in_dim} "
          f"{feature_dtype} features ({result['message_mb']:.1f} MB a message); medians of {rounds}: in memory "
          f"{result['memory_steps_per_s']:.1f} steps/s ({result['memory_thread_ms']:.1f} loop CPU ms/step), "
          + ", ".join(f"{k} {result[k + '_steps_per_s']:.1f} ({result[k + '_ratio']:.2f}x, "
                      f"{result[k + '_thread_ms']:.1f} ms)" for k in modes)
          + ("; bytes per sampled node " + ", ".join(f"{k} {v:.0f}" for k, v in result["bytes_per_node"].items())
             if with_bytes else ""), flush=True)
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
    parser.add_argument("--modes", default="prefetched,shm,process,process-shm,live,live-process",
                        help=f"channel modes, each against the in-memory loop (of {', '.join(MODES)}; busy: the control "
                             "without a feed, a busy loop on the feed's CPUs)")
    parser.add_argument("--no-bytes", action="store_true", help="skip the bytes-per-node jobs")
    parser.add_argument("--pin", action="store_true",
                        help="the training loop on CPU 0, the feed (prefetch thread or worker process, the job's JVM) on the others")
    args = parser.parse_args()
    unknown = set(args.modes.split(",")) - set(MODES)
    if unknown:
        parser.error(f"--modes: unknown {', '.join(sorted(unknown))} (known: {', '.join(MODES)})")
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
                                 args.feature_dtype, args.modes.split(","), not args.no_bytes))
            results[-1]["synthetic_features"] = name == "pubmed" and not args.pubmed_nodes
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"train-feed-{args.feature_dtype}.json").write_text(json.dumps(results, indent=1))
    print(f"results in {OUT / f'train-feed-{args.feature_dtype}.json'}")


if __name__ == "__main__":
    main()
