"""to_torch with real torch (tests/test_torch.py checks the error without it)."""

import torch

from channel_server import sample_blob
from fanout_client import Message, decode, to_torch


def test_to_torch_shares_memory_and_keeps_message_fields():
    buffer = bytearray(sample_blob(3, 7))
    msg = Message(decode(buffer), endpoint=1)
    out = to_torch(msg)
    assert isinstance(out["ids"], torch.Tensor) and out["ids"].dtype == torch.int64
    assert (out.epoch, out.batch_id, out.endpoint) == (3, 7, 1)
    msg["ids"][0] = -5
    assert int(out["ids"][0]) == -5  # from_numpy: same memory
    readonly = to_torch(decode(sample_blob(0, 0)))  # read-only arrays are copied, no warning
    assert readonly["ids"].tolist() == [0, 1, 2, 3, 4]
