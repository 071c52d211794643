"""`.samples` files: a sequence of records, each an 8-byte little-endian length N and an N-byte
safetensors blob. The channel's ``pull`` tool writes them; ``read_samples`` reads them back."""

from __future__ import annotations

import mmap
import os
import struct
import warnings
from pathlib import Path
from typing import Iterator

import numpy as np

from .epochs import EpochIterator
from .message import Message
from .reader import TransformedEpoch, check_transform
from .safetensors import decode

__all__ = ["read_samples", "read_records", "SamplesReader", "samples_files", "SamplesWriter", "SamplesFormatError",
           "SamplesTruncatedWarning"]

_LEN = struct.Struct("<Q")


class SamplesFormatError(ValueError):
    """A `.samples` file is truncated or holds a malformed record; names the file and byte offset."""

    def __init__(self, path, offset: int, problem: str):
        super().__init__(f"{path}: at byte offset {offset}: {problem}")
        self.path = str(path)
        self.offset = offset


class SamplesTruncatedWarning(UserWarning):
    """``read_samples(path, strict=False)`` read a file only up to a truncated record (e.g. a job killed while
    writing it); issued once every message has been yielded. ``path`` and ``offset`` say where the file ends
    early; ``warnings.simplefilter("error", SamplesTruncatedWarning)`` turns it into an exception."""

    def __init__(self, error: SamplesFormatError):
        super().__init__(f"{error}; the records before it were read, the rest of the file was skipped")
        self.path = error.path
        self.offset = error.offset


def _skipped(name: str) -> bool:
    # Writers create `.name.partial` / `_name` while writing and rename when complete.
    return name.startswith(".") or name.startswith("_")


def samples_files(path) -> list[Path]:
    """The files ``read_samples(path)`` reads, in order: ``path`` itself if it is a file, else every
    ``*.samples`` file below it (recursively, sorted by path) whose name and directories do not
    start with ``.`` or ``_``."""
    root = Path(path)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise FileNotFoundError(f"no such .samples file or directory: {root}")
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not _skipped(d)]
        for name in filenames:
            if name.endswith(".samples") and not _skipped(name):
                found.append(Path(dirpath) / name)
    return sorted(found, key=lambda p: p.relative_to(root).parts)


