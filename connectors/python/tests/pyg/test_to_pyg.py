"""to_pyg against real torch and PyG: every field of the Data checked against the message it came
from (float32, float16 and uint8 features, with and without edge ids, PPR), the readers' transform=to_pyg,
and PyG's own trim_to_layer on a converted k-hop message.

These tests need torch and torch_geometric and fail (never skip) without them: deploy/bin/fanout-test
runs this directory with Debian's python3, where it installs both."""

import numpy as np
import pytest
import torch
from torch_geometric.data import Data
from torch_geometric.nn import SAGEConv
from torch_geometric.utils import trim_to_layer

import fanout_client.pyg
from channel_server import EndpointServer
from fanout_client import (ChannelClient, Message, SamplesWriter, SamplingError, ShmClient, decode, encode,
                           read_samples, shm, to_pyg)
from shm_writer import PyRingWriter

I64 = np.int64


def khop_message(num_nodes=60, fanouts=(4, 3), seeds=(5, 9, 2), dim=6, feature_dtype="float32",
                 with_edge=False, seed=0, edge_dim=3, batch_id=3, num_batches=4):
    """A k-hop message of the contract (GLT de-duplication, edges grouped by hop, rows = expanded
    node, cols = sampled neighbour) on a random graph, with features and labels, as a decoded
    Message; also returns the graph's full feature matrix."""
    rng = np.random.default_rng(seed)
    adjacency = [rng.choice(num_nodes, size=rng.integers(1, 8), replace=False) for _ in range(num_nodes)]
    features = rng.random((num_nodes, dim), dtype=np.float32) * 4 - 1
    ids = list(dict.fromkeys(seeds))
    local = {v: i for i, v in enumerate(ids)}
    rows, cols, eids = [], [], []
    num_nodes_per_hop, num_edges_per_hop = [len(ids)], []
    frontier = range(len(ids))
    for fanout in fanouts:
        first_new, first_edge = len(ids), len(rows)
        for node in frontier:
            neighbours = adjacency[ids[node]]
            picked = neighbours if len(neighbours) <= fanout else rng.choice(neighbours, fanout, replace=False)
            for v in picked.tolist():
                if v not in local:
                    local[v] = len(ids)
                    ids.append(v)
                rows.append(node)
                cols.append(local[v])
                eids.append(1000 * ids[node] + v)
        num_nodes_per_hop.append(len(ids) - first_new)
        num_edges_per_hop.append(len(rows) - first_edge)
        frontier = range(first_new, len(ids))
    ids = np.array(ids, dtype=I64)
    tensors = {
        "ids": ids, "rows": np.array(rows, dtype=I64), "cols": np.array(cols, dtype=I64),
        "batch": np.array(seeds, dtype=I64),
        "num_sampled_nodes": np.array(num_nodes_per_hop, dtype=I64),
        "num_sampled_edges": np.array(num_edges_per_hop, dtype=I64),
        "nlabels": np.where(ids % 5 == 0, -1, ids % 7).astype(I64),
        "#IS_HETERO": np.array([0], dtype=I64), "#META.epoch": np.array([2], dtype=I64),
        "#META.batch_id": np.array([batch_id], dtype=I64), "#META.num_batches": np.array([num_batches], dtype=I64),
        "#META.input_id": np.arange(len(seeds), dtype=I64) + 10,
    }
    x = features[ids]
    if feature_dtype == "float32":
        tensors["nfeats"] = x
    elif feature_dtype == "float16":
        tensors["nfeats"] = x.astype(np.float16)
    else:  # per-column uint8 quantisation, as the job's --feature-dtype uint8
        low, high = features.min(axis=0), features.max(axis=0)
        scale = ((high - low) / 255).astype(np.float32)
        tensors["nfeats"] = np.round((x - low) / scale).astype(np.uint8)
        tensors["#META.nfeats_scale"], tensors["#META.nfeats_offset"] = scale, low.astype(np.float32)
    if with_edge:
        tensors["eids"] = np.array(eids, dtype=I64)
        tensors["efeats"] = rng.random((len(rows), edge_dim), dtype=np.float32)
    return Message(decode(bytearray(encode(tensors)))), features


