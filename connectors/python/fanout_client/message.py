"""Message: one sampled subgraph as a dict of named arrays, plus where it came from."""

from __future__ import annotations

import numpy as np


def _meta_int(tensors: dict, key: str):
    value = tensors.get(key)
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iu":
        return int(value.reshape(()))
    return None


class Message(dict):
    """A decoded message: ``{name: array}`` with GLT key names (``ids``, ``rows``, ``cols``, ...).

    Attributes: ``epoch``, ``batch_id``, ``num_batches`` (from the channel frame, or from the
    ``#META.epoch`` / ``#META.batch_id`` / ``#META.num_batches`` tensors when read from a file;
    None when unknown), ``endpoint`` (channel endpoint index, None for files) and ``blob`` (the
    raw safetensors bytes the arrays are views of).
    """

    __slots__ = ("epoch", "batch_id", "num_batches", "endpoint", "blob")

    def __init__(self, tensors=(), *, epoch=None, batch_id=None, num_batches=None, endpoint=None, blob=None):
        super().__init__(tensors)
        self.epoch = epoch if epoch is not None else _meta_int(self, "#META.epoch")
        self.batch_id = batch_id if batch_id is not None else _meta_int(self, "#META.batch_id")
        self.num_batches = num_batches if num_batches is not None else _meta_int(self, "#META.num_batches")
        self.endpoint = endpoint
        self.blob = blob

    def with_tensors(self, tensors) -> "Message":
        """A message with the same epoch/batch/endpoint/blob and other tensors (e.g. torch ones)."""
        return Message(tensors, epoch=self.epoch, batch_id=self.batch_id, num_batches=self.num_batches,
                       endpoint=self.endpoint, blob=self.blob)

    def __repr__(self) -> str:
        parts = ", ".join(f"{k}: {getattr(v, 'dtype', type(v).__name__)}{list(getattr(v, 'shape', ()))}"
                          for k, v in self.items())
        return (f"Message(epoch={self.epoch}, batch_id={self.batch_id}, num_batches={self.num_batches}, "
                f"endpoint={self.endpoint}, {{{parts}}})")

    def __reduce__(self):
        return (_rebuild, (dict(self), self.epoch, self.batch_id, self.num_batches, self.endpoint))


def _rebuild(tensors, epoch, batch_id, num_batches, endpoint):
    return Message(tensors, epoch=epoch, batch_id=batch_id, num_batches=num_batches, endpoint=endpoint)
