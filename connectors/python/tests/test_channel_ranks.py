"""Live per-rank feeds end to end: the real job (deploy/bin/fanout-local --serve --trainers 2) on cora,
read by one ChannelClient per data-parallel rank at once; each gets exactly its rank's share of every
epoch, and the shares together are the job's offline output byte for byte; a rank whose process is killed
(SIGKILL) and started again gets the rest of its share, nothing it had acknowledged twice."""

import subprocess
import sys
import threading
from pathlib import Path

import pytest

import fanout_client
from fanout_client.channel import ChannelRankError

ROOT = Path(__file__).resolve().parents[3]
LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
CORA = ROOT.parent / "shared" / "data" / "cora"
# 2708 nodes in batches of 256: 11 real batches per epoch, padded to 12 for 2 trainers.
JOB = ["--graph", str(CORA), "--fanout", "4,2", "--batch-size", "256", "--epochs", "2", "--shuffle", "--seed", "5",
       "--parallelism", "2", "--trainers", "2"]
BATCHES = 12


def start_job(tmp_path, *extra):
    registry = tmp_path / "registry"
    job = subprocess.Popen([str(LOCAL), *JOB, "--serve", "--registry", str(registry), *extra],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return job, registry


def finish(job):
    try:
        _, stderr = job.communicate(timeout=180)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 0, stderr[-4000:]


def read_rank_epochs(registry, rank, out, errors):
    """Thread body: rank's messages as {epoch: [(batch_id, blob)]} in the order epochs() gives them."""
    try:
        with fanout_client.ChannelClient(registry=registry, rank=rank, world_size=2, prefetch=1,
                                         connect_timeout=120) as client:
            for epoch in client.epochs():
                out[epoch.epoch] = [(m.batch_id, bytes(m.blob), m.epoch) for m in epoch]
    except BaseException as e:  # re-raised by the test thread
        errors.append(e)


def run_threads(targets):
    threads = [threading.Thread(target=t, args=a, daemon=True) for t, a in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
        assert not t.is_alive(), "a rank's reader did not finish"


pytestmark = pytest.mark.skipif(not CORA.exists(), reason="../shared/data/cora is missing")


def test_ranks_read_concurrently_get_equal_disjoint_shares_equal_to_the_offline_output(tmp_path):
    offline = tmp_path / "offline"
    job, registry = start_job(tmp_path, "--output", str(offline))
    shares, errors = [{}, {}], []
    try:
        run_threads([(read_rank_epochs, (registry, r, shares[r], errors)) for r in range(2)])
    finally:
        finish(job)
    assert not errors, errors
    everything = {(m.epoch, m.batch_id): bytes(m.blob) for m in fanout_client.read_samples(offline)}
    assert sorted(everything) == [(e, b) for e in range(2) for b in range(BATCHES)]
    together = {}
    for rank, share in enumerate(shares):
        assert sorted(e for e in share if share[e]) == [0, 1], f"rank {rank}: epochs {sorted(share)}"
        for epoch, messages in share.items():
            assert all(e == epoch for _, _, e in messages), "a message outside its epoch"
            ids = [b for b, _, _ in messages]
            # exactly this rank's half of the epoch, each once: equal shares thanks to the padding batch
            assert sorted(ids) == list(range(rank, BATCHES, 2)), f"rank {rank} epoch {epoch}: {ids}"
            for b, blob, _ in messages:
                assert (epoch, b) not in together, f"batch {b} of epoch {epoch} went to both ranks"
                together[(epoch, b)] = blob
    assert together == everything


def test_a_rank_that_reconnects_mid_epoch_gets_the_rest_of_its_share_once_and_a_wrong_world_size_is_refused(
        tmp_path):
    job, registry = start_job(tmp_path)
    try:
        with pytest.raises(ChannelRankError, match="world size 3.*2 trainers"):
            fanout_client.ChannelClient(registry=registry, rank=0, world_size=3, connect_timeout=120).connect()
        # Rank 1 pulls its share with the CLI meanwhile.
        pulled = tmp_path / "rank1"
        pull = subprocess.Popen([sys.executable, "-m", "fanout_client", "pull", "--registry", str(registry),
                                 "--output", str(pulled), "--rank", "1", "--world-size", "2", "--timeout", "120"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=ROOT / "connectors" / "python")
        first = []
        with fanout_client.ChannelClient(registry=registry, rank=0, world_size=2, prefetch=2,
                                         connect_timeout=120) as client:
            epoch = next(client.epochs())
            for m in epoch:
                first.append((m.epoch, m.batch_id))
                if len(first) == 2:
                    break  # the trainer goes away mid-epoch, holding prefetched batches it never consumed
        rest = []
        with fanout_client.ChannelClient(registry=registry, rank=0, world_size=2, prefetch=2,
                                         connect_timeout=120) as client:
            for epoch in client.epochs():
                rest.extend((m.epoch, m.batch_id) for m in epoch)
        out, err = pull.communicate(timeout=300)
    finally:
        if "pull" in locals() and pull.poll() is None:
            pull.kill()
        finish(job)
    assert first[0][0] == 0 and len(first) == 2
    got = first + rest
    assert len(got) == len(set(got)), f"a batch came twice: {got}"
    assert sorted(got) == [(e, b) for e in range(2) for b in range(0, BATCHES, 2)]
    assert pull.returncode == 0, err
    rank1 = sorted((m.epoch, m.batch_id) for m in fanout_client.read_records(pulled))
    assert rank1 == [(e, b) for e in range(2) for b in range(1, BATCHES, 2)]


# A trainer process of rank 0 that consumes 3 batches and then hangs until it is killed. With a window of 2
# messages and no byte-based widening, every message is acknowledged before the client hands it out, so
# what it printed is exactly what it consumed and acknowledged; the prefetched rest it never acknowledges.
CRASHING_RANK = """
import sys, time
import fanout_client
client = fanout_client.ChannelClient(registry=sys.argv[1], rank=0, world_size=2, prefetch=2, prefetch_bytes=0,
                                     connect_timeout=120)
for n, m in enumerate(client, 1):
    print(m.epoch, m.batch_id, flush=True)
    if n == 3:
        time.sleep(600)
"""


def test_a_rank_killed_and_restarted_gets_the_rest_of_its_share_once(tmp_path):
    job, registry = start_job(tmp_path)
    rank1, errors = {}, []
    crashed = None
    try:
        other = threading.Thread(target=read_rank_epochs, args=(registry, 1, rank1, errors), daemon=True)
        other.start()
        crashed = subprocess.Popen([sys.executable, "-c", CRASHING_RANK, str(registry)], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, cwd=ROOT / "connectors" / "python")
        consumed = []
        for _ in range(3):
            line = crashed.stdout.readline()  # the child prints 3 lines, or ends (EOF) on an error
            assert line, f"the rank 0 process ended early: {crashed.communicate(timeout=30)[1][-3000:]}"
            consumed.append(tuple(map(int, line.split())))
        crashed.kill()  # SIGKILL: no close(), no last acks; the endpoints see the connections reset
        crashed.wait(timeout=30)
        comeback = []
        with fanout_client.ChannelClient(registry=registry, rank=0, world_size=2, connect_timeout=120) as client:
            for epoch in client.epochs():
                comeback.extend((m.epoch, m.batch_id) for m in epoch)
        other.join(timeout=300)
        assert not other.is_alive(), "rank 1 did not finish"
    finally:
        if crashed is not None and crashed.poll() is None:
            crashed.kill()
        finish(job)
    assert not errors, errors
    assert len(comeback) == len(set(comeback)), f"a batch came twice: {comeback}"
    assert not set(consumed) & set(comeback), "a batch the killed rank had acknowledged came again"
    # The killed process's prefetched, unacknowledged batches and the rest of the share: all of it, once.
    assert sorted(consumed + comeback) == [(e, b) for e in range(2) for b in range(0, BATCHES, 2)]
    assert sorted((e, b) for e, ms in rank1.items() for b, _, _ in ms) == \
        [(e, b) for e in range(2) for b in range(1, BATCHES, 2)]


def test_rank_and_world_size_go_together_and_in_range():
    with pytest.raises(ValueError, match="both rank and world_size"):
        fanout_client.ChannelClient(endpoints=["127.0.0.1:1"], token="t", rank=0)
    with pytest.raises(ValueError, match="rank 2 of world_size 2"):
        fanout_client.ChannelClient(endpoints=["127.0.0.1:1"], token="t", rank=2, world_size=2)
