"""End to end: the real Fanout job with ``--sampler ppr`` (deploy/bin/fanout-local, an embedded Flink
MiniCluster) on cora, read by this client from its offline .samples files: GiGL's PPR layout
(``#META.edge_index`` int64 [2, N], ``#META.edge_attr`` float64 [N, 2]), ordering, and scores that agree
with the exact PPR of ../shared/oracles/ppr_oracle.py within the forward-push error bound."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fanout_client

ROOT = Path(__file__).resolve().parents[3]
LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
SHARED = ROOT.parent / "shared"
CORA = SHARED / "data" / "cora"
ORACLE = SHARED / "oracles" / "ppr_oracle.py"
CORA_NODES = 2708
BATCH = 512
K = 16
EPS = 1e-5
ALPHA = 0.2

pytestmark = pytest.mark.skipif(not CORA.exists(), reason="../shared/data/cora is missing")


def run_local(*args, timeout=300):
    proc = subprocess.run([str(LOCAL), *args], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"fanout-local failed ({proc.returncode}):\n{proc.stderr[-4000:]}"
    return proc


@pytest.fixture(scope="module")
def ppr_messages(tmp_path_factory):
    out = tmp_path_factory.mktemp("ppr") / "samples"
    proc = run_local("--graph", str(CORA), "--sampler", "ppr", "--alpha", str(ALPHA), "--eps", str(EPS),
                     "--max-ppr-nodes", str(K), "--batch-size", str(BATCH), "--parallelism", "2",
                     "--output", str(out))
    assert "fanout summary" in proc.stdout
    return out, list(fanout_client.read_records(out))


def test_layout_dtypes_shapes_and_ordering(ppr_messages):
    _, messages = ppr_messages
    expected_batches = -(-CORA_NODES // BATCH)
    assert sorted(m.batch_id for m in messages) == list(range(expected_batches))
    seeds = np.concatenate([m["batch"] for m in messages])
    assert np.array_equal(np.sort(seeds), np.arange(CORA_NODES))
    for m in messages:
        assert set(m) == {"ids", "batch", "rows", "cols", "#META.edge_index", "#META.edge_attr", "#IS_HETERO",
                          "#META.epoch", "#META.batch_id", "#META.num_batches", "#META.input_id"}
        ids, batch = m["ids"], m["batch"]
        edge_index, edge_attr = m["#META.edge_index"], m["#META.edge_attr"]
        assert ids.dtype == np.int64 and batch.dtype == np.int64
        assert edge_index.dtype == np.int64 and edge_attr.dtype == np.float64
        n = edge_index.shape[1]
        assert edge_index.shape == (2, n) and edge_attr.shape == (n, 2)
        assert m["rows"].shape == (0,) and m["cols"].shape == (0,)
        assert np.array_equal(ids[: len(batch)], batch)  # unique seeds first
        assert len(np.unique(ids)) == len(ids)
        src, dst = edge_index
        assert np.all(np.diff(src) >= 0), "edges grouped by seed"
        assert set(np.unique(src)) == set(range(len(batch))), "every seed has PPR neighbours"
        assert np.all(np.bincount(src) <= K)
        score, proximity = edge_attr[:, 0], edge_attr[:, 1]
        assert np.all(score > 0) and np.all(score <= 1)
        hops = 1 / proximity - 1
        assert np.allclose(hops, np.round(hops))
        assert np.all(proximity[src == dst] == 1.0), "the seed is hop 0"
        for s in range(len(batch)):
            sel = src == s
            sc, nb = score[sel], ids[dst[sel]]
            order = np.lexsort((nb, -sc))  # score descending, ties by node id
            assert np.array_equal(order, np.arange(len(sc)))
            assert s in dst[sel], "the seed itself is one of its PPR neighbours"


def load_oracle():
    spec = importlib.util.spec_from_file_location("ppr_oracle", ORACLE)
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    return oracle


@pytest.mark.skipif(importlib.util.find_spec("scipy") is None, reason="scipy is needed by the oracle")
def test_scores_are_within_the_push_bound_of_the_exact_ppr(ppr_messages):
    _, messages = ppr_messages
    oracle = load_oracle()
    meta, src, dst, w = oracle.read_edge_file(str(CORA / "edges.tsv"))
    P, dangling = oracle.build_transition(CORA_NODES, src, dst, w, True)
    degree = np.diff(P.indptr)  # stored neighbours per node (cora has no parallel edges)
    m = messages[0]
    ids, edge_index, edge_attr = m["ids"], m["#META.edge_index"], m["#META.edge_attr"]
    for s in range(0, len(m["batch"]), 64):
        exact, _, _ = oracle.ppr_power(P, dangling, int(ids[s]), ALPHA)
        sel = edge_index[0] == s
        nodes = ids[edge_index[1][sel]]
        # |pi(u) - (p(u) + r(u))| < eps * deg(u) on an undirected graph (ForwardPush's class doc)
        err = np.abs(exact[nodes] - edge_attr[sel, 0])
        assert np.all(err <= EPS * np.maximum(degree[nodes], 1) + 1e-12)


def test_cli_cat_prints_the_ppr_tensors(ppr_messages):
    out, _ = ppr_messages
    cat = subprocess.run([sys.executable, "-m", "fanout_client", "cat", str(out), "--limit", "1"],
                         capture_output=True, text=True, cwd=ROOT / "connectors" / "python", timeout=60)
    assert cat.returncode == 0, cat.stderr
    assert "#META.edge_index" in cat.stdout and "#META.edge_attr" in cat.stdout


def test_bad_alpha_is_one_clear_line_naming_the_option():
    proc = subprocess.run([str(LOCAL), "--graph", str(CORA), "--sampler", "ppr", "--alpha", "1.5"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "--alpha" in proc.stderr and "1.5" in proc.stderr and "\tat " not in proc.stderr