def ppr_message():
    """A PPR message: empty rows/cols, #META.edge_index seed -> neighbour, #META.edge_attr [score, hop]."""
    ids = np.array([7, 3, 11, 4, 8], dtype=I64)
    edge_index = np.array([[0, 0, 0, 1, 1], [0, 2, 3, 1, 4]], dtype=I64)
    edge_attr = np.array([[0.4, 1.0], [0.2, 0.5], [0.1, 1 / 3], [0.5, 1.0], [0.05, 0.5]])
    return Message(decode(bytearray(encode({
        "ids": ids, "rows": np.zeros(0, dtype=I64), "cols": np.zeros(0, dtype=I64),
        "batch": np.array([7, 3, 7], dtype=I64),  # seed 7 twice: its edges once, one seed row
        "nfeats": np.arange(10, dtype=np.float32).reshape(5, 2), "nlabels": np.array([1, 0, -1, 2, 1], dtype=I64),
        "#META.edge_index": edge_index, "#META.edge_attr": edge_attr, "#IS_HETERO": np.array([0], dtype=I64),
        "#META.epoch": np.array([0], dtype=I64), "#META.batch_id": np.array([1], dtype=I64),
        "#META.num_batches": np.array([2], dtype=I64), "#META.input_id": np.array([4, 0, 4], dtype=I64),
    }))))


def expected_x(msg):
    q = msg["nfeats"]
    if q.dtype == np.uint8:
        return msg["#META.nfeats_offset"] + msg["#META.nfeats_scale"] * q.astype(np.float32)
    return q.astype(np.float32)


def check_khop(data, msg):
    """Every field of a converted k-hop message against the message itself."""
    assert isinstance(data, Data)
    assert data.x.dtype == torch.float32
    np.testing.assert_allclose(data.x.numpy(), expected_x(msg), rtol=1e-6, atol=1e-6)
    assert data.y.dtype == torch.int64 and data.y.tolist() == msg["nlabels"].tolist()
    assert data.n_id.tolist() == msg["ids"].tolist()
    # message flow: the sampled neighbour (cols) -> the node it was sampled for (rows)
    assert data.edge_index.dtype == torch.int64
    assert data.edge_index[0].tolist() == msg["cols"].tolist()
    assert data.edge_index[1].tolist() == msg["rows"].tolist()
    assert data.num_sampled_nodes == msg["num_sampled_nodes"].tolist()
    assert data.num_sampled_edges == msg["num_sampled_edges"].tolist()
    assert isinstance(data.num_sampled_nodes, list) and isinstance(data.num_sampled_edges, list)
    assert len(data.num_sampled_edges) == len(data.num_sampled_nodes) - 1
    assert data.batch_size == len(np.unique(msg["batch"]))
    assert data.n_id[:data.batch_size].tolist() == list(dict.fromkeys(msg["batch"].tolist()))
    assert data.input_id.tolist() == msg["#META.input_id"].tolist()
    assert (data.epoch, data.batch_id, data.num_batches) == (2, int(msg["#META.batch_id"][0]),
                                                            int(msg["#META.num_batches"][0]))
    assert data.num_nodes == len(msg["ids"]) and data.num_edges == len(msg["rows"])
    assert data.batch is None  # PyG's `batch` is the graph of each node; seeds are n_id[:batch_size]
    if "eids" in msg:
        assert data.e_id.tolist() == msg["eids"].tolist()
        assert torch.equal(data.edge_attr, torch.from_numpy(np.array(msg["efeats"])))
    else:
        assert "e_id" not in data and "edge_attr" not in data
    assert not any(key.startswith("#") or key.startswith("nfeats") for key in data.keys())


