"""Per-rank shared-memory rings end to end: the real job (deploy/bin/fanout-local --trainers 2
--channel.shm) on cora writes one ring per rank in each sink subtask (real files in a tmpfs-like
directory); one ShmClient per rank reads at once: each gets exactly the share that
read_samples(rank=r, world_size=2) gives from the same job's --output, in (epoch, batch) order, byte
for byte; a world size other than the job's, and a reader without a rank, are refused naming both."""

import subprocess
import threading
from pathlib import Path

import pytest

import fanout_client
from fanout_client import ShmClient

ROOT = Path(__file__).resolve().parents[3]
LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
CORA = ROOT.parent / "shared" / "data" / "cora"
# 2708 nodes in batches of 256: 11 real batches per epoch, padded to 12 for 2 trainers.
JOB = ["--graph", str(CORA), "--fanout", "4,2", "--batch-size", "256", "--epochs", "2", "--shuffle", "--seed", "5",
       "--parallelism", "2", "--trainers", "2", "--channel.shm", "--channel.shm-name", "ranks",
       "--channel.shm-bytes", "1mb"]

pytestmark = pytest.mark.skipif(not CORA.exists(), reason="../shared/data/cora is missing")


def test_each_rank_reads_its_own_rings_and_gets_the_files_share_in_order(tmp_path):
    rings, offline = tmp_path / "rings", tmp_path / "offline"
    job = subprocess.Popen([str(LOCAL), *JOB, "--channel.shm-dir", str(rings), "--output", str(offline)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    shares, errors = [[], []], []

    def read(rank):
        try:
            with ShmClient(rings, "ranks", rank=rank, world_size=2, timeout=120) as client:
                for epoch in client.epochs():
                    for m in epoch:
                        shares[rank].append((m.epoch, m.batch_id, bytes(m.blob)))
        except BaseException as e:  # re-raised by the test thread
            errors.append(e)

    try:
        with pytest.raises(ValueError, match=r"rings for 2 trainers \(--trainers 2\), this reader's world_size is 3"):
            ShmClient(rings, "ranks", rank=0, world_size=3, timeout=120)
        with pytest.raises(ValueError, match=r"one ring per rank \(--trainers 2\).*world_size=2"):
            ShmClient(rings, "ranks", timeout=120)
        threads = [threading.Thread(target=read, args=(r,), daemon=True) for r in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
            assert not t.is_alive(), "a rank's reader did not finish"
        _, stderr = job.communicate(timeout=180)
    finally:
        if job.poll() is None:
            job.kill()
    assert not errors, errors
    assert job.returncode == 0, stderr[-4000:]
    for rank in range(2):
        # Only this rank's rings were opened, and they are gone with the job.
        assert not list(rings.glob("*.ring")), list(rings.iterdir())
        from_files = [(m.epoch, m.batch_id, bytes(m.blob))
                      for m in fanout_client.read_samples(offline, rank=rank, world_size=2)]
        assert [(e, b) for e, b, _ in from_files] == [(e, b) for e in range(2) for b in range(rank, 12, 2)]
        assert shares[rank] == from_files, f"rank {rank}: the rings' share differs from the files'"


def test_a_rank_is_refused_on_a_job_without_trainers(tmp_path):
    rings = tmp_path / "rings"
    job = subprocess.Popen([str(LOCAL), *JOB[:JOB.index("--trainers")], *JOB[JOB.index("--trainers") + 2:],
                            "--channel.shm-dir", str(rings)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with pytest.raises(ValueError, match="no --trainers.*world_size 2 does not match the job's 1 trainer"):
            ShmClient(rings, "ranks", rank=1, world_size=2, timeout=120)
        with ShmClient(rings, "ranks", timeout=120) as client:  # the job's one reader drains it
            assert len({(m.epoch, m.batch_id) for m in client}) == 22
        _, stderr = job.communicate(timeout=180)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 0, stderr[-4000:]
