"""Fanout's JVMs put their heap in transparent huge pages where the kernel gives them on request (deploy/bin/fanout-env.sh,
``fanout_thp_flag``): a real fanout-local job's JVM reports the flag as the kernel's THP mode says it should be, and
FANOUT_THP=0 leaves it out."""

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
THP_MODE = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def kernel_gives_on_request():
    """Whether the kernel's THP mode is "madvise" (the selected mode is the bracketed one)."""
    return THP_MODE.is_file() and "[madvise]" in THP_MODE.read_text()


def job_flag(tmp_path, **env):
    """The value of UseTransparentHugePages in the JVM of one real fanout-local job (its final flags)."""
    graph = tmp_path / "edges.tsv"
    graph.write_text("# directed=false\n" + "\n".join(f"{i}\t{(i + 1) % 50}" for i in range(50)) + "\n")
    full_env = {k: v for k, v in os.environ.items() if k != "FANOUT_THP"}
    full_env.update(JAVA_OPTS="-Xmx512m -XX:+PrintFlagsFinal", **env)
    proc = subprocess.run([str(LOCAL), "--graph", str(graph), "--fanout", "2", "--batch-size", "16",
                           "--output", str(tmp_path / "out")], capture_output=True, text=True, timeout=300, env=full_env)
    assert proc.returncode == 0, f"fanout-local failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    assert "fanout summary" in proc.stdout
    flag = re.search(r"\bUseTransparentHugePages\s*=\s*(true|false)", proc.stdout)
    assert flag, "the JVM printed its final flags"
    return flag.group(1) == "true"


def test_the_heap_is_in_huge_pages_where_the_kernel_gives_them_on_request(tmp_path):
    assert job_flag(tmp_path) == kernel_gives_on_request()


def test_fanout_thp_0_leaves_huge_pages_out(tmp_path):
    assert job_flag(tmp_path, FANOUT_THP="0") is False