@pytest.mark.parametrize("feature_dtype", ["float32", "float16", "uint8"])
@pytest.mark.parametrize("with_edge", [False, True])
def test_khop_message_becomes_a_neighbor_loader_batch(feature_dtype, with_edge):
    msg, _ = khop_message(feature_dtype=feature_dtype, with_edge=with_edge)
    check_khop(to_pyg(msg), msg)


def test_uint8_features_are_dequantised_per_column_to_the_original_values():
    msg, features = khop_message(feature_dtype="uint8")
    x = to_pyg(msg).x.numpy()
    scale = msg["#META.nfeats_scale"]
    assert np.all(np.abs(x - features[msg["ids"]]) <= scale / 2 + 1e-6)  # within half a step per column


def test_uint8_features_can_be_dequantised_after_the_move_to_the_device(monkeypatch):
    """dequantise=False: x stays the message's uint8 (no copy), and dequantise(data) later gives exactly the
    float32 values to_pyg computes on the CPU; also for the dict to_pyg returns without PyG."""
    msg, _ = khop_message(feature_dtype="uint8")
    on_cpu = to_pyg(msg).x
    kept = to_pyg(msg, dequantise=False)
    assert kept.x.dtype == torch.uint8 and np.array_equal(kept.x.numpy(), msg["nfeats"])
    msg["nfeats"][0, 0] ^= 1  # shares the message's memory: nothing was copied
    assert int(kept.x[0, 0]) == int(msg["nfeats"][0, 0])
    msg["nfeats"][0, 0] ^= 1
    assert kept.x_scale.tolist() == msg["#META.nfeats_scale"].tolist()
    assert kept.x_offset.tolist() == msg["#META.nfeats_offset"].tolist()
    data = fanout_client.dequantise(kept.to("cpu"))
    assert data.x.dtype == torch.float32 and torch.equal(data.x, on_cpu)
    assert "x_scale" not in data and "x_offset" not in data
    assert fanout_client.dequantise(data) is data and torch.equal(data.x, on_cpu)  # nothing left to do
    assert fanout_client.dequantise(to_pyg(msg, dequantise=False), dtype=torch.float64).x.dtype == torch.float64
    monkeypatch.setattr(fanout_client.pyg, "_data_class", lambda: None)
    plain = to_pyg(msg, dequantise=False)
    assert plain["x"].dtype == torch.uint8
    assert torch.equal(fanout_client.dequantise(plain)["x"], on_cpu) and "x_scale" not in plain


def test_float16_is_cast_to_float32_unless_kept():
    msg, _ = khop_message(feature_dtype="float16")
    assert to_pyg(msg).x.dtype == torch.float32
    kept = to_pyg(msg, x_dtype=None).x
    assert kept.dtype == torch.float16 and np.array_equal(kept.numpy(), msg["nfeats"])
    assert to_pyg(msg, x_dtype=torch.float64).x.dtype == torch.float64


def test_float32_features_share_the_message_memory():
    msg, _ = khop_message()
    data = to_pyg(msg)
    msg["nfeats"][0, 0] = 123.0
    msg["ids"][0] = -7
    assert float(data.x[0, 0]) == 123.0 and int(data.n_id[0]) == -7


def test_ppr_message_is_gigl_shaped():
    msg = ppr_message()
    data = to_pyg(msg)
    assert isinstance(data, Data)
    assert data.edge_index.tolist() == msg["#META.edge_index"].tolist()  # row 0 seed, row 1 neighbour
    assert data.edge_attr.dtype == torch.float32 and data.edge_attr.shape == (5,)
    np.testing.assert_allclose(data.edge_attr.numpy(), msg["#META.edge_attr"][:, 0], rtol=1e-7)
    np.testing.assert_allclose(data.hop_proximity.numpy(), msg["#META.edge_attr"][:, 1], rtol=1e-7)
    assert data.batch_size == 2 and data.n_id[:2].tolist() == [7, 3]
    assert data.input_id.tolist() == [4, 0, 4]
    assert data.x.tolist() == msg["nfeats"].tolist() and data.y.tolist() == [1, 0, -1, 2, 1]
    assert "num_sampled_nodes" not in data and "num_sampled_edges" not in data
    assert data.num_nodes == 5 and (data.epoch, data.batch_id, data.num_batches) == (0, 1, 2)


