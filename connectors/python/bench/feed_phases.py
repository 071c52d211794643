"""Benchmark (not a test): where a fed training step's time goes, without a job or a network.

The messages of a ``.samples`` directory are held as blobs in memory (so no disk and no JVM), then:

1. per phase, on the calling thread, medians of its CPU time over the messages: ``decode`` (safetensors header and
   views), ``dequantise`` (uint8 -> float32 features), ``to_pyg`` (decode + dequantise + torch/PyG
   wrapping), for uint8 ``to_pyg_deferred`` (``to_pyg(..., dequantise=False)``: the features stay uint8 for the
   GPU to dequantise) and ``step`` (the GraphSAGE step of ``train_feed_bench.py`` on converted ``Data``);
2. the same training loop four ways, interleaved for ``--rounds`` rounds: over ``Data`` in memory,
   converting between steps (``inline``), through ``prefetch`` (a thread) and through
   ``prefetch(process=True)`` (a worker process handing over shared memory); for each, steps/s and
   the CPU ms per step of the training thread alone (``time.thread_time``) and of the whole process.

A loop whose training thread spends more CPU per step than in memory is slowed by the feed itself
(GIL, page faults of fresh feature matrices, caches), not by waiting.

    cd connectors/python && /usr/bin/python3 bench/feed_phases.py SAMPLES_DIR [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import fanout_client  # noqa: E402
from fanout_client import decode, to_pyg  # noqa: E402
from fanout_client.message import Message  # noqa: E402
from fanout_client.quantised import dequantise_uint8  # noqa: E402
from train_feed_bench import make_model, step  # noqa: E402


def timed(fn, *a):
    """``fn(*a)`` and the calling thread's CPU ms it took (``time.thread_time``: what the feed costs the trainer's
    CPU, unaffected by other processes taking turns on the machine)."""
    started = time.thread_time_ns()
    result = fn(*a)
    return result, 1e-6 * (time.thread_time_ns() - started)


def dequantise(msg):
    """The client's own dequantisation (what to_pyg runs), on its own."""
    return dequantise_uint8(msg["nfeats"], msg["#META.nfeats_scale"], msg["#META.nfeats_offset"])


def phases(blobs, in_dim, classes):
    out = {"decode": [], "dequantise": [], "to_pyg": [], "step": []}
    model, optimizer = make_model(in_dim, classes)
    for blob in blobs[:3]:  # warm-up: torch's first elementwise calls and the optimiser's state
        step(model, optimizer, to_pyg(Message(decode(blob))))
    for blob in blobs:
        msg, ms = timed(lambda b: Message(decode(b)), blob)
        out["decode"].append(ms)
        if msg["nfeats"].dtype == np.uint8:
            out["dequantise"].append(timed(dequantise, msg)[1])
        data, ms = timed(lambda b: to_pyg(Message(decode(b))), blob)
        out["to_pyg"].append(ms)
        if msg["nfeats"].dtype == np.uint8:  # the features left for the GPU: fanout_client.dequantise there
            out.setdefault("to_pyg_deferred", []).append(timed(lambda b: to_pyg(Message(decode(b)), dequantise=False),
                                                               blob)[1])
        out["step"].append(timed(step, model, optimizer, data)[1])
    return {k: statistics.median(v) for k, v in out.items() if v}


def loop(batches, in_dim, classes) -> dict:
    model, optimizer = make_model(in_dim, classes)
    wall, thread, process, n = time.perf_counter(), time.thread_time(), time.process_time(), 0
    for data in batches:
        step(model, optimizer, data)
        n += 1
    return dict(rate=n / (time.perf_counter() - wall), thread_ms=1e3 * (time.thread_time() - thread) / n,
                process_ms=1e3 * (time.process_time() - process) / n)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("samples")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--torch-threads", type=int, default=1)
    parser.add_argument("--json", action="store_true",
                        help="print the phases' medians (thread CPU ms per message) as one JSON line and stop "
                             "(what deploy/bin/fanout-bench feed records)")
    args = parser.parse_args()
    torch.set_num_threads(args.torch_threads)
    blobs = [bytearray(m.blob) for m in fanout_client.read_samples(args.samples)]
    converted = [to_pyg(Message(decode(b))) for b in blobs]
    in_dim, classes = converted[0].x.shape[1], int(max(int(d.y.max()) for d in converted)) + 1
    if args.json:
        medians = phases(blobs, in_dim, classes)
        print(json.dumps(dict(messages=len(blobs), message_mb=float(np.mean([len(b) for b in blobs])) / 1e6,
                              nodes=float(np.mean([d.x.shape[0] for d in converted])),
                              features=int(in_dim), dtype=str(Message(decode(blobs[0]))["nfeats"].dtype),
                              **{k + "_ms": v for k, v in medians.items()})))
        return
    print(f"{len(blobs)} messages, {np.mean([len(b) for b in blobs]) / 1e6:.1f} MB each, "
          f"x {list(converted[0].x.shape)}; load average {os.getloadavg()[0]:.2f}", flush=True)
    print("phases (median ms per message): " + ", ".join(
        f"{k} {v:.1f}" for k, v in phases(blobs, in_dim, classes).items()), flush=True)
    modes = {
        "memory": lambda: converted,
        "inline": lambda: (to_pyg(Message(decode(b))) for b in blobs),
        "thread": lambda: fanout_client.prefetch(to_pyg(Message(decode(b))) for b in blobs),
        "process": lambda: fanout_client.prefetch(lambda: (Message(decode(b)) for b in blobs), process=True,
                                                  transform=to_pyg),
    }
    results = {k: [] for k in modes}
    for r in range(args.rounds):
        for mode, source in modes.items():
            results[mode].append(loop(source(), in_dim, classes))
        print(f"round {r} (load {os.getloadavg()[0]:.2f}): " + ", ".join(
            f"{k} {v[-1]['rate']:.1f} steps/s ({v[-1]['thread_ms']:.0f}/{v[-1]['process_ms']:.0f} CPU ms/step "
            "loop/process)" for k, v in results.items()), flush=True)
    memory = [r["rate"] for r in results["memory"]]
    print("median ratios to memory: " + ", ".join(
        f"{k} {statistics.median(r['rate'] / m for r, m in zip(v, memory)):.2f}x" for k, v in results.items()))


if __name__ == "__main__":
    main()
