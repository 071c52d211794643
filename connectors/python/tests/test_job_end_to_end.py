"""End to end: the real Fanout job (deploy/bin/fanout-local, an embedded Flink MiniCluster) on a real
graph, read by this client from its offline .samples files and pulled live from its channel endpoints
(the Java ChannelSink), with the same options giving byte-identical messages both ways."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fanout_client

ROOT = Path(__file__).resolve().parents[3]
LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
CORA = ROOT.parent / "shared" / "data" / "cora"
CORA_NODES = 2708
BATCH = 256
JOB = ["--graph", str(CORA), "--fanout", "10,5", "--batch-size", str(BATCH), "--epochs", "2", "--shuffle",
       "--seed", "3", "--parallelism", "2"]

pytestmark = pytest.mark.skipif(not CORA.exists(), reason="../shared/data/cora is missing")


def cora_edges():
    """The set of directed edges of cora (undirected: both ways), read independently of Fanout."""
    rows = np.loadtxt(CORA / "edges.tsv", dtype=np.int64, comments="#", ndmin=2)
    src, dst = rows[:, 0], rows[:, 1]
    return set(zip(src.tolist(), dst.tolist())) | set(zip(dst.tolist(), src.tolist()))


def run_local(*args, timeout=300):
    proc = subprocess.run([str(LOCAL), *args], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"fanout-local failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    return proc


def check_messages(messages, edges):
    """Two epochs, each batch once, each seed once per epoch, GLT keys with int64 data, real edges."""
    expected_batches = -(-CORA_NODES // BATCH)
    keys = sorted((m.epoch, m.batch_id) for m in messages)
    assert keys == [(e, b) for e in range(2) for b in range(expected_batches)]
    for epoch in range(2):
        seeds = np.concatenate([m["batch"] for m in messages if m.epoch == epoch])
        assert np.array_equal(np.sort(seeds), np.arange(CORA_NODES))
    for m in messages:
        for key in ("ids", "rows", "cols", "batch", "num_sampled_nodes", "num_sampled_edges", "#IS_HETERO"):
            assert m[key].dtype == np.int64, key
        assert m.num_batches == expected_batches
        ids, rows, cols = m["ids"], m["rows"], m["cols"]
        assert np.array_equal(ids[: len(m["batch"])], m["batch"])
        assert len(np.unique(ids)) == len(ids)
        assert m["num_sampled_nodes"].sum() == len(ids) and m["num_sampled_edges"].sum() == len(rows)
        assert all((int(ids[r]), int(ids[c])) in edges for r, c in zip(rows, cols))


def test_offline_files_are_read_by_the_client(tmp_path):
    out = tmp_path / "samples"
    proc = run_local(*JOB, "--output", str(out))
    assert "fanout summary" in proc.stdout
    messages = list(fanout_client.read_records(out))
    check_messages(messages, cora_edges())
    # the CLI reads the same files
    cat = subprocess.run([sys.executable, "-m", "fanout_client", "cat", str(out), "--limit", "1"],
                         capture_output=True, text=True, cwd=ROOT / "connectors" / "python", timeout=60)
    assert cat.returncode == 0, cat.stderr
    assert "num_sampled_nodes" in cat.stdout


def test_served_messages_are_pulled_and_equal_the_offline_ones(tmp_path):
    registry, out = tmp_path / "registry", tmp_path / "offline"
    job = subprocess.Popen([str(LOCAL), *JOB, "--serve", "--registry", str(registry), "--output", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with fanout_client.ChannelClient(registry=registry, prefetch=2, connect_timeout=120) as client:
            pulled = list(client)
        stdout, stderr = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 0, stderr[-4000:]
    check_messages(pulled, cora_edges())
    offline = {(m.epoch, m.batch_id): bytes(m.blob) for m in fanout_client.read_records(out)}
    assert {(m.epoch, m.batch_id): bytes(m.blob) for m in pulled} == offline


def test_pull_command_writes_every_served_message(tmp_path):
    registry, pulled = tmp_path / "registry", tmp_path / "pulled"
    job = subprocess.Popen([str(LOCAL), *JOB, "--serve", "--registry", str(registry)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pull = subprocess.run([sys.executable, "-m", "fanout_client", "pull", "--registry", str(registry),
                               "--output", str(pulled), "--timeout", "120"],
                              capture_output=True, text=True, cwd=ROOT / "connectors" / "python", timeout=300)
        job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert pull.returncode == 0, pull.stderr
    assert job.returncode == 0
    check_messages(list(fanout_client.read_records(pulled)), cora_edges())


def test_bad_input_is_one_clear_line_naming_the_option(tmp_path):
    proc = subprocess.run([str(LOCAL), "--graph", str(CORA), "--batch-size", "0"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2
    assert "--batch-size" in proc.stderr and "Traceback" not in proc.stderr and "\tat " not in proc.stderr
    bad = tmp_path / "edges.tsv"
    bad.write_text("# directed=true columns=src,dst\n0\t1\n2\tx\n")
    proc = subprocess.run([str(LOCAL), "--graph", str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert f"{bad} line 3" in proc.stderr


def test_shared_memory_channel_delivers_the_same_messages(tmp_path):
    """--channel.shm: the job writes one ring per sink subtask; one trainer process reads them all in
    place, and gets byte for byte what the offline files hold."""
    rings, out = tmp_path / "rings", tmp_path / "offline"
    rings.mkdir()
    name = f"fanout-e2e-{os.getpid()}"
    job = subprocess.Popen([str(LOCAL), *JOB, "--channel.shm", "--channel.shm-dir", str(rings),
                            "--channel.shm-name", name, "--channel.shm-bytes", "8mb", "--output", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        pulled = list(fanout_client.ShmClient(str(rings), name, timeout=120, copy=True))
        _, stderr = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode == 0, stderr[-4000:]
    check_messages(pulled, cora_edges())
    offline = {(m.epoch, m.batch_id): m for m in fanout_client.read_records(out)}
    assert sorted(offline) == sorted((m.epoch, m.batch_id) for m in pulled)
    for m in pulled:
        twin = offline[(m.epoch, m.batch_id)]
        assert sorted(m) == sorted(twin)
        for key in m:
            assert np.array_equal(m[key], twin[key]) and m[key].dtype == twin[key].dtype, key
    assert not list(rings.iterdir()), "ring files are removed when the job ends"


def test_partitioned_store_runs_locally_without_a_checkpoint_dir(tmp_path):
    # ego_twitter_u's keyed graph (about 7 MB a subtask) is over the 5 MB the JobManager's in-heap checkpoint
    # storage takes: without a file checkpoint directory every checkpoint failed and the file sink, which
    # commits on checkpoints, never finished. fanout-local now checkpoints to a temporary directory.
    twitter = ROOT.parent / "shared" / "data" / "ego_twitter_u"
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("\n".join(map(str, range(300))) + "\n")
    out = tmp_path / "samples"
    proc = run_local("--graph", str(twitter), "--store", "partitioned", "--fanout", "10,5", "--batch-size", "64",
                     "--seeds", str(seeds), "--parallelism", "2", "--checkpoint-interval", "500ms",
                     "--output", str(out), timeout=240)
    assert "checkpoints go to" in proc.stdout + proc.stderr
    messages = list(fanout_client.read_samples(out))
    assert sorted(m.batch_id for m in messages) == list(range(5))
    assert sorted(np.concatenate([m["batch"] for m in messages]).tolist()) == list(range(300))


def test_ranks_read_equal_disjoint_shares_of_a_trainers_run(tmp_path):
    """--trainers 2 with 5 real batches per epoch: padded to 6; read_samples(rank=, world_size=) gives each rank 3
    batches per epoch, disjoint, together every batch of the plain reader; a world size the job was not planned
    for is refused naming both; --start-epoch 1 replays epoch 1 byte for byte."""
    out = tmp_path / "samples"
    common = ["--graph", str(CORA), "--fanout", "4,2", "--batch-size", "600", "--epochs", "2", "--shuffle",
              "--trainers", "2"]
    run_local(*common, "--output", str(out))
    everything = {(m.epoch, m.batch_id): bytes(m.blob) for m in fanout_client.read_samples(out)}
    assert sorted(everything) == [(e, b) for e in range(2) for b in range(6)]
    shares = [[m for m in fanout_client.read_samples(out, rank=r, world_size=2)] for r in range(2)]
    for rank, share in enumerate(shares):
        assert [(m.epoch, m.batch_id) for m in share] == [(e, b) for e in range(2) for b in range(rank, 6, 2)]
        for m in share:
            assert bytes(m.blob) == everything[(m.epoch, m.batch_id)]
            assert int(m["#META.trainers"][0]) == 2
            assert int(m["#META.padded"][0]) == (1 if m.batch_id == 5 else 0)
    padded = [m for m in shares[1] if m.batch_id == 5]
    first = {m.epoch: m for m in shares[0] if m.batch_id == 0}
    for m in padded:  # the padding batch takes seeds again from the start of its epoch's order
        assert np.array_equal(m["batch"], first[m.epoch]["batch"])
    with pytest.raises(ValueError, match="--trainers 2.*world_size 3"):
        list(fanout_client.read_samples(out, rank=0, world_size=3))
    with pytest.raises(ValueError, match="rank 2 of world_size 2"):
        fanout_client.read_samples(out, rank=2, world_size=2)
    replay = tmp_path / "replay"
    run_local(*common, "--start-epoch", "1", "--output", str(replay))
    again = {(m.epoch, m.batch_id): bytes(m.blob) for m in fanout_client.read_samples(replay)}
    assert again == {k: v for k, v in everything.items() if k[0] == 1}