def test_without_pyg_the_same_fields_come_as_a_dict_of_tensors(monkeypatch):
    msg, _ = khop_message(feature_dtype="uint8", with_edge=True)
    data = to_pyg(msg)
    monkeypatch.setattr(fanout_client.pyg, "_data_class", lambda: None)
    plain = to_pyg(msg)
    assert isinstance(plain, Message) and not isinstance(plain, Data)
    assert set(plain) == set(data.keys()) - {"num_nodes"}
    for key, value in plain.items():
        if isinstance(value, torch.Tensor):
            assert torch.equal(value, data[key]), key
        else:
            assert value == data[key], key
    assert (plain.epoch, plain.batch_id) == (2, 3)


def test_other_meta_keys_are_passed_on_without_the_prefix():
    msg, _ = khop_message()
    msg = Message(decode(encode({**msg, "#META.custom": np.array([5, 6], dtype=I64)})))
    assert to_pyg(msg).custom.tolist() == [5, 6]


def test_a_sampling_error_raises():
    msg = Message(decode(encode({"#SAMPLING_ERROR": np.frombuffer(b"Traceback: boom", dtype=np.uint8),
                                 "#META.epoch": np.array([1]), "#META.batch_id": np.array([4])})))
    with pytest.raises(SamplingError) as err:
        to_pyg(msg)
    assert err.value.server_text == "Traceback: boom" and (err.value.epoch, err.value.batch_id) == (1, 4)


def test_refuses_what_it_cannot_convert():
    msg, _ = khop_message()
    old_layout = dict(msg, num_sampled_edges=np.concatenate([[0], msg["num_sampled_edges"]]))
    with pytest.raises(ValueError, match="num_sampled_edges has 3 entries for 3 entries"):
        to_pyg(old_layout)
    msg, _ = khop_message(feature_dtype="uint8")
    with pytest.raises(ValueError, match="nfeats_scale"):
        to_pyg({k: v for k, v in msg.items() if k != "#META.nfeats_scale"})
    typed = Message(decode(encode({**msg, "#IS_HETERO": np.array([1], dtype=I64)})))
    with pytest.raises(ValueError, match=r"to_pyg\(dequantise=False\) is for homogeneous messages"):
        to_pyg(typed, dequantise=False)


