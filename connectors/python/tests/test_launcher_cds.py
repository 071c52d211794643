"""deploy/bin/fanout-local's JVM class-data archive (deploy/bin/fanout-env.sh, ``fanout_local_jvm``): written once per
build by the first run that lacks it, then mapped by every later run (its classes come from the archive, not the
jars), written again when the jars are newer, never by two runs at once, and off with FANOUT_CDS=0. Real launcher
runs of the real job, each with its own archive path (FANOUT_CDS_ARCHIVE) so the checkout's archive is not touched."""

import os
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
ENV_SH = ROOT / "deploy" / "bin" / "fanout-env.sh"
WRITING = "writing the JVM class-data archive"
FROM_ARCHIVE = "source: shared objects file (top)"
MODULE_JARS = [ROOT / m / "target" / f"fanout-{m}-0.1.0-SNAPSHOT.jar" for m in ("deploy", "job", "connectors")]


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    """A small undirected ring with chords, so a job has a few batches and two hops to sample."""
    path = tmp_path_factory.mktemp("graph") / "edges.tsv"
    n = 200
    rows = [f"{i}\t{(i + 1) % n}" for i in range(n)] + [f"{i}\t{(i * 7 + 3) % n}" for i in range(n)]
    path.write_text("# directed=false\n" + "\n".join(rows) + "\n")
    return path


def run(graph, tmp_path, archive, name, **env):
    """One fanout-local job into tmp_path/name with the archive at ``archive``; the class-load log of its JVM."""
    classes = tmp_path / f"{name}-classes.log"
    full_env = {k: v for k, v in os.environ.items() if k != "FANOUT_CDS"}  # the caller's own setting is not the test's
    full_env.update(FANOUT_CDS_ARCHIVE=str(archive), JAVA_OPTS=f"-Xmx1g -Xlog:class+load=info:file={classes}", **env)
    proc = subprocess.run([str(LOCAL), "--graph", str(graph), "--fanout", "3,2", "--batch-size", "64",
                           "--output", str(tmp_path / name)], capture_output=True, text=True, timeout=300, env=full_env)
    assert proc.returncode == 0, f"fanout-local failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    assert "fanout summary" in proc.stdout
    return proc, classes.read_text()


def loaded_from_archive(class_log, name):
    return f" {name} {FROM_ARCHIVE}" in class_log


@pytest.fixture(scope="module")
def written(graph, tmp_path_factory):
    """The first run with no archive at its path: it writes one."""
    tmp = tmp_path_factory.mktemp("first")
    archive = tmp / "local.jsa"
    proc, classes = run(graph, tmp, archive, "first")
    return archive, proc, classes


def test_the_first_run_writes_the_archive_and_the_next_maps_it(graph, tmp_path, written):
    archive, first, _ = written
    assert all(j.is_file() for j in MODULE_JARS), "the launcher archives only the module jars of `mvn install`"
    assert WRITING in first.stderr
    assert archive.stat().st_size > 10 << 20, "an archive of Flink's and Fanout's classes is tens of MB"
    second, classes = run(graph, tmp_path, archive, "second")
    assert WRITING not in second.stderr
    for name in ("io.fanout.deploy.LocalLauncher", "io.fanout.job.FanoutJob",
                 "org.apache.flink.runtime.minicluster.MiniCluster"):
        assert loaded_from_archive(classes, name), f"{name} was not loaded from the archive"


def test_an_archive_older_than_the_jars_is_written_again(graph, tmp_path, written):
    archive = tmp_path / "stale.jsa"
    archive.write_bytes(written[0].read_bytes())
    old = min(j.stat().st_mtime for j in MODULE_JARS) - 3600
    os.utime(archive, (old, old))
    proc, classes = run(graph, tmp_path, archive, "stale")
    assert WRITING in proc.stderr
    assert archive.stat().st_mtime > time.time() - 600
    assert loaded_from_archive(classes, "io.fanout.deploy.LocalLauncher")


def test_a_run_while_another_writes_starts_without_an_archive(graph, tmp_path):
    archive = tmp_path / "busy.jsa"
    Path(f"{archive}.lock").mkdir()  # another run is writing it
    proc, classes = run(graph, tmp_path, archive, "busy")
    assert WRITING not in proc.stderr
    assert not archive.exists()
    assert not loaded_from_archive(classes, "io.fanout.deploy.LocalLauncher")
    assert "io.fanout.deploy.LocalLauncher source: " in classes


def test_fanout_cds_0_turns_the_archive_off(graph, tmp_path):
    archive = tmp_path / "off.jsa"
    proc, classes = run(graph, tmp_path, archive, "off", FANOUT_CDS="0")
    assert WRITING not in proc.stderr
    assert not archive.exists() and not Path(f"{archive}.failed").exists()
    assert not loaded_from_archive(classes, "io.fanout.deploy.LocalLauncher")


def module_jars(root):
    """``fanout_module_jars`` of fanout-env.sh run against a checkout laid out at ``root``."""
    script = f'source "{ENV_SH}"; FANOUT_ROOT="{root}"; fanout_module_jars'
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def test_the_jars_are_used_only_while_no_class_is_newer(tmp_path):
    jars = []
    for m in ("deploy", "job", "connectors"):
        classes = tmp_path / m / "target" / "classes" / "io"
        classes.mkdir(parents=True)
        (classes / "A.class").write_bytes(b"\xca\xfe")
        os.utime(classes / "A.class", (1_000_000, 1_000_000))
        jar = tmp_path / m / "target" / f"fanout-{m}-0.1.0-SNAPSHOT.jar"
        jar.write_bytes(b"PK")
        os.utime(jar, (2_000_000, 2_000_000))
        jars.append(str(jar))
    assert module_jars(tmp_path) == ":".join(jars)
    newer = tmp_path / "job" / "target" / "classes" / "io" / "A.class"
    os.utime(newer, (3_000_000, 3_000_000))  # a `mvn compile` since the jar
    assert module_jars(tmp_path) == ""
    os.utime(newer, (1_000_000, 1_000_000))
    assert module_jars(tmp_path) == ":".join(jars)
    Path(jars[2]).unlink()
    assert module_jars(tmp_path) == ""
