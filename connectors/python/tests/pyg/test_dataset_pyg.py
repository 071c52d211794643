"""MessageDataset in a real torch DataLoader: files read by 0, 1 and 2 workers give the messages in the files'
order, converted by to_pyg where the reader runs; a live reader (shared-memory rings) runs in one worker and
refuses more. These tests need torch and torch_geometric and fail (never skip) without them."""

import functools

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

from fanout_client import SamplesWriter, ShmClient, encode, to_pyg
from fanout_client.dataset import MessageDataset
from test_to_pyg import check_khop, khop_message, ring_of

BATCHES = 7


def messages(batches=BATCHES, trainers=None):
    out = [khop_message(seed=b, feature_dtype=("uint8", "float16", "float32")[b % 3], batch_id=b,
                        num_batches=batches, with_edge=b % 2 == 0)[0] for b in range(batches)]
    if trainers is not None:  # a job run with --trainers
        out = [dict(msg, **{"#META.trainers": np.array([trainers], dtype=np.int64)}) for msg in out]
    return out


def write_files(directory, msgs):
    # Two part files, batches interleaved across them: the reader orders them.
    with SamplesWriter(directory / "part-0.samples") as even, SamplesWriter(directory / "part-1.samples") as odd:
        for msg in reversed(msgs):
            (even if int(msg["#META.batch_id"][0]) % 2 == 0 else odd).write(encode(dict(msg)))


@pytest.mark.parametrize("workers", [0, 1, 2])
def test_files_through_a_data_loader_in_batch_order_at_any_number_of_workers(tmp_path, workers):
    msgs = messages()
    write_files(tmp_path, msgs)
    loader = DataLoader(MessageDataset.files(tmp_path, transform=to_pyg), batch_size=None, num_workers=workers)
    got = list(loader)
    assert [data.batch_id for data in got] == list(range(BATCHES))
    for data, msg in zip(got, msgs):
        check_khop(data, msg)
        assert torch.equal(data.edge_index, to_pyg(msg).edge_index)


def test_a_rank_of_the_files_is_its_share(tmp_path):
    write_files(tmp_path, messages(batches=8, trainers=2))
    ds = MessageDataset.files(tmp_path, transform=to_pyg, rank=1, world_size=2)
    assert [data.batch_id for data in DataLoader(ds, batch_size=None, num_workers=2)] == [1, 3, 5, 7]


def test_a_live_reader_runs_in_one_worker_and_refuses_more(tmp_path):
    msgs = messages()[:4]
    ring_of(tmp_path / "t-0.ring", msgs)
    live = MessageDataset(functools.partial(ShmClient, tmp_path, "t", timeout=1), transform=to_pyg)
    got = list(DataLoader(live, batch_size=None, num_workers=1))
    assert [data.batch_id for data in got] == [0, 1, 2, 3]
    for data, msg in zip(got, msgs):
        check_khop(data, msg)
    with pytest.raises(ValueError, match="num_workers <= 1, got num_workers=2"):
        list(DataLoader(live, batch_size=None, num_workers=2))


def test_the_reader_must_be_a_callable_that_opens_one(tmp_path):
    with pytest.raises(TypeError, match="open_reader must be a callable"):
        MessageDataset([khop_message()[0]])
