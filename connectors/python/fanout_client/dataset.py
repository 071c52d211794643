"""``MessageDataset``: a ``torch.utils.data.IterableDataset`` over any Fanout reader, for a ``DataLoader``.

Every reader is opened the same way, by a zero-argument callable that returns an iterable of messages and is
closed (when it has ``close``) once the iteration ends::

    MessageDataset.files("/tmp/samples", transform=fanout_client.to_pyg)            # .samples files
    MessageDataset(functools.partial(ShmClient, "/dev/shm", "fanout"), transform=to_pyg)   # shared-memory rings
    MessageDataset(functools.partial(ChannelClient, registry=DIR, rank=r, world_size=n))  # the live channel

A message is a whole batch, so the ``DataLoader`` takes ``batch_size=None``; the transform (``to_pyg``,
``to_hetero_data``, ``to_torch``) runs where the reader runs, and ``pin_memory=True`` is the ``DataLoader``'s::

    loader = DataLoader(MessageDataset.files(path, transform=to_pyg), batch_size=None, num_workers=2)

Workers: with ``num_workers=0`` the reader runs in the training process; with one worker, in that worker process
(reading, decoding and the transform off the training loop). Files can be shared by several workers: worker ``w`` of
``W`` yields the messages at positions ``w, w + W, ...`` of the reader's order, and the ``DataLoader`` takes one
from each worker in turn, so the loop sees the files' order (epoch, batch), as with one worker. A live reader
(channel, rings) hands each message out once, to one consumer, so it takes at most one worker: more are refused.

torch is imported when the class is first used, so ``import fanout_client`` needs none.
"""

from __future__ import annotations

import functools
from typing import Callable, Iterable

__all__ = ["MessageDataset"]


def _close(reader) -> None:
    close = getattr(reader, "close", None)
    if close is not None:
        close()


def _make_class():
    from torch.utils.data import IterableDataset, get_worker_info

    class MessageDataset(IterableDataset):
        """Messages of ``open_reader()``, each passed through ``transform`` (see the module doc).

        ``shardable``: the reader yields the same messages in the same order in every process (files), so
        several ``DataLoader`` workers each take every W-th; otherwise (a live reader) more than one worker is
        refused with a ``ValueError``."""

        def __init__(self, open_reader: Callable[[], Iterable], transform: Callable | None = None,
                     shardable: bool = False):
            super().__init__()
            if not callable(open_reader):
                raise TypeError("open_reader must be a callable that opens a reader (e.g. functools.partial("
                                f"read_samples, path)), got {type(open_reader).__name__}")
            self.open_reader = open_reader
            self.transform = transform
            self.shardable = shardable

        @classmethod
        def files(cls, path, transform: Callable | None = None, strict: bool = True, rank: int | None = None,
                  world_size: int | None = None):
            """The messages of ``read_samples(path, strict, rank=, world_size=)``, shardable over workers."""
            from .samples import read_samples
            return cls(functools.partial(read_samples, path, strict=strict, rank=rank, world_size=world_size),
                       transform, shardable=True)

        def __iter__(self):
            worker = get_worker_info()
            workers, index = (1, 0) if worker is None else (worker.num_workers, worker.id)
            if workers > 1 and not self.shardable:
                raise ValueError(f"MessageDataset over a live reader takes num_workers <= 1, got num_workers="
                                 f"{workers}: each message is handed out once, to one consumer (use one worker, or"
                                 " MessageDataset.files for .samples files)")
            reader = self.open_reader()
            try:
                for position, msg in enumerate(reader):
                    if position % workers == index:
                        yield msg if self.transform is None else self.transform(msg)
            finally:
                _close(reader)

    MessageDataset.__module__ = __name__
    MessageDataset.__qualname__ = "MessageDataset"
    return MessageDataset


def __getattr__(name):
    if name == "MessageDataset":
        cls = _make_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
