"""Typed PPR messages of the real job (deploy/bin/fanout-local) on cora_hetero decoded into PyG HeteroData, as
GiGL's loader gives them: edge_index/edge_attr on (seed_type, "ppr", ntype), original edges alongside, checked
against the graph files. Runs with /usr/bin/python3 (torch and PyG installed)."""

import subprocess
from pathlib import Path

import numpy as np
import pytest

import fanout_client
from fanout_client.hetero_pyg import ppr_edge_types

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

ROOT = Path(__file__).resolve().parents[4]
LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
CORA_HETERO = ROOT.parent / "shared" / "data" / "cora_hetero"
K = 20

pytestmark = pytest.mark.skipif(not CORA_HETERO.exists(), reason="../shared/data/cora_hetero is missing")


def edge_set(path, undirected):
    rows = np.loadtxt(path, dtype=np.int64, comments="#", ndmin=2)
    pairs = set(zip(rows[:, 0].tolist(), rows[:, 1].tolist()))
    return pairs | {(b, a) for a, b in pairs} if undirected else pairs


@pytest.fixture(scope="module")
def messages(tmp_path_factory):
    out = tmp_path_factory.mktemp("hetero_ppr")
    proc = subprocess.run([str(LOCAL), "--graph", str(CORA_HETERO), "--seed-type", "paper", "--sampler", "ppr",
                           "--ppr-channels", "paper__cites__paper:0.6,paper__has_word__word:0.4",
                           "--include-sampled-edges", "--max-ppr-nodes", str(K), "--batch-size", "1000",
                           "--output", str(out), "--parallelism", "2"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return list(fanout_client.read_samples(out))


def test_ppr_edges_and_sampled_edges_become_hetero_data(messages):
    cites = edge_set(CORA_HETERO / "edges.paper__cites__paper.tsv", undirected=True)
    has_word = edge_set(CORA_HETERO / "edges.paper__has_word__word.tsv", undirected=False)
    assert len(messages) == 3
    for msg in messages:
        assert ppr_edge_types(msg) == [("paper", "ppr", "paper"), ("paper", "ppr", "word")]
        data = fanout_client.to_hetero_data(msg)
        assert set(data.edge_types) >= {("paper", "ppr", "paper"), ("paper", "ppr", "word"),
                                        ("paper", "cites", "paper"), ("word", "rev_has_word", "paper")}
        paper, word = data["paper"].n_id.tolist(), data["word"].n_id.tolist()
        b = data["paper"].batch_size
        per_seed = np.zeros(b, dtype=np.int64)
        for ntype in ("paper", "word"):
            store = data["paper", "ppr", ntype]
            src, dst = store.edge_index
            attr = store.edge_attr
            assert store.edge_index.dtype == torch.int64 and attr.shape == (src.numel(), 2 + 3 * 2)
            assert int(src.max()) < b
            np.add.at(per_seed, src.numpy(), 1)
            # best score is the larger channel score; a present channel has presence 1.
            assert torch.equal(attr[:, 0], torch.maximum(attr[:, 2], attr[:, 5]))
            assert bool(((attr[:, 4] == 1) | (attr[:, 7] == 1)).all())
            if ntype == "word":
                # From a paper, only the word channel reaches words, one has_word edge away.
                for s, d in zip(src.tolist(), dst.tolist()):
                    assert (paper[s], word[d]) in has_word
        # At most K per seed; all but papers with few citations and words reach K nodes.
        assert per_seed.max() == K and (per_seed == K).mean() > 0.9
        # Original edges between selected nodes, oriented as k-hop gives them.
        s, d = data["paper", "cites", "paper"].edge_index
        assert all((paper[a], paper[c]) in cites for a, c in zip(s.tolist(), d.tolist()))
        w, p = data["word", "rev_has_word", "paper"].edge_index
        assert w.numel() > 0
        assert all((paper[c], word[a]) in has_word for a, c in zip(w.tolist(), p.tolist()))


def test_ppr_weights_are_float32_as_homogeneous_ppr_and_features(messages):
    for msg in messages:
        data = fanout_client.to_hetero_data(msg)
        for etype in ppr_edge_types(msg):
            sent = msg["#META.ppr_weight." + repr(etype)]
            store = data[etype]
            assert sent.dtype == np.float64  # the wire keeps GiGL's dtype; the client hands PyG float32
            assert store.edge_attr.dtype == torch.float32 and store.edge_attr.shape == sent.shape
            np.testing.assert_allclose(store.edge_attr.numpy(), sent, rtol=1e-6)
            assert store.edge_index.dtype == torch.int64
        for ntype in data.node_types:
            assert data[ntype].n_id.dtype == torch.int64
