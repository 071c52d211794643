"""End to end on a real standalone Flink 2.3 cluster (deploy/bin/start-cluster: a JobManager and
TaskManager processes assembled from Maven artifacts), the job submitted with `flink run` of
job/target/fanout-job.jar and read by this client.

What is checked:
- the walking skeleton's checks hold for a cluster run, offline (files) and served (the channel);
- stop with a savepoint mid-run and `flink run -s`: every (epoch, batch) exactly once, each message
  byte-identical to an uninterrupted run;
- kill -9 of the TaskManager mid-run at three different points while a trainer pulls from the channel,
  a new TaskManager started: the job restores its RocksDB checkpoint, the trainer (reconnecting to the
  restarted endpoints, dropping re-sent copies by (epoch, batch_id)) ends with every batch exactly once,
  and the committed files hold every batch exactly once too, both byte-identical to an uninterrupted run;
- kill -9 of the TaskManager while two data-parallel ranks (--trainers 2) pull their shares: each rank gets
  exactly its share of the committed files, every batch once, disjoint from the other rank's;
- a trainer paused longer than the checkpoint timeout (its endpoints full, the sinks and their
  checkpoint barriers blocked) does not make the job fail over: no restored checkpoint, every batch once;
- a cluster that does not come up in time fails with its logs and leaves no process behind.

The savepoint check reads the exactly-once offline output (FileSink) after the job ends; the
TaskManager-loss checks read both that output and what a live trainer received through the channel
(protocol v3: sessions, acknowledgements, checkpointed sink buffers, client-side de-duplication)."""

from __future__ import annotations

import re
import shutil
import threading
import time
from pathlib import Path

import pytest

import fanout_client
from flink_cluster import Cluster, ClusterError, JOB_JAR, PrometheusScrape, live_taskmanager, pid_alive
from test_job_end_to_end import CORA, check_messages, cora_edges
from test_launcher_thp import kernel_gives_on_request

ROOT = Path(__file__).resolve().parents[3]
DIST = ROOT / "deploy" / "target" / "flink-2.3.0"
PUBMED = ROOT.parent / "shared" / "data" / "pubmed"

pytestmark = [
    pytest.mark.skipif(not (DIST / "lib").is_dir() or not JOB_JAR.exists(),
                       reason="build first (mvn install): no deploy/target/flink-2.3.0 or fanout-job.jar"),
    pytest.mark.skipif(not CORA.exists() or not PUBMED.exists(), reason="../shared/data is missing"),
]

CORA_JOB = ["--graph", str(CORA), "--fanout", "10,5", "--batch-size", "256", "--epochs", "2", "--shuffle",
            "--seed", "3", "--parallelism", "2"]

# The interrupted runs: pubmed, 10 shuffled epochs of 1,233 batches (12,330 messages, ~70 MB), checkpoints
# every 300 ms. Uncapped, the job writes them in about a second, faster than the CLI can stop it, so the
# source is capped at 1,500 batches/s (--max-batches-per-second): a run lasts ~8 s and every
# interruption lands mid-epoch.
PUBMED_BATCHES_PER_EPOCH = 1233
EPOCHS = 10
TOTAL_BATCHES = PUBMED_BATCHES_PER_EPOCH * EPOCHS
LONG_JOB = ["--graph", str(PUBMED), "--fanout", "5,5", "--batch-size", "16", "--epochs", str(EPOCHS), "--shuffle",
            "--seed", "11", "--parallelism", "2", "--checkpoint-interval", "300ms", "--max-batches-per-second", "1500"]
# The savepoint test stops the job mid-run: slower, so that on a loaded machine the checkpoint it waits for and
# the stop command still come before the job's end (the rate limit changes no message).
STOPPABLE_JOB = LONG_JOB[:-1] + ["400"]
BATCHES_SAMPLED = "flink_taskmanager_job_task_operator_fanout_batchesSampled"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("cluster"))
    try:
        c.start()
        yield c
    finally:
        c.stop()
    leftover = [pid for pid in c.seen_pids if pid_alive(pid)]
    assert not leftover, f"cluster processes left running: {leftover}"


@pytest.fixture
def idle_cluster(cluster):
    """The module's cluster with its slots free before the test and no job of it left running after."""
    cluster.wait_for_free_slots(2)
    yield cluster
    cluster.cancel_running_jobs()


# The two-rank kill: 4 epochs of LONG_JOB for 2 trainers (1,233 batches padded to 1,234 per epoch), paced at
# 600 batches/s (~8 s): at 1,500 the job once finished before the kill point on a loaded machine.
RANKED_EPOCHS = 4
RANKED_BATCHES_PER_EPOCH = 1234
RANKED_JOB = [*LONG_JOB[:LONG_JOB.index("--epochs")], "--epochs", str(RANKED_EPOCHS),
              *LONG_JOB[LONG_JOB.index("--epochs") + 2:-1], "600", "--trainers", "2"]