class TwoLayerSage(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.convs = torch.nn.ModuleList([SAGEConv(dim, 16), SAGEConv(16, 5)])

    def forward(self, x, edge_index, num_sampled_nodes=None, num_sampled_edges=None):
        for layer, conv in enumerate(self.convs):
            if num_sampled_nodes is not None:  # PyG's hierarchical sampling: drop what later layers cannot use
                x, edge_index, _ = trim_to_layer(layer, num_sampled_nodes, num_sampled_edges, x, edge_index)
            x = conv(x, edge_index)
            if layer == 0:
                x = x.relu()
        return x


@pytest.mark.parametrize("feature_dtype", ["float32", "uint8"])
def test_trim_to_layer_gives_the_untrimmed_output_for_the_seeds(feature_dtype):
    msg, _ = khop_message(num_nodes=400, fanouts=(5, 4), seeds=tuple(range(0, 120, 7)), dim=8,
                          feature_dtype=feature_dtype, seed=4)
    data = to_pyg(msg)
    assert len(data.num_sampled_edges) == 2 and data.num_sampled_edges[1] > 0
    torch.manual_seed(0)
    model = TwoLayerSage(8).eval()
    with torch.no_grad():
        full = model(data.x, data.edge_index)[:data.batch_size]
        trimmed = model(data.x, data.edge_index, data.num_sampled_nodes, data.num_sampled_edges)
    # After the last layer only the seeds and the first hop are left; the seed rows must agree.
    assert trimmed.shape[0] == data.num_sampled_nodes[0] + data.num_sampled_nodes[1]
    torch.testing.assert_close(trimmed[:data.batch_size], full, rtol=1e-5, atol=1e-6)
    # trim_to_layer itself on the converted message: layer 1 drops exactly the last hop
    x1, ei1, _ = trim_to_layer(1, data.num_sampled_nodes, data.num_sampled_edges, data.x, data.edge_index)
    assert x1.shape[0] == data.num_nodes - data.num_sampled_nodes[-1]
    assert ei1.shape[1] == data.num_edges - data.num_sampled_edges[-1]
    assert int(ei1.max()) < x1.shape[0]


def test_read_samples_transform_to_pyg(tmp_path):
    messages = [khop_message(seed=s, feature_dtype="uint8", with_edge=True, batch_id=s, num_batches=3)[0]
                for s in (2, 0, 1)]
    with SamplesWriter(tmp_path / "part-0.samples") as writer:
        for msg in messages:
            writer.write(msg.blob if msg.blob is not None else encode(msg))
    got = list(read_samples(tmp_path, transform=to_pyg))
    assert [data.batch_id for data in got] == [0, 1, 2]  # read_samples orders by (epoch, batch_id)
    for data in got:
        check_khop(data, messages[[2, 0, 1].index(data.batch_id)])


def test_channel_client_transform_to_pyg_and_sampling_errors_still_raise():
    messages = [khop_message(seed=s, with_edge=True)[0] for s in range(2)]
    error = encode({"#SAMPLING_ERROR": np.frombuffer(b"Traceback: boom", dtype=np.uint8),
                    "#META.epoch": np.array([2]), "#META.batch_id": np.array([9])})
    server = EndpointServer([(2, 3, 4, encode(messages[0])), (2, 9, 4, error), (2, 5, 4, encode(messages[1]))]).start()
    try:
        with ChannelClient(endpoints=[server.address], connect_timeout=10, transform=to_pyg) as client:
            it = iter(client)
            got = [next(it)]
            with pytest.raises(SamplingError, match="boom"):
                next(it)
            got.extend(it)  # reading goes on after the failed batch, as without a transform
    finally:
        server.close()
    assert len(got) == 2
    for data, msg in zip(got, messages):
        check_khop(data, msg)
    with pytest.raises(TypeError, match=r"as_pyg= is gone; pass transform=fanout_client.to_pyg"):
        ChannelClient(endpoints=["127.0.0.1:1"], as_pyg=True)


def ring_of(path, messages):
    writer = PyRingWriter(path, 256 << 10)
    for msg in messages:
        assert writer.try_write(encode(msg), epoch=2, batch_id=int(msg["#META.batch_id"][0]), num_batches=4)
    writer.set_state(shm.STATE_ENDED)


def test_shm_client_to_pyg_copies_out_of_the_ring(tmp_path):
    messages = [khop_message(seed=s, feature_dtype="float16", batch_id=s)[0] for s in range(4)]
    ring_of(tmp_path / "t-0.ring", messages)
    with ShmClient(tmp_path, "t", timeout=1, transform=to_pyg) as client:
        got = list(client)  # every Data kept while later messages reuse the ring: to_pyg copied it out
        assert client.qsize() == 0
    assert len(got) == 4
    for data, msg in zip(got, messages):
        check_khop(data, msg)


def test_shm_client_epochs_transform_to_pyg(tmp_path):
    messages = [khop_message(seed=s, feature_dtype="uint8", batch_id=b)[0] for s, b in enumerate((1, 3, 0, 2))]
    ring_of(tmp_path / "t-0.ring", messages)
    with ShmClient(tmp_path, "t", timeout=1, transform=to_pyg) as client:
        epochs = [(epoch.epoch, list(epoch)) for epoch in client.epochs()]
    assert [e for e, _ in epochs] == [2]
    got = epochs[0][1]
    assert sorted(data.batch_id for data in got) == [0, 1, 2, 3]
    for data in got:
        check_khop(data, next(m for m in messages if int(m["#META.batch_id"][0]) == data.batch_id))
