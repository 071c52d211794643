"""to_torch: real torch when it is installed; otherwise the ImportError users will see."""

import importlib.util

import numpy as np
import pytest

from channel_server import sample_blob
from fanout_client import ChannelClient, Message, decode, to_torch

HAS_TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.skipif(HAS_TORCH, reason="torch is installed")
def test_without_torch_the_error_says_what_to_do():
    with pytest.raises(ImportError, match="to_torch needs PyTorch.*Install torch"):
        to_torch({"ids": np.arange(3)})
    with pytest.raises(ImportError, match="to_torch needs PyTorch"):
        ChannelClient(endpoints=["127.0.0.1:1"], as_torch=True)


@pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed here")
def test_to_torch_shares_memory_and_keeps_message_fields():
    import torch

    buffer = bytearray(sample_blob(3, 7))
    msg = Message(decode(buffer), endpoint=1)
    out = to_torch(msg)
    assert isinstance(out["ids"], torch.Tensor) and out["ids"].dtype == torch.int64
    assert (out.epoch, out.batch_id, out.endpoint) == (3, 7, 1)
    msg["ids"][0] = -5
    assert int(out["ids"][0]) == -5  # from_numpy: same memory
    readonly = to_torch(decode(sample_blob(0, 0)))  # read-only arrays are copied, no warning
    assert readonly["ids"].tolist() == [0, 1, 2, 3, 4]