class OfflineFiles:
    """Collects a run's messages from its exactly-once offline output once the job has ended."""

    def __init__(self, directory: Path):
        self.directory = directory

    def job_args(self):
        return ["--output", str(self.directory)]

    def messages(self):
        # Raw records: an exactly-once check must see a batch written twice, not the reader's de-duplicated view.
        return fanout_client.read_records(self.directory)


class ChannelTrainer(threading.Thread):
    """A trainer pulling every message from the channel while the job runs (and fails over)."""

    def __init__(self, registry: Path, rank=None, world_size=None):
        super().__init__(daemon=True)
        self.registry = registry
        self.rank, self.world_size = rank, world_size
        self.received = []
        self.error = None

    def job_args(self):
        return ["--serve", "--registry", str(self.registry), "--channel.linger", "1s"]

    def run(self):
        try:
            with fanout_client.ChannelClient(registry=self.registry, prefetch=4, connect_timeout=120,
                                             reconnect_timeout=240, rank=self.rank,
                                             world_size=self.world_size) as client:
                for m in client:
                    self.received.append(m)
        except BaseException as e:  # reported by messages()
            self.error = e

    def messages(self, timeout=120):
        self.join(timeout)
        assert not self.is_alive(), "the trainer did not reach the end of the stream"
        if self.error is not None:
            raise AssertionError(f"the trainer failed: {self.error!r}") from self.error
        return self.received


def visible_and_hidden(directory: Path):
    files = sorted(p.name for p in directory.iterdir())
    return [f for f in files if not f.startswith(".")], [f for f in files if f.startswith(".")]


def by_key(messages) -> dict:
    """(epoch, batch_id) -> message bytes, failing on any batch seen twice."""
    seen = {}
    for m in messages:
        key = (m.epoch, m.batch_id)
        assert key not in seen, f"batch {key} delivered twice"
        seen[key] = bytes(m.blob)
    return seen


def assert_identical_to(reference: dict, messages):
    """Every batch exactly once and each message byte-for-byte the uninterrupted run's."""
    count = 0
    seen = set()
    for m in messages:
        key = (m.epoch, m.batch_id)
        assert key not in seen, f"batch {key} delivered twice"
        seen.add(key)
        assert key in reference, f"batch {key} is not in the uninterrupted run"
        assert bytes(m.blob) == reference[key], f"batch {key} differs from the uninterrupted run"
        count += 1
    missing = reference.keys() - seen
    assert not missing, f"{len(missing)} batches missing, e.g. {sorted(missing)[:5]}"
    assert count == len(reference)


def accumulator(cluster: Cluster, job_id: str, name: str) -> int:
    for acc in cluster.rest(f"/jobs/{job_id}/accumulators")["user-task-accumulators"]:
        if acc["name"] == name:
            return int(acc["value"])
    return 0


@pytest.fixture(scope="module")
def reference(cluster, tmp_path_factory):
    """The uninterrupted run of LONG_JOB on the cluster: (epoch, batch_id) -> message bytes."""
    cluster.wait_for_free_slots(2)
    out = OfflineFiles(tmp_path_factory.mktemp("reference") / "samples")
    job = cluster.submit(*LONG_JOB, *out.job_args())
    cluster.wait_for_job(job)
    ref = by_key(out.messages())
    assert len(ref) == TOTAL_BATCHES
    shutil.rmtree(out.directory)
    return ref


# ---- the walking skeleton on the cluster ---------------------------------------------------------

def test_offline_run_finishes_with_complete_files(idle_cluster, tmp_path):
    out = tmp_path / "samples"
    # Attached `flink run` (no -c: the jar's Main-Class), bounded: returns when the job has finished.
    proc = idle_cluster.flink("run", str(JOB_JAR), *CORA_JOB, "--output", str(out))
    assert "fanout summary" in proc.stdout and "batches         22 " in proc.stdout, proc.stdout
    visible, hidden = visible_and_hidden(out)
    assert hidden == [], f"in-progress files left: {hidden}"
    assert visible and all(re.fullmatch(r"part-[0-9a-f-]+-\d+\.samples", f) for f in visible), visible
    check_messages(list(fanout_client.read_records(out)), cora_edges())


def test_cluster_processes_run_in_huge_pages_where_the_host_offers_them(idle_cluster):
    pids = idle_cluster.pids()
    assert any(name.startswith("taskmanager") for name in pids), pids
    for name, pid in pids.items():
        flags = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        assert (b"-XX:+UseTransparentHugePages" in flags) == kernel_gives_on_request(), (name, flags)


