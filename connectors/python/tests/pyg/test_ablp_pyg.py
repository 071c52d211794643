"""ABLP messages of the real job on bitcoin_alpha_typed (a fifth of the trust edges held out as label edges,
examples/train_link_prediction.prepare) decoded by to_pyg into HeteroData, field by field, with GiGL's
y_positive/y_negative; and the link-prediction example beating its non-learned baselines.
Runs with /usr/bin/python3 (torch and PyG installed)."""

import sys
from pathlib import Path

import numpy as np
import pytest

import fanout_client
from fanout_client import pyg as pyg_module

torch = pytest.importorskip("torch")
pytest.importorskip("torch_geometric")

ROOT = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(ROOT / "connectors" / "python" / "examples"))
import train_link_prediction as example  # noqa: E402

pytestmark = pytest.mark.skipif(not example.BITCOIN.exists(), reason="../shared/data/bitcoin_alpha_typed is missing")


@pytest.fixture(scope="module")
def ablp(tmp_path_factory):
    work = tmp_path_factory.mktemp("ablp")
    split = example.prepare(work, neg=5)
    example.run_job(split, work / "samples", epochs=1, fanout="4,2", batch_size=400)
    return split, list(fanout_client.read_samples(work / "samples"))


def by_anchor(pairs):
    out = {}
    for a, b in pairs.tolist():
        out.setdefault(a, set()).add(b)
    return out


def test_to_pyg_gives_hetero_data_with_gigl_labels_field_by_field(ablp):
    from torch_geometric.data import HeteroData

    split, messages = ablp
    positives, negatives = by_anchor(split.positives), by_anchor(split.negatives)
    passing = {t: set(map(tuple, split.passing[t].tolist())) for t in example.TYPES}
    anchors = []
    for msg in messages:
        data = fanout_client.to_pyg(msg)
        assert isinstance(data, HeteroData)
        # Label edge types are not in the graph the model sees: only the message-passing types.
        assert set(data.edge_types) == {("user", "distrusts", "user"), ("user", "trusts", "user")}
        user = data["user"]
        assert torch.equal(user.n_id, torch.from_numpy(msg["user.ids"]))
        assert user.batch_size == len(msg["user.batch"]) == len(data.y_positive) == len(data.y_negative)
        assert torch.equal(user.n_id[:user.batch_size], torch.from_numpy(msg["user.batch"]))
        assert torch.equal(user.input_id, torch.from_numpy(msg["#META.input_id"]))
        assert torch.equal(user.num_sampled_nodes, torch.from_numpy(msg["user.num_sampled_nodes"]))
        for etype in data.edge_types:
            key = "__".join(etype)
            rows, cols = data[etype].edge_index
            assert torch.equal(rows, torch.from_numpy(msg[f"{key}.rows"]))
            assert torch.equal(cols, torch.from_numpy(msg[f"{key}.cols"]))
            # Messages flow from the sampled neighbour (rows) to the node expanded (cols): cols -> rows is an edge.
            n = user.n_id
            assert all((a, b) in passing[etype[1]] for a, b in zip(n[cols].tolist(), n[rows].tolist()))
        assert data.epoch == 0 and data.batch_id == msg.batch_id
        plain = fanout_client.ablp_labels(msg)  # the same labels as numpy, without torch
        assert all(np.array_equal(plain[i], data.y_positive[i].numpy()) for i in range(user.batch_size))
        for i, anchor in enumerate(msg["user.batch"].tolist()):
            anchors.append(anchor)
            assert set(user.n_id[data.y_positive[i]].tolist()) == positives[anchor]
            assert set(user.n_id[data.y_negative[i]].tolist()) == negatives[anchor]
            for n in negatives[anchor]:
                assert (anchor, n) not in passing["trusts"] and (anchor, n) not in passing["distrusts"]
                assert n not in positives[anchor]
            # GiGL's wire form: row i = anchor i's label ids, padded with -1.
            row = msg[f"#META.gigl_positive_labels.{example.POSITIVE}"][i]
            assert set(row[row != -1].tolist()) == positives[anchor]
    assert sorted(anchors) == sorted(positives)


def test_without_pyg_a_typed_message_stays_a_dict_of_tensors(ablp, monkeypatch):
    _, messages = ablp
    monkeypatch.setattr(pyg_module, "_data_class", lambda: None)
    out = fanout_client.to_pyg(messages[0])
    assert isinstance(out, dict)
    assert torch.equal(out["user.ids"], torch.from_numpy(messages[0]["user.ids"]))


def test_the_example_beats_its_non_learned_baselines(tmp_path):
    result = example.main(["--epochs", "4", "--work", str(tmp_path)])
    model = result["model"]
    for baseline in ("common_neighbours", "preferential_attachment"):
        assert model["mrr"] > result[baseline]["mrr"], (baseline, result)
        assert model["auc"] > result[baseline]["auc"], (baseline, result)
    assert model["positives"] == result["common_neighbours"]["positives"] > 500
