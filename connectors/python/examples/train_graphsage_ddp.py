"""Data-parallel GraphSAGE on cora: PyTorch DistributedDataParallel, each rank fed its own share of every epoch.

Start it with torch's own launcher; every rank is one process, gloo on CPU:

    cd connectors/python
    python3 -m torch.distributed.run --nproc-per-node 2 examples/train_graphsage_ddp.py --epochs 40

Debian's torch 1.13 on Python 3.11 has a launcher that fails before starting a worker, and only the underscore
flags; ``examples/torchrun.py`` is the same launcher with that mended:

    /usr/bin/python3 examples/torchrun.py --nproc_per_node 2 examples/train_graphsage_ddp.py --epochs 40

Two feeds (``--feed``): ``files`` (default), where rank 0 runs the Fanout job to its end and every rank reads its
share of the ``.samples`` files (``read_samples(dir, rank=r, world_size=n)``; ``--samples DIR`` names the files of
an earlier run instead), and ``channel``, where rank 0 starts the job with ``--serve`` and every rank pulls its
share live while it samples (``ChannelClient(registry=DIR, rank=r, world_size=n)``). Either way the job runs with
``--trainers WORLD_SIZE``: every epoch's plan then holds a multiple of WORLD_SIZE batches, batch b is rank ``b % WORLD_SIZE``'s,
and a count that does not divide is padded as torch's ``DistributedSampler`` pads (the extra batches take seeds
again from the start of the epoch's order and carry ``#META.padded``). So every rank takes the same number of
steps in every epoch and the gradient all-reduce at an epoch's end never waits for a rank that has run out:
no DDP hang.

After each epoch rank 0 evaluates full-batch on the whole graph (as examples/train_graphsage.py does) and, with
``--result FILE``, writes the test accuracy of the epoch with the best validation accuracy per model seed and
every rank's step counts as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the single-trainer example's graph, split and model
import train_graphsage as single  # noqa: E402

fanout_client = single.fanout_client


def run_job_once(samples: Path, splits, epochs: int, world_size: int, args) -> None:
    """Rank 0: the job's files for ``world_size`` trainers (the others wait at the barrier after this)."""
    seeds = single.write_seeds(samples.parent / "seeds.txt", splits[0])
    job = single.job_args(seeds, epochs, batch_size=args.batch_size, fanout=args.fanout, seed=args.job_seed)
    single.run_job(job + ["--trainers", str(world_size), "--output", str(samples)])


def train_rank(graph, splits, epochs_of_share, model_seed: int, rank: int):
    """One model, data-parallel, on this rank's share (an iterable of epochs, each of messages). Returns (history
    on rank 0, steps per epoch)."""
    model, _ = single.new_model(graph, model_seed)  # the same initial weights on every rank (seeded)
    ddp = DistributedDataParallel(model)
    optimizer = torch.optim.Adam(ddp.parameters(), lr=0.01, weight_decay=5e-3)
    history, steps = [], []
    for epoch in epochs_of_share:
        count = 0
        for msg in epoch:
            data = fanout_client.to_pyg(msg)
            ddp.train()
            optimizer.zero_grad()
            out = ddp(data.x, data.edge_index, data.num_sampled_nodes, data.num_sampled_edges)[:data.batch_size]
            F.cross_entropy(out, data.y[:data.batch_size]).backward()  # DDP all-reduces the gradients here
            optimizer.step()
            count += 1
        steps.append(count)
        if rank == 0:
            val, test = single.evaluate(model, graph, splits[1], splits[2])
            history.append(dict(epoch=epoch.epoch, val=val, test=test))
    return history, steps


def _shared_path(path: Path) -> Path:
    """Rank 0's ``path``, on every rank (its temporary directory is the one that holds the job's output)."""
    box = [str(path)]
    dist.broadcast_object_list(box, src=0)
    return Path(box[0])


def _result(history, steps, model_seed, world_size):
    """Gathers every rank's step counts; rank 0's summary of one model (None on the others)."""
    all_steps = [None] * world_size
    dist.all_gather_object(all_steps, steps)
    if dist.get_rank() != 0:
        return None
    best = max(history, key=lambda row: row["val"])
    print(f"model seed {model_seed}: test accuracy {best['test']:.3f} (epoch {best['epoch']}),"
          f" steps per epoch per rank {[s[:3] for s in all_steps]}...", flush=True)
    return dict(model_seed=model_seed, test=best["test"], best_epoch=best["epoch"], steps_per_rank=all_steps)


def train_from_files(graph, splits, model_seeds, workdir: Path, rank: int, world_size: int, args):
    """Rank 0 runs the job to its end (or ``--samples`` names its files); each model reads every rank's share."""
    samples = Path(args.samples) if args.samples else workdir / "samples"
    if rank == 0 and not args.samples:
        run_job_once(samples, splits, args.epochs, world_size, args)
    samples = _shared_path(samples)
    results = []
    for model_seed in model_seeds:
        share = fanout_client.SamplesReader(samples, rank=rank, world_size=world_size).epochs()
        history, steps = train_rank(graph, splits, share, model_seed, rank)
        results.append(_result(history, steps, model_seed, world_size))
    return results


def train_from_channel(graph, splits, model_seeds, workdir: Path, rank: int, world_size: int, args):
    """Per model, rank 0 starts the job with --serve (the same batches every time) and every rank pulls its share
    live while it samples."""
    results = []
    for model_seed in model_seeds:
        registry = workdir / f"registry-{model_seed}"
        job = None
        if rank == 0:
            seeds = single.write_seeds(workdir / "seeds.txt", splits[0])
            args_job = single.job_args(seeds, args.epochs, batch_size=args.batch_size, fanout=args.fanout,
                                       seed=args.job_seed)
            job = single.RunningJob(args_job + ["--trainers", str(world_size), "--serve", "--registry", str(registry)])
            job.__enter__()
        registry = _shared_path(registry)
        try:
            with fanout_client.ChannelClient(registry=registry, connect_timeout=120, rank=rank,
                                             world_size=world_size) as client:
                history, steps = train_rank(graph, splits, client.epochs(), model_seed, rank)
        finally:
            if job is not None:
                job.__exit__(None, None, None)  # waits for the job's end, raises if it failed
        results.append(_result(history, steps, model_seed, world_size))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--feed", choices=("files", "channel"), default="files")
    parser.add_argument("--samples", help="files: the .samples files of a job run with --trainers WORLD_SIZE"
                                          " (default: rank 0 runs the job into a temporary directory)")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=35)
    parser.add_argument("--fanout", default="15,10")
    parser.add_argument("--job-seed", type=int, default=0)
    parser.add_argument("--split-seed", type=int, default=0)
    parser.add_argument("--model-seeds", default="0,1,2", help="one model per seed, trained one after another")
    parser.add_argument("--result", help="write the results as JSON here (rank 0)")
    args = parser.parse_args()

    dist.init_process_group("gloo")  # torch.distributed.run sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
    rank, world_size = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)  # one core per rank: ranks share the machine
    graph = single.load_graph()
    splits = single.split(graph.y, args.split_seed)
    seeds = [int(s) for s in args.model_seeds.split(",")]
    with tempfile.TemporaryDirectory(prefix="fanout-ddp-") as workdir:
        train = train_from_channel if args.feed == "channel" else train_from_files
        results = train(graph, splits, seeds, Path(workdir), rank, world_size, args)
        dist.barrier()  # rank 0 removes its temporary directory only after every rank is done with it
    if rank == 0 and args.result:
        Path(args.result).write_text(json.dumps(dict(world_size=world_size, epochs=args.epochs, models=results)))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