def test_served_messages_are_pulled_from_the_cluster(idle_cluster, tmp_path):
    registry, out = tmp_path / "registry", tmp_path / "offline"
    job = idle_cluster.submit(*CORA_JOB, "--serve", "--registry", str(registry), "--output", str(out))
    with fanout_client.ChannelClient(registry=registry, prefetch=2, connect_timeout=120) as client:
        pulled = list(client)
    idle_cluster.wait_for_job(job)
    check_messages(pulled, cora_edges())
    assert by_key(pulled) == by_key(fanout_client.read_records(out))


def test_a_paused_trainer_does_not_make_the_job_fail_over(idle_cluster, tmp_path):
    # Endpoints of 2 messages: the trainer's pause blocks both channel sinks, and every checkpoint
    # barrier behind them, for 3.5 checkpoint intervals (and timeouts). Flink's default would fail
    # the job over at the first timed-out checkpoint; the job's default tolerates them.
    registry = tmp_path / "registry"
    job = idle_cluster.submit(*CORA_JOB, "--serve", "--registry", str(registry), "--checkpoint-interval", "1s",
                              "-Dexecution.checkpointing.timeout=1s", "-Dfanout.channel.capacity=2")
    seen = []
    with fanout_client.ChannelClient(registry=registry, prefetch=2, connect_timeout=120) as client:
        for epoch in client.epochs():
            for msg in epoch:
                seen.append((msg.epoch, msg.batch_id))
                if len(seen) == 5:
                    time.sleep(3.5)
    idle_cluster.wait_for_job(job)
    counts = idle_cluster.checkpoints(job)["counts"]
    failovers = idle_cluster.rest(f"/jobs/{job}/exceptions")["exceptionHistory"]["entries"]
    assert counts["failed"] >= 1, counts  # the pause did hold the checkpoints back
    assert failovers == [] and counts["restored"] == 0, (failovers, counts)  # no failover, nothing restored
    assert sorted(seen) == [(e, b) for e in range(2) for b in range(11)]  # every batch once


# ---- savepoint and TaskManager loss --------------------------------------------------------------

def test_stop_with_savepoint_and_resume_is_identical_to_an_uninterrupted_run(idle_cluster, reference, tmp_path):
    out = OfflineFiles(tmp_path / "samples")
    job = idle_cluster.submit(*STOPPABLE_JOB, *out.job_args())
    idle_cluster.wait_for_completed_checkpoints(job, 1)
    savepoint = idle_cluster.stop_with_savepoint(job, tmp_path / "savepoints")
    # Stopped with a savepoint, the job ends FINISHED; its final accumulators arrive with that state.
    idle_cluster.wait_for_job(job)
    before = accumulator(idle_cluster, job, "fanout.batches")
    assert 0 < before < TOTAL_BATCHES, f"stopped after {before} of {TOTAL_BATCHES} batches: not mid-run"

    resumed = idle_cluster.submit(*STOPPABLE_JOB, *out.job_args(), savepoint=savepoint)
    idle_cluster.wait_for_job(resumed)
    restored = idle_cluster.checkpoints(resumed)["latest"]["restored"]
    assert restored and restored["is_savepoint"], restored
    assert_identical_to(reference, out.messages())
    after = accumulator(idle_cluster, resumed, "fanout.batches")
    # The savepoint holds exactly the batches sampled before it: none is sampled twice or skipped.
    assert before + after == TOTAL_BATCHES, (before, after)
    visible, hidden = visible_and_hidden(out.directory)
    assert hidden == [], f"in-progress files left: {hidden}"


# Kill points: the fraction of all batches sampled (read live from the TaskManager's Prometheus
# endpoint) when the TaskManager is killed, each after at least one completed checkpoint.
@pytest.mark.parametrize("kill_at", [0.25, 0.5, 0.75], ids=["kill-at-25%", "kill-at-50%", "kill-at-75%"])
def test_taskmanager_loss_recovers_exactly_once(idle_cluster, reference, tmp_path, kill_at):
    cluster = idle_cluster
    out = OfflineFiles(tmp_path / "samples")
    trainer = ChannelTrainer(tmp_path / "registry")
    victim = live_taskmanager(cluster)
    metrics = PrometheusScrape(cluster, victim)
    job = cluster.submit(*LONG_JOB, *out.job_args(), *trainer.job_args())
    trainer.start()
    kill_taskmanager_at(cluster, job, victim, metrics, kill_at, TOTAL_BATCHES)
    killed_at = time.time()

    cluster.start_taskmanager()
    wait_for_job_reading(cluster, job, [trainer])
    recovery = time.time() - killed_at

    restored = cluster.checkpoints(job)["latest"]["restored"]
    assert restored and not restored["is_savepoint"], f"the job did not restore a checkpoint: {restored}"
    exceptions = cluster.rest(f"/jobs/{job}/exceptions")["exceptionHistory"]["entries"]
    assert exceptions, "no failure recorded for the lost TaskManager"
    resampled = accumulator(cluster, job, "fanout.batches")
    # The final attempt sampled only what the restored checkpoint did not cover: it resumed mid-run.
    assert 0 < resampled < TOTAL_BATCHES, resampled
    assert_identical_to(reference, out.messages())
    # The trainer that was reading through the failure got every batch exactly once, unchanged.
    assert_identical_to(reference, trainer.messages())
    # Part files the killed attempt had open stay behind as hidden in-progress files (Flink's FileSink
    # does not delete them); readers skip them, as they skip every name starting with '.'.
    _, hidden = visible_and_hidden(out.directory)
    assert all(".inprogress." in f for f in hidden), hidden
    print(f"\n{len(hidden)} orphaned in-progress files; killed {victim} at {kill_at:.0%}; restored checkpoint {restored['id']} covering "
          f"{TOTAL_BATCHES - resampled} batches (epoch {(TOTAL_BATCHES - resampled) // PUBMED_BATCHES_PER_EPOCH});"
          f" finished {recovery:.1f}s after the kill")


