"""Load and fault benchmark of the per-rank live channel (issue 27; not a CI test): on the standalone
cluster (deploy/bin/start-cluster), a paced job with --trainers 8 for 5 epochs, read by 8 rank processes
(ChannelClient(rank=r, world_size=8)) at once. Measures each rank's peak RSS (VmHWM, sampled) and peak
held bytes (client.peak_held_bytes), and the endpoints' peak held bytes (gauge peakQueueBytes via the
TaskManagers' Prometheus reporters) against their bound (fanout.channel.buffer-bytes). Faults: kill -9 of
one rank mid-epoch, restarted with the same rank; kill -9 of the TaskManager while all 8 read, a new one
started. Checks: every rank's share (the killed rank's two processes together) complete, each batch once,
byte for byte the job's committed --output (read_samples' share). Writes a JSON report.

    cd connectors/python && python3 bench/ranks_fault_bench.py --json /tmp/ranks-bench.json

Needs `mvn install` (job jar and deploy/target/flink-*) and ../shared/data/pubmed."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests")]

import fanout_client  # noqa: E402
from flink_cluster import Cluster, PrometheusScrape, live_taskmanager  # noqa: E402

ROOT = HERE.parents[2]
PUBMED = ROOT.parent / "shared" / "data" / "pubmed"
SAMPLED = "flink_taskmanager_job_task_operator_fanout_batchesSampled"

# One rank's process: reads its share epoch by epoch, one JSON line per message (flushed, so what a
# killed process consumed is on disk). A window of 2 messages without byte-based widening acknowledges
# every message before it is handed out: what the file holds is what the endpoints count as consumed.
RANK = r"""
import hashlib, json, sys, time
import fanout_client
registry, rank, world, out, step = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
with open(out, "a") as f, fanout_client.ChannelClient(registry=registry, rank=rank, world_size=world, prefetch=2,
        prefetch_bytes=0, connect_timeout=180, reconnect_timeout=300, log_every=0) as client:
    for epoch in client.epochs():
        for m in epoch:
            f.write(json.dumps([m.epoch, m.batch_id, hashlib.sha1(bytes(m.blob)).hexdigest()]) + "\n")
            f.flush()
            time.sleep(step)  # the training step
    f.write(json.dumps({"done": True, "peak_held_bytes": client.peak_held_bytes}) + "\n")
