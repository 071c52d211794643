"""`python3 -m fanout_client` run as a real subprocess, as a user would."""

import os
import struct
import subprocess
import sys
from pathlib import Path

from channel_server import EndpointServer, batches, sample_blob
from fanout_client import read_records

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def run(*args, timeout=60):
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    return subprocess.run([sys.executable, "-m", "fanout_client", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=timeout)


def write_records(path, blobs):
    path.write_bytes(b"".join(struct.pack("<Q", len(b)) + b for b in blobs))


def test_help_lists_the_commands():
    result = run("--help")
    assert result.returncode == 0
    assert "pull" in result.stdout and "cat" in result.stdout
    pull_help = run("pull", "--help")
    assert "--registry DIR" in pull_help.stdout and "--prefetch N" in pull_help.stdout


def test_cat_prints_a_summary_of_each_message(tmp_path):
    path = tmp_path / "a.samples"
    write_records(path, [sample_blob(2, b) for b in range(4)])
    result = run("cat", path, "--limit", "2")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"== {path}" in out
    assert "message 0: epoch=2 batch_id=0" in out and "message 1: epoch=2 batch_id=1" in out
    assert "message 2" not in out
    ids_line = next(line for line in out.splitlines() if line.strip().startswith("ids ") and "[10," in line)
    assert "I64" in ids_line and "[5]" in ids_line and "[10, 11, 12, 13, 14]" in ids_line
    assert "#META.batch_id" in out
    assert out.rstrip().endswith("2 messages")


def test_cat_of_a_directory_and_of_a_truncated_file(tmp_path):
    write_records(tmp_path / "a.samples", [sample_blob(0, 0)])
    write_records(tmp_path / "b.samples", [sample_blob(0, 1), sample_blob(0, 2)])
    result = run("cat", tmp_path)
    assert result.returncode == 0 and result.stdout.rstrip().endswith("3 messages")
    bad = tmp_path / "b.samples"
    bad.write_bytes(bad.read_bytes()[:-1])
    result = run("cat", tmp_path)
    assert result.returncode == 1
    assert f"error: {bad}: at byte offset" in result.stderr and "truncated record" in result.stderr


def test_pull_writes_every_message_of_every_endpoint(tmp_path):
    registry, output = tmp_path / "registry", tmp_path / "out"
    sent = {0: batches(0, 5), 1: batches(1, 7)}
    servers = [EndpointServer(sent[i], index=i, num_endpoints=2, registry=registry).start() for i in sent]
    try:
        result = run("pull", "--registry", registry, "--output", output, "--prefetch", "2", "--timeout", "20")
    finally:
        for server in servers:
            server.close()
    assert result.returncode == 0, result.stderr
    assert f"pulled 12 messages from 2 endpoints into {output}" in result.stdout
    assert "endpoint-0.samples: 5" in result.stdout and "endpoint-1.samples: 7" in result.stdout
    assert sorted(p.name for p in output.iterdir()) == ["endpoint-0.samples", "endpoint-1.samples"]
    for i in sent:
        stored = list(read_records(output / f"endpoint-{i}.samples"))
        assert [bytes(m.blob) for m in stored] == [blob for (_, _, _, blob) in sent[i]]


def test_pull_reports_a_registry_that_never_completes(tmp_path):
    result = run("pull", "--registry", tmp_path / "registry", "--output", tmp_path / "out", "--timeout", "0.5")
    assert result.returncode == 1
    assert "no endpoint-*.json file appeared" in result.stderr