def _read_file(path: Path, truncated: list | None = None) -> Iterator[tuple[int, Message]]:
    """(offset, message) per record of one file. A truncated record raises ``SamplesFormatError``, or, when a
    ``truncated`` list is given, is appended to it and ends the file; a malformed record always raises."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return
        # ACCESS_COPY: zero-copy views that are still writable (private copy-on-write pages),
        # so torch.from_numpy accepts them without a copy or a warning.
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    view = memoryview(mapped)
    offset = 0
    while offset < size:
        cut = None
        if size - offset < 8:
            cut = SamplesFormatError(path, offset, f"truncated record: {size - offset} bytes left, "
                                                   "the record length needs 8")
        else:
            (length,) = _LEN.unpack_from(view, offset)
            if length > size - offset - 8:
                cut = SamplesFormatError(path, offset, f"truncated record: length says {length} bytes "
                                                       f"but only {size - offset - 8} follow")
        if cut is not None:
            if truncated is None:
                raise cut
            # A file cut short (a writer killed mid-record) still holds whole records before the cut.
            truncated.append(cut)
            return
        blob = view[offset + 8:offset + 8 + length]
        try:
            tensors = decode(blob)
        except ValueError as e:
            raise SamplesFormatError(path, offset, f"malformed safetensors blob: {e}") from None
        yield offset, Message(tensors, blob=blob)
        offset += 8 + length
    # The arrays handed out keep the mapping alive; it is unmapped when the last one is freed.


class SamplesReader:
    """The messages of `.samples` files (a file, or every ``*.samples`` file under a directory) with the
    channel client's contract, whatever order the part files have:

    - ``epochs()`` yields one iterator per epoch, ascending; each yields that epoch's messages by batch id;
    - one message per (epoch, batch_id): a byte-identical copy (a batch re-written after a restart) is
      dropped and counted in ``copies_dropped``; two different messages for one batch (two different runs
      written into one directory) raise ``SamplesFormatError`` naming both places;
    - a ``#SAMPLING_ERROR`` record raises ``fanout_client.SamplingError`` when reached; iterate on to skip it;
    - with ``strict`` (default), an epoch missing some of its ``num_batches`` batches raises
      ``IncompleteEpochError`` after its last message (the files of a failed or running job);
    - with ``strict`` (default), a truncated record raises ``SamplesFormatError`` here, when the reader is made;
      with ``strict=False`` each file is read up to its first truncated record (``truncated`` lists the
      ``SamplesFormatError`` of each such file) and ``epochs()``, once it has yielded every epoch, issues a
      ``SamplesTruncatedWarning`` per truncated file. A malformed record raises ``SamplesFormatError`` either way.

    Messages without ``#META.epoch``/``#META.batch_id`` (not written by Fanout's job) come first, in file
    order. Every file is memory-mapped once and indexed up front; arrays are zero-copy views. Each iteration
    (``iter(reader)``, ``epochs()``) is a fresh pass. ``transform`` is applied to every message handed out
    (``fanout_client.reader``); ``close()`` drops the index (a mapping is unmapped once no array views it).
    """

    def __init__(self, path, strict: bool = True, rank: int | None = None, world_size: int | None = None,
                 transform=None, **removed):
        self.transform = check_transform(transform, removed, "SamplesReader")
        self.path = Path(path)
        self.strict = strict
        self.rank, self.world_size = _share(rank, world_size)
        self._shared = world_size is not None
        self.copies_dropped = 0
        self.truncated: list[SamplesFormatError] = []
        self._unkeyed: list[Message] = []
        self._by_epoch: dict[int, dict[int, Message]] = {}
        where: dict[tuple[int, int], tuple[Path, int]] = {}
        for file in samples_files(path):
            for offset, msg in _read_file(file, None if strict else self.truncated):
                if msg.epoch is None or msg.batch_id is None:
                    self._unkeyed.append(msg)
                    continue
                batches = self._by_epoch.setdefault(msg.epoch, {})
                prior = batches.get(msg.batch_id)
                if prior is None:
                    batches[msg.batch_id] = msg
                    where[(msg.epoch, msg.batch_id)] = (file, offset)
                elif bytes(prior.blob) == bytes(msg.blob):
                    self.copies_dropped += 1
                else:
                    first_file, first_offset = where[(msg.epoch, msg.batch_id)]
                    raise SamplesFormatError(file, offset, f"epoch {msg.epoch} batch {msg.batch_id} differs from the"
                                             f" copy in {first_file} at byte offset {first_offset}: are two"
                                             " different runs written into one directory?")

    def epochs(self) -> Iterator[EpochIterator]:
        """One iterator per epoch, ascending (see the class doc), its messages through ``transform``."""
        for epoch in self._epochs():
            yield epoch if self.transform is None else TransformedEpoch(epoch, self.transform)

    def _epochs(self) -> Iterator[EpochIterator]:
        for epoch in sorted(self._by_epoch):
            batches = self._by_epoch[epoch]
            if self._shared:  # a plain reader reads every batch of any plan
                for msg in batches.values():
                    _check_trainers(msg, self.world_size, self.path)
            in_order = iter([batches[b] for b in sorted(batches) if b % self.world_size == self.rank])
            yield EpochIterator(epoch, lambda _epoch, it=in_order: next(it, None), str(self.path), self.strict,
                                rank=self.rank, world_size=self.world_size)
        # After the last message, so a lenient reader delivers everything readable before saying what it lost.
        for error in self.truncated:
            warnings.warn(SamplesTruncatedWarning(error), stacklevel=2)

    def __iter__(self) -> "SamplesIterator":
        return SamplesIterator(self)

    def __len__(self) -> int:
        return len(self._unkeyed) + sum(len(b) for b in self._by_epoch.values())

    def close(self) -> None:
        self._unkeyed, self._by_epoch = [], {}

    def __enter__(self) -> "SamplesReader":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False


class SamplesIterator:
    """One pass over a ``SamplesReader`` (what ``read_samples`` returns): the unkeyed messages, then every
    epoch's, through the reader's ``transform``; a SamplingError leaves the position intact. A reader in its
    own right: ``epochs()``, ``close()`` and ``with`` are the underlying reader's."""

    def __init__(self, reader: SamplesReader):
        self.reader = reader
        self.rank, self.world_size = reader.rank, reader.world_size
        self._current: Iterator[Message] = iter(reader._unkeyed)
        self._epochs = reader._epochs()

    def __iter__(self) -> "SamplesIterator":
        return self

    def __next__(self):
        while True:
            try:
                msg = next(self._current)
            except StopIteration:
                self._current = next(self._epochs)  # StopIteration here ends the iteration
                continue
            return msg if self.reader.transform is None else self.reader.transform(msg)

    def epochs(self) -> Iterator[EpochIterator]:
        return self.reader.epochs()

    def close(self) -> None:
        self.reader.close()

    def __enter__(self) -> "SamplesIterator":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False