"""


def vm_hwm_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Ranks:
    """The rank processes, their output files and their peak RSS (sampled every 0.2 s)."""

    def __init__(self, registry: Path, world: int, out: Path, step: float):
        self.registry, self.world, self.out, self.step = registry, world, out, step
        self.procs: dict[int, list[subprocess.Popen]] = {r: [] for r in range(world)}
        self.peak_kib = {r: 0 for r in range(world)}
        self._stop = False
        threading.Thread(target=self._sample, daemon=True).start()

    def start(self, rank: int) -> subprocess.Popen:
        n = len(self.procs[rank])
        p = subprocess.Popen([sys.executable, "-c", RANK, str(self.registry), str(rank), str(self.world),
                              str(self.out / f"rank{rank}-{n}.jsonl"), str(self.step)], cwd=HERE.parent,
                             stderr=open(self.out / f"rank{rank}-{n}.err", "w"))
        self.procs[rank].append(p)
        return p

    def consumed(self, rank: int) -> int:
        return sum(1 for f in self.out.glob(f"rank{rank}-*.jsonl") for line in open(f) if line.startswith("["))

    def _sample(self):
        while not self._stop:
            for r, ps in self.procs.items():
                for p in ps:
                    self.peak_kib[r] = max(self.peak_kib[r], vm_hwm_kib(p.pid))
            time.sleep(0.2)

    def wait(self, timeout: float):
        deadline = time.monotonic() + timeout
        for ps in self.procs.values():
            p = ps[-1]
            p.wait(timeout=max(deadline - time.monotonic(), 1))
        self._stop = True

    def kill_all(self):
        for ps in self.procs.values():
            for p in ps:
                if p.poll() is None:
                    p.kill()

    def records(self, rank: int):
        got, summary = [], []
        for f in sorted(self.out.glob(f"rank{rank}-*.jsonl")):
            for line in open(f):
                item = json.loads(line)
                (summary if isinstance(item, dict) else got).append(item)
        return got, summary


class EndpointPeaks:
    """The largest peakQueueBytes any endpoint of the job reported, scraped from every live TaskManager."""

    def __init__(self, cluster: Cluster, job: str):
        self.cluster, self.job = cluster, job
        self.peak = 0
        self.scrapes = {}
        self._stop = False
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while not self._stop:
            for name in [n for n in self.cluster.pids() if n.startswith("taskmanager-")]:
                try:
                    scrape = self.scrapes.get(name) or PrometheusScrape(self.cluster, name)
                    self.scrapes[name] = scrape
                    for line in scrape.text().splitlines():
                        if "peakQueueBytes{" in line and f'job_id="{self.job}"' in line:
                            self.peak = max(self.peak, int(float(line.rsplit(" ", 1)[1])))
                except Exception:  # a TaskManager being killed or starting: next round
                    pass
            time.sleep(0.25)

    def stop(self):
        self._stop = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", required=True, help="where to write the report")
    parser.add_argument("--ranks", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--batches-per-second", type=int, default=150, help="the job's pace")
    parser.add_argument("--step-ms", type=float, default=2.0, help="each rank's training step")
    parser.add_argument("--buffer-bytes", default="4mb", help="fanout.channel.buffer-bytes of each endpoint")
    parser.add_argument("--kill-rank", type=int, default=3)
    parser.add_argument("--kill-rank-after", type=int, default=100, help="messages the rank consumed before kill -9")
    parser.add_argument("--kill-tm-at", type=float, default=0.6, help="fraction of all batches sampled")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="ranks-bench-"))
    cluster = Cluster(work / "cluster")
    report = {"command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]), "ranks": args.ranks,
              "epochs": args.epochs, "buffer_bytes": args.buffer_bytes}
    ranks = None
    try:
        cluster.start()
        registry, offline, out = work / "registry", work / "offline", work / "ranks"
        out.mkdir()
        job_args = ["--graph", str(PUBMED), "--fanout", "10,5", "--batch-size", str(args.batch_size), "--epochs",
                    str(args.epochs), "--shuffle", "--seed", "7", "--parallelism", "2", "--trainers", str(args.ranks),
                    "--checkpoint-interval", "500ms", "--max-batches-per-second", str(args.batches_per_second),
                    "--serve", "--registry", str(registry), "--channel.linger", "1s", "--output", str(offline),
                    f"-Dfanout.channel.buffer-bytes={args.buffer_bytes}"]
        victim = live_taskmanager(cluster)
        metrics = PrometheusScrape(cluster, victim)
        started = time.monotonic()
        job = cluster.submit(*job_args)
        peaks = EndpointPeaks(cluster, job)
        ranks = Ranks(registry, args.ranks, out, args.step_ms / 1000)
        for r in range(args.ranks):
            ranks.start(r)
        # Padded like DistributedSampler: a multiple of the ranks per epoch.
        per_epoch = -(-pubmed_batches(args.batch_size) // args.ranks) * args.ranks
        total = per_epoch * args.epochs
        cluster.wait_for_completed_checkpoints(job, 1)

        # Fault 1: kill -9 of one rank mid-epoch, restarted with the same rank.
        cluster.wait_for(f"rank {args.kill_rank} consumed {args.kill_rank_after}",
                         lambda: ranks.consumed(args.kill_rank) >= args.kill_rank_after, 300, interval=0.01)
        ranks.procs[args.kill_rank][-1].send_signal(signal.SIGKILL)
        ranks.procs[args.kill_rank][-1].wait()
        killed_after = ranks.consumed(args.kill_rank)
        ranks.start(args.kill_rank)
        report["rank_kill"] = {"rank": args.kill_rank, "consumed_before_kill": killed_after,
                               "share_per_epoch": per_epoch // args.ranks,
                               "at_s": round(time.monotonic() - started, 1)}

        # Fault 2: kill -9 of the TaskManager while every rank reads.
        cluster.wait_for(f"{args.kill_tm_at:.0%} sampled", lambda: metrics.total(SAMPLED, job) >= args.kill_tm_at * total,
                         300, interval=0.05)
        cluster.kill_taskmanager(victim)
        tm_killed = time.monotonic()
        cluster.start_taskmanager()
        cluster.wait_for_job(job, timeout=600)
        report["taskmanager_kill"] = {"at_fraction": args.kill_tm_at, "at_s": round(tm_killed - started, 1),
                                      "job_finished_after_kill_s": round(time.monotonic() - tm_killed, 1),
                                      "restored_checkpoint": (cluster.checkpoints(job)["latest"]["restored"] or {}).get("id")}
        ranks.wait(timeout=300)
        peaks.stop()
        report["job_wall_s"] = round(time.monotonic() - started, 1)

        files = {}
        for m in fanout_client.read_records(offline):  # raw: a batch written twice would show
            key = (m.epoch, m.batch_id)
            assert key not in files, f"offline output holds {key} twice"
            files[key] = hashlib.sha1(bytes(m.blob)).hexdigest()
        assert len(files) == total, (len(files), total)
        report["batches"] = total
        per_rank = []
        for r in range(args.ranks):
            got, summary = ranks.records(r)
            keys = [(e, b) for e, b, _ in got]
            share = {k: h for k, h in files.items() if k[1] % args.ranks == r}
            twice = len(keys) - len(set(keys))
            complete = set(keys) == set(share)
            equal = all(share.get((e, b)) == h for e, b, h in got)
            per_rank.append({"rank": r, "messages": len(got), "share": len(share), "complete": complete,
                             "twice": twice, "equal_to_files": equal, "processes": len(ranks.procs[r]),
                             "peak_rss_mib": round(ranks.peak_kib[r] / 1024, 1),
                             "peak_held_bytes": max((s.get("peak_held_bytes", 0) for s in summary), default=None)})
        report["per_rank"] = per_rank
        bound = int(parse_bytes(args.buffer_bytes))
        report["endpoints"] = {"peak_held_bytes": peaks.peak, "bound_bytes": bound, "held": peaks.peak <= bound}
        report["ok"] = all(p["complete"] and p["twice"] == 0 and p["equal_to_files"] for p in per_rank)
    finally:
        if ranks is not None:
            ranks.kill_all()
        cluster.stop()
        Path(args.json).write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    return 0 if report.get("ok") else 1


def pubmed_batches(batch_size: int) -> int:
    """Real batches per epoch of pubmed (19,717 nodes, every node a seed, the last batch kept)."""
    return -(-19717 // batch_size)


def parse_bytes(text: str) -> int:
    units = {"kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30, "b": 1}
    for unit, factor in units.items():
        if text.lower().endswith(unit):
            return int(float(text[:-len(unit)]) * factor)
    return int(text)


if __name__ == "__main__":
    sys.exit(main())
