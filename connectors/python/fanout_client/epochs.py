"""The TCP client's delivery contract for the file and shared-memory readers: messages by epoch, one per
(epoch, batch_id), a ``#SAMPLING_ERROR`` record raised as ``SamplingError`` (iterate on to skip it)."""

from __future__ import annotations

from typing import Callable, Iterator

from .errors import SAMPLING_ERROR_KEY, SamplingError
from .message import Message

__all__ = ["IncompleteEpochError", "EpochIterator", "raise_if_error"]


class IncompleteEpochError(ValueError):
    """An epoch ended without every one of its ``num_batches`` batches (e.g. the files of a job that
    failed or is still running); ``missing`` lists the absent batch ids."""

    def __init__(self, source: str, epoch: int, missing: list[int], num_batches: int, share: int | None = None):
        shown = ", ".join(map(str, missing[:10])) + (f", ... ({len(missing) - 10} more)" if len(missing) > 10 else "")
        # A rank counts its share of the epoch's batches, not all of them.
        expected = num_batches if share is None else share
        what = "batches" if share is None else f"batches of {num_batches} (its rank's share)"
        super().__init__(f"{source}: epoch {epoch} has {expected - len(missing)} of its {expected} {what};"
                         f" missing batch ids {shown}")
        self.epoch = epoch
        self.missing = missing


def raise_if_error(msg: Message, source: str) -> Message:
    """``msg``, or ``SamplingError`` when it is a failed batch's ``#SAMPLING_ERROR`` record."""
    if SAMPLING_ERROR_KEY in msg:
        text = bytes(msg[SAMPLING_ERROR_KEY]).decode("utf-8", "replace")
        raise SamplingError(source, msg.epoch, msg.batch_id, text)
    return msg


class EpochIterator:
    """The messages of one epoch, in the order ``next_of_epoch`` gives them, ending when the epoch is over.

    ``next_of_epoch(epoch)`` returns the next message of that epoch or ``None`` when there is none left.
    Batch ids already seen are skipped (copies after a restart); a ``#SAMPLING_ERROR`` record raises
    ``SamplingError`` and the iteration can go on. At the end, with ``strict``, a batch never seen raises
    ``IncompleteEpochError``.
    """

    def __init__(self, epoch: int, next_of_epoch: Callable[[int], Message | None], source: str, strict: bool,
                 release: Callable[[Message], None] = lambda m: None, rank: int = 0, world_size: int = 1):
        self.epoch = epoch
        # A data-parallel rank's share: the batches b with b % world_size == rank (only those are expected).
        self._rank = rank
        self._world_size = world_size
        self._next = next_of_epoch
        self._source = source
        self._strict = strict
        self._release = release
        self._seen: set[int] = set()
        self._num_batches: int | None = None
        self._done = False
        self.copies_dropped = 0

    def __iter__(self) -> Iterator[Message]:
        return self

    def __next__(self) -> Message:
        while not self._done:
            msg = self._next(self.epoch)
            if msg is None:
                self._done = True
                break
            if msg.batch_id in self._seen:
                self.copies_dropped += 1
                self._release(msg)
                continue
            self._seen.add(msg.batch_id)
            self._num_batches = msg.num_batches
            return raise_if_error(msg, self._source)
        share = len(range(self._rank, self._num_batches, self._world_size)) if self._num_batches is not None else 0
        if self._strict and self._num_batches is not None and len(self._seen) < share:
            missing = sorted(set(range(self._rank, self._num_batches, self._world_size)) - self._seen)
            self._strict = False  # raised once
            raise IncompleteEpochError(self._source, self.epoch, missing, self._num_batches,
                                       share if self._world_size > 1 else None)
        raise StopIteration

    def __repr__(self) -> str:
        return f"EpochIterator(epoch={self.epoch}, seen={len(self._seen)}, num_batches={self._num_batches})"
