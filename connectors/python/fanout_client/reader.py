"""The one reader protocol that ``read_samples``/``SamplesReader``, ``ShmClient`` and ``ChannelClient`` implement.

A reader yields messages (``Message``, or whatever its ``transform`` makes of each), flat (``for msg in
reader``) or epoch by epoch (``for epoch in reader.epochs(): for msg in epoch``), raises ``SamplingError``
for a failed batch (iterating on skips it), and is closed by ``close()`` or by leaving a ``with`` block.
``rank``/``world_size`` name a data-parallel trainer's share (None/None, or 0/1 for files: every batch).

``transform``: a callable applied to every message a reader hands out, flat or by epoch, where the reader
runs (``fanout_client.to_pyg``, ``fanout_client.to_hetero_data``, ``functools.partial(fanout_client.to_torch,
pin_memory=True)``). It replaces the ``as_pyg``/``as_torch``/``pin_memory`` flags the readers once took;
passing one of them raises a ``TypeError`` naming its replacement. ``MessageDataset(open_reader,
transform=...)`` is the same for a ``DataLoader``.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Protocol, runtime_checkable

__all__ = ["Reader", "Transform"]

Transform = Callable[[Any], Any]

# The flags the readers took before ``transform=``, and what to pass instead.
_REPLACED = {
    "as_pyg": "transform=fanout_client.to_pyg",
    "as_torch": "transform=fanout_client.to_torch",
    "pin_memory": "transform=functools.partial(fanout_client.to_torch, pin_memory=True)",
}


@runtime_checkable
class Reader(Protocol):
    """What every Fanout reader offers (see the module doc)."""

    rank: int | None
    world_size: int | None

    def __iter__(self) -> Iterator[Any]: ...

    def epochs(self) -> Iterator[Iterator[Any]]: ...

    def close(self) -> None: ...

    def __enter__(self) -> "Reader": ...

    def __exit__(self, *exc) -> Any: ...


def check_transform(transform, removed: dict, owner: str):
    """``transform`` checked (None or a callable); ``removed`` (the reader's ``**kwargs``) must be empty: an old
    flag raises ``TypeError`` naming its replacement, any other name the usual unexpected-argument error."""
    for name in removed:
        if name in _REPLACED:
            raise TypeError(f"{owner}: {name}= is gone; pass {_REPLACED[name]} (a transform applied to every "
                            f"message), or wrap the reader in MessageDataset(..., transform=...)")
        raise TypeError(f"{owner}() got an unexpected keyword argument {name!r}")
    if transform is not None and not callable(transform):
        raise TypeError(f"{owner}: transform must be a callable applied to every message (e.g. "
                        f"fanout_client.to_pyg), got {type(transform).__name__}")
    return transform


class TransformedEpoch:
    """An epoch iterator whose messages come out through ``transform``: ``epoch`` is the epoch number; errors of
    the wrapped iterator (``SamplingError``, ...) pass through and iterating on continues after them."""

    def __init__(self, epoch_iterator, transform: Transform):
        self._inner = epoch_iterator
        self._transform = transform
        self.epoch = epoch_iterator.epoch

    def __iter__(self):
        return self

    def __next__(self):
        return self._transform(next(self._inner))

    def __getattr__(self, name):  # count, copies_dropped, ... of the wrapped epoch
        return getattr(self._inner, name)
