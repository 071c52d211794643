"""The documents' examples run as written: every ```bash block of README.md and docs/*.md that starts a job with
``deploy/bin/fanout-local`` runs from the repository root (its ``/tmp/`` paths moved into the test's directory) and
ends with status 0, and every ``--output`` directory it names holds messages. Run with the torch Python, as some
blocks end with a PyG snippet; ``fanout_client`` is imported from the checkout (PYTHONPATH), as the README allows."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Blocks not run here, by (document, a line of the block): each is shown to a reader but cannot run as a test.
NOT_RUN = {
    ("docs/channel.md", "fanout-local --graph ... --serve --registry /tmp/reg --channel-tls-cert server-chain.pem"):
        "a TLS walk-through with a placeholder graph (TLS: test_channel_tls.py, ChannelJobITCase)",
    ("docs/channel.md", "deploy/bin/fanout-local --graph ../shared/data/cora --channel.shm --channel.shm-name cora &"):
        "a job in the background feeding a fixed shared-memory name (the rings: test_shm.py, test_shm_ranks.py)",
    ("docs/partitioned-store.md", "sleep 180; python3 -m fanout_client cat /tmp/cora-live | grep -c graph_version"):
        "a paced live job watched for minutes (updates: GraphUpdatesITCase, PartitionedPprUpdatesITCase)",
}


def bash_blocks(path: Path):
    """(first line number, text) of each fenced bash block; a fence may be indented (inside a list)."""
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        fence = lines[i].lstrip()
        if fence.startswith("```"):
            indent = len(lines[i]) - len(fence)
            j = i + 1
            while j < len(lines) and not lines[j].lstrip().startswith("```"):
                j += 1
            if fence[3:].strip() == "bash":
                yield i + 1, "\n".join(line[indent:] for line in lines[i + 1:j])
            i = j + 1
        else:
            i += 1


def job_blocks():
    for doc in DOCS:
        for line, text in bash_blocks(doc):
            if "fanout-local" in text:
                yield doc.relative_to(ROOT).as_posix(), line, text


def exclusion(doc: str, text: str):
    """The NOT_RUN entry that names this block, or None."""
    return next(((d, marker) for d, marker in NOT_RUN if d == doc and marker in text), None)


BLOCKS = list(job_blocks())
RUNNABLE = [b for b in BLOCKS if exclusion(b[0], b[2]) is None]


def test_every_excluded_block_is_still_in_its_document():
    """An exclusion whose block changed or went away must be removed, not left to hide a new block."""
    assert {exclusion(d, text) for d, _, text in BLOCKS} - {None} == set(NOT_RUN)
    assert len(RUNNABLE) >= 15, "the documents' job examples went missing"


@pytest.mark.parametrize("doc,line,text", RUNNABLE, ids=[f"{d}:{n}" for d, n, _ in RUNNABLE])
def test_documented_job_runs(doc, line, text, tmp_path):
    if not (ROOT.parent / "shared" / "data").is_dir():
        pytest.fail("../shared/data is missing: the examples read its graphs")
    script = text.replace("/tmp/", f"{tmp_path}/")
    env = {**os.environ, "FANOUT_NO_BUILD": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "connectors" / "python"),
                                                       os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, (f"{doc} line {line}: the example failed ({proc.returncode}):\n{script}\n"
                                  f"--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-4000:]}")
    outputs = re.findall(r"--output (\S+)", script)
    assert outputs, f"{doc} line {line}: no --output in the example"
    for out in outputs:
        assert any(Path(out).glob("*.samples")), f"{doc} line {line}: no messages in {out}"