def _share(rank, world_size) -> tuple[int, int]:
    """(rank, world_size) of a data-parallel reader, checked; (0, 1) when neither is given."""
    if rank is None and world_size is None:
        return 0, 1
    if rank is None or world_size is None:
        raise ValueError("give rank and world_size together (a data-parallel trainer's share), or neither")
    if not (isinstance(world_size, int) and world_size >= 1 and isinstance(rank, int) and 0 <= rank < world_size):
        raise ValueError(f"rank {rank!r} of world_size {world_size!r}: need 0 <= rank < world_size")
    return rank, world_size


def _check_trainers(msg: Message, world_size: int, where) -> None:
    """A share only means something when the job planned for this many trainers (``--trainers``)."""
    if msg.epoch is None:
        return
    trainers = msg.get("#META.trainers")
    planned = 1 if trainers is None else int(np.asarray(trainers).reshape(-1)[0])
    if planned != world_size:
        raise ValueError(f"{where}: the job was run with --trainers {planned} but this reader has world_size "
                         f"{world_size}: every rank must read the job's plan (run it with --trainers {world_size})")


def read_records(path) -> Iterator[Message]:
    """Every record as stored, file by file in ``samples_files`` order, copies and ``#SAMPLING_ERROR``
    records included: for inspecting files (``python3 -m fanout_client cat``), not for training."""
    for file in samples_files(path):
        for _, msg in _read_file(file):
            yield msg


def read_samples(path, strict: bool = True, rank: int | None = None, world_size: int | None = None,
                 transform=None, **removed) -> SamplesIterator:
    """Every message of a `.samples` file or directory, by (epoch, batch_id), one per batch: the
    ``SamplesReader`` contract as one iterator (``SamplingError`` for a failed batch: iterate on to skip
    it). Arrays are zero-copy views of an mmap. A malformed record raises ``SamplesFormatError`` naming the
    file and byte offset, here, before any message is yielded; so does a truncated record with ``strict``
    (default). With ``strict=False`` (the files of a failed or running job) an epoch may lack batches, and a
    file cut short inside a record is read up to that record: every whole message is yielded, then a
    ``SamplesTruncatedWarning`` (``path``, ``offset``) per truncated file is issued as the iteration ends.
    ``transform`` is applied to every message (``transform=fanout_client.to_pyg``: a PyG ``Data`` per message).
    ``rank``/``world_size`` (a data-parallel trainer, e.g. ``torch.distributed``'s): only that rank's share
    (without them, every batch),
    the batches ``b`` with ``b % world_size == rank`` of every epoch, which a job run with ``--trainers
    world_size`` makes equal for every rank (padding batches carry ``#META.padded`` = [1]); a job run with
    another ``--trainers`` raises ``ValueError`` naming both."""
    check_transform(transform, removed, "read_samples")
    return iter(SamplesReader(path, strict=strict, rank=rank, world_size=world_size, transform=transform))


class SamplesWriter:
    """Appends safetensors blobs as records to ``path``, writing ``.<name>.partial`` next to it
    and renaming on ``close()``, so readers never see a half-written file."""

    def __init__(self, path, overwrite: bool = False):
        self.path = Path(path)
        if self.path.exists() and not overwrite:
            raise FileExistsError(f"{self.path} already exists; not overwriting it")
        self.temp_path = self.path.with_name(f".{self.path.name}.partial")
        self._file = open(self.temp_path, "wb")
        self.count = 0

    def write(self, blob) -> None:
        """Append one record (a safetensors blob, e.g. ``encode(...)`` or ``Message.blob``)."""
        blob = memoryview(blob).cast("B")
        self._file.write(_LEN.pack(len(blob)))
        self._file.write(blob)
        self.count += 1

    def close(self) -> None:
        """Flush, fsync and rename the finished file into place."""
        if self._file.closed:
            return
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self.temp_path, self.path)

    def abort(self) -> None:
        """Drop the partial file."""
        if not self._file.closed:
            self._file.close()
        self.temp_path.unlink(missing_ok=True)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            self.abort()