def wait_for_job_reading(cluster: Cluster, job: str, trainers):
    """Waits for the job's end; a job that does not end names what its trainers raised (an endpoint waits
    for a trainer that failed, so the trainer's error is the cause)."""
    try:
        cluster.wait_for_job(job, timeout=240)
    except ClusterError as e:
        errors = [f"{t.name}: {t.error!r}" for t in trainers if t.error is not None]
        raise ClusterError(f"{e}; trainers: {'; '.join(errors) or 'no error'}") from e


def kill_taskmanager_at(cluster: Cluster, job: str, victim, metrics, fraction: float, total: int):
    """kill -9 of ``victim`` once ``fraction`` of ``total`` batches were sampled (after a checkpoint)."""
    cluster.wait_for_completed_checkpoints(job, 1)

    def sampled_enough():
        if cluster.job_state(job) != "RUNNING":
            raise ClusterError(f"job {job} is {cluster.job_state(job)} before the kill point")
        return metrics.total(BATCHES_SAMPLED, job) >= fraction * total
    cluster.wait_for(f"{fraction:.0%} of the batches sampled", sampled_enough, 120, interval=0.02)
    cluster.kill_taskmanager(victim)


def test_taskmanager_loss_with_two_ranks_reading(idle_cluster, tmp_path):
    cluster = idle_cluster
    out = OfflineFiles(tmp_path / "samples")
    registry = tmp_path / "registry"
    ranks = [ChannelTrainer(registry, rank=r, world_size=2) for r in range(2)]
    victim = live_taskmanager(cluster)
    metrics = PrometheusScrape(cluster, victim)
    job = cluster.submit(*RANKED_JOB, *out.job_args(), *ranks[0].job_args())
    for trainer in ranks:
        trainer.start()
    kill_taskmanager_at(cluster, job, victim, metrics, 0.5, RANKED_EPOCHS * RANKED_BATCHES_PER_EPOCH)
    cluster.start_taskmanager()
    wait_for_job_reading(cluster, job, ranks)

    restored = cluster.checkpoints(job)["latest"]["restored"]
    assert restored and not restored["is_savepoint"], f"the job did not restore a checkpoint: {restored}"
    offline = by_key(out.messages())  # the committed files: every batch exactly once
    assert sorted(offline) == [(e, b) for e in range(RANKED_EPOCHS) for b in range(RANKED_BATCHES_PER_EPOCH)]
    for rank, trainer in enumerate(ranks):
        share = {key: blob for key, blob in offline.items() if key[1] % 2 == rank}
        # Exactly this rank's share, each batch once (so none of the other rank's), byte for byte the files'.
        assert_identical_to(share, trainer.messages())


# ---- a cluster that does not come up -------------------------------------------------------------

def test_start_cluster_fails_with_logs_and_stops_what_it_started(tmp_path):
    broken = Cluster(tmp_path / "cluster", timeout=2)
    try:
        proc = broken.script("start-cluster", check=False, timeout=120)
        assert proc.returncode != 0
        # Either the time-out or a dead process; both print the log tails and stop by PID.
        assert "did not register" in proc.stderr or "exited while starting" in proc.stderr, proc.stderr
        assert "----- tail of" in proc.stderr and "jobmanager" in proc.stderr, proc.stderr
        stopped = [int(p) for p in re.findall(r"stopped \S+ \(pid (\d+)\)", proc.stderr)]
        assert stopped, proc.stderr
        assert not any(pid_alive(pid) for pid in stopped)
        assert not broken.pids()
    finally:
        broken.stop()
