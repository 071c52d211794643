"""prefetch(process=True, transform=to_pyg) against real torch and PyG: the Data equals to_pyg of the same
message (uint8, float16, float32 features; k-hop with edge ids; PPR), read from shared-memory rings and
files by the worker, and x is the worker's buffer wrapped, not a copy, valid while the loop keeps it.

These tests need torch and torch_geometric and fail (never skip) without them."""

import functools

import numpy as np
import torch
from torch_geometric.data import Data

from fanout_client import SamplesWriter, ShmClient, encode, prefetch, read_samples, to_pyg
from test_to_pyg import check_khop, khop_message, ppr_message, ring_of


def test_ring_messages_through_a_worker_process_are_what_to_pyg_gives(tmp_path):
    messages = [khop_message(seed=s, feature_dtype=("uint8", "float16", "float32")[s % 3], batch_id=s,
                             with_edge=s % 2 == 0)[0] for s in range(6)]
    ring_of(tmp_path / "t-0.ring", messages)
    got = list(prefetch(functools.partial(ShmClient, tmp_path, "t", timeout=1), process=True, transform=to_pyg))
    assert [data.batch_id for data in got] == list(range(6))
    for data, msg in zip(got, messages):  # all kept: none was overwritten by a later message
        check_khop(data, msg)
        want = to_pyg(msg)
        assert torch.equal(data.x, want.x) and torch.equal(data.edge_index, want.edge_index)
        assert data.num_sampled_nodes == want.num_sampled_nodes and data.batch_size == want.batch_size


def test_ppr_messages_and_x_shares_the_workers_buffer(tmp_path):
    with SamplesWriter(tmp_path / "part-0.samples") as writer:
        writer.write(encode(dict(ppr_message())))
    [data] = prefetch(functools.partial(read_samples, tmp_path, strict=False), process=True, transform=to_pyg)
    want = to_pyg(ppr_message())
    assert isinstance(data, Data)
    for key in ("x", "y", "n_id", "edge_index", "edge_attr", "hop_proximity", "input_id"):
        assert torch.equal(data[key], want[key]), key
    assert data.batch_size == want.batch_size
    # zero copy: the tensor's memory is the numpy view of the shared buffer (torch.from_numpy)
    view = data.x.numpy()
    assert view.ctypes.data % 64 == 0 and view.base is not None
    data.x += 1  # writable, as from_numpy tensors are
    assert torch.equal(data.x, want.x + 1)
