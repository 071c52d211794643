"""`.samples` files: a sequence of records, each an 8-byte little-endian length N and an N-byte
safetensors blob. The channel's ``pull`` tool writes them; ``read_samples`` reads them back."""

from __future__ import annotations

import mmap
import os
import struct
from pathlib import Path
from typing import Iterator

from .message import Message
from .safetensors import decode

__all__ = ["read_samples", "samples_files", "SamplesWriter", "SamplesFormatError"]

_LEN = struct.Struct("<Q")


class SamplesFormatError(ValueError):
    """A `.samples` file is truncated or holds a malformed record; names the file and byte offset."""

    def __init__(self, path, offset: int, problem: str):
        super().__init__(f"{path}: at byte offset {offset}: {problem}")
        self.path = str(path)
        self.offset = offset


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


def _read_file(path: Path) -> Iterator[Message]:
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
        if size - offset < 8:
            raise SamplesFormatError(path, offset, f"truncated record: {size - offset} bytes left, "
                                                   "the record length needs 8")
        (length,) = _LEN.unpack_from(view, offset)
        if length > size - offset - 8:
            raise SamplesFormatError(path, offset, f"truncated record: length says {length} bytes "
                                                   f"but only {size - offset - 8} follow")
        blob = view[offset + 8:offset + 8 + length]
        try:
            tensors = decode(blob)
        except ValueError as e:
            raise SamplesFormatError(path, offset, f"malformed safetensors blob: {e}") from None
        yield Message(tensors, blob=blob)
        offset += 8 + length
    # The arrays handed out keep the mapping alive; it is unmapped when the last one is freed.


def read_samples(path, as_pyg: bool = False) -> Iterator[Message]:
    """Yield every message of a `.samples` file, or of every `.samples` file under a directory
    (see ``samples_files``), as ``Message`` dicts of numpy arrays (zero-copy views of an mmap);
    ``as_pyg=True`` yields ``fanout_client.to_pyg(msg)`` instead (a PyG ``Data`` per message).

    A truncated or malformed record raises ``SamplesFormatError`` naming the file and byte offset.
    """
    if as_pyg:
        from .pyg import to_pyg  # imports torch, so only when asked for
        for msg in read_samples(path):
            yield to_pyg(msg)
        return
    for file in samples_files(path):
        yield from _read_file(file)


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
