"""Typed-graph messages of the real job (deploy/bin/fanout-local) on cora_hetero decoded into PyG HeteroData,
checked against the graph files read independently. Runs with /usr/bin/python3 (torch and PyG installed)."""

import subprocess
from pathlib import Path

import numpy as np
import pytest

import fanout_client

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

ROOT = Path(__file__).resolve().parents[4]
LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
CORA_HETERO = ROOT.parent / "shared" / "data" / "cora_hetero"

pytestmark = pytest.mark.skipif(not CORA_HETERO.exists(), reason="../shared/data/cora_hetero is missing")


def edge_set(path, undirected):
    rows = np.loadtxt(path, dtype=np.int64, comments="#", ndmin=2)
    pairs = set(zip(rows[:, 0].tolist(), rows[:, 1].tolist()))
    return pairs | {(b, a) for a, b in pairs} if undirected else pairs


@pytest.fixture(scope="module")
def messages(tmp_path_factory):
    out = tmp_path_factory.mktemp("hetero")
    proc = subprocess.run([str(LOCAL), "--graph", str(CORA_HETERO), "--seed-type", "paper", "--fanout",
                           "paper__cites__paper:5,3;paper__has_word__word:4,0", "--batch-size", "1000",
                           "--with-edge", "--output", str(out), "--parallelism", "2"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return list(fanout_client.read_samples(out))


def test_messages_become_hetero_data_with_real_edges(messages):
    from torch_geometric.data import HeteroData

    cites = edge_set(CORA_HETERO / "edges.paper__cites__paper.tsv", undirected=True)
    has_word = edge_set(CORA_HETERO / "edges.paper__has_word__word.tsv", undirected=False)
    labels = dict(np.loadtxt(CORA_HETERO / "nodes.paper.tsv", dtype=np.int64, comments="#", ndmin=2).tolist())
    assert len(messages) == 3
    seeds = []
    for msg in messages:
        assert fanout_client.is_hetero(msg)
        data = fanout_client.to_hetero_data(msg)
        assert isinstance(data, HeteroData)
        assert set(data.node_types) == {"paper", "word"}
        # GLT's reversed type for paper -> word walked along out-edges: messages flow word -> paper.
        assert set(data.edge_types) == {("paper", "cites", "paper"), ("word", "rev_has_word", "paper")}
        paper, word = data["paper"].n_id, data["word"].n_id
        assert data["paper"].batch_size == len(msg["paper.batch"])
        assert torch.equal(paper[:data["paper"].batch_size], torch.from_numpy(msg["paper.batch"]))
        seeds += msg["paper.batch"].tolist()
        assert data["paper"].y.tolist() == [labels[i] for i in paper.tolist()]
        assert int(data["paper"].num_sampled_nodes.sum()) == data["paper"].num_nodes
        src, dst = data["word", "rev_has_word", "paper"].edge_index
        assert all((p, w) in has_word for p, w in zip(paper[dst].tolist(), word[src].tolist()))
        src, dst = data["paper", "cites", "paper"].edge_index
        assert all((a, b) in cites for a, b in zip(paper[dst].tolist(), paper[src].tolist()))
        e = data["paper", "cites", "paper"]
        assert e.e_id.numel() == e.edge_index.size(1) == int(e.num_sampled_edges.sum())
        assert data.epoch == 0 and data.num_batches == 3
    assert sorted(seeds) == list(range(2708))


def test_a_homogeneous_message_is_refused():
    with pytest.raises(ValueError, match="IS_HETERO"):
        fanout_client.to_hetero_data({"#IS_HETERO": np.array([0]), "ids": np.array([1])})


def test_link_messages_carry_labels_on_the_seed_edge_type(tmp_path):
    from torch_geometric.data import HeteroData

    has_word = edge_set(CORA_HETERO / "edges.paper__has_word__word.tsv", undirected=False)
    rows = np.loadtxt(CORA_HETERO / "edges.paper__has_word__word.tsv", dtype=np.int64, comments="#", ndmin=2)
    seeds = rows[::500]
    links = tmp_path / "links.tsv"
    np.savetxt(links, seeds, fmt="%d", delimiter="\t")
    out = tmp_path / "out"
    proc = subprocess.run([str(LOCAL), "--graph", str(CORA_HETERO), "--link-seeds", str(links), "--link-type",
                           "paper__has_word__word", "--neg-sampling", "binary", "--fanout", "3,2",
                           "--batch-size", "40", "--output", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    positives = 0
    for msg in fanout_client.read_samples(out):
        data = fanout_client.to_hetero_data(msg)
        assert isinstance(data, HeteroData)
        store = data["paper", "has_word", "word"]
        label, index = store.edge_label, store.edge_label_index
        paper, word = data["paper"].n_id[index[0]], data["word"].n_id[index[1]]
        for i, (p, w) in enumerate(zip(paper.tolist(), word.tolist())):
            if label[i] == 1:
                assert [p, w] == seeds[int(store.input_id[i])].tolist()
                positives += 1
            else:
                assert (p, w) not in has_word
    assert positives == len(seeds)
