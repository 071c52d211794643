"""A non-empty --output through Flink's real command line client (deploy/bin/flink), without a cluster: a fresh
`flink run` is refused by the job's main, while `flink run -s SAVEPOINT` (a resumed job, which continues its own
output) passes that check and only fails at submission, because nothing listens at the configured REST port."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from flink_cluster import BIN, JOB_JAR, free_port
from test_job_end_to_end import CORA

DIST = Path(__file__).resolve().parents[3] / "deploy" / "target" / "flink-2.3.0"

pytestmark = [
    pytest.mark.skipif(not (DIST / "lib").is_dir() or not JOB_JAR.exists(),
                       reason="needs `mvn install` (deploy/target/flink-2.3.0 and the job jar)"),
    pytest.mark.skipif(not CORA.exists(), reason="../shared/data is missing"),
]

NOT_EMPTY = "the directory is not empty (1 entry: part-0-0.samples)"


def flink_run(tmp_path: Path, *args: str) -> str:
    """`flink run ARGS` against a REST port nobody listens on; its whole output."""
    conf = tmp_path / "conf"
    if not conf.exists():
        conf.mkdir()
        (conf / "config.yaml").write_text(f"rest.address: 127.0.0.1\nrest.port: {free_port()}\n"
                                           "rest.retry.max-attempts: 0\n")  # fail the submission at once
        shutil.copy(DIST / "conf" / "log4j-cli.properties", conf)
    env = dict(os.environ, FLINK_CONF_DIR=str(conf), FLINK_LOG_DIR=str(tmp_path / "log"),
               FANOUT_CLUSTER_DIR=str(tmp_path), FANOUT_NO_BUILD="1")
    proc = subprocess.run([str(BIN / "flink"), "run", *args], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode != 0, "no cluster: the run cannot succeed"
    return proc.stdout + proc.stderr


def test_a_fresh_run_is_refused_and_a_savepoint_restore_continues_into_the_same_output(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "part-0-0.samples").write_bytes(b"an earlier run's part file")
    job = [str(JOB_JAR), "--graph", str(CORA), "--output", str(out)]

    fresh = flink_run(tmp_path, *job)
    assert NOT_EMPTY in fresh and "--output-mode" in fresh, fresh[-3000:]

    restored = flink_run(tmp_path, "-s", f"file://{tmp_path}/savepoint-0", *job)
    assert "not empty" not in restored, restored[-3000:]
    assert "Failed to execute job" in restored, restored[-3000:]
    assert [p.name for p in out.iterdir()] == ["part-0-0.samples"]
