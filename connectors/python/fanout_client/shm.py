"""Shared-memory channel client: read messages in place from the ring files of a Fanout job on this host.

Each sink subtask of a job run with ``fanout.channel.shm=true`` writes one ring file
``<shm-dir>/<name>-<index>.ring`` (``/dev/shm/fanout-0.ring`` by default); layout in
``docs/shm-ring.md``. One process reads one ring (single consumer):

- ``ShmRingReader(path)``: one ring. ``for msg in ring:`` yields messages whose arrays are
  read-only numpy views of the shared memory (no copy); a message stays valid until the next one
  is requested, then its bytes go back to the writer. Keep one longer with ``ring.get()`` and
  ``msg.release()`` (or ``with ring.get() as msg:``), or pass ``copy=True`` for owned arrays.
- ``ShmClient(dir, name)``: every ring of a channel (``num_rings`` from the ring headers),
  interleaved; for one trainer process that reads them all.

Memory ordering: the Java writer stores a record, then publishes the write position with release
semantics; we load the position (an aligned 8-byte numpy load, one instruction), then the record.
On x86-64 (TSO) plain loads are not reordered with other loads and stores are not reordered with
older loads, so that is acquire/release without fences. Other architectures (ARM) would need
explicit barriers, which pure Python cannot issue: this module refuses to run there.
"""

from __future__ import annotations

import mmap
import os
import platform
import struct
import time
from pathlib import Path

import numpy as np

from .epochs import EpochIterator
from .message import Message
from .reader import TransformedEpoch, check_transform
from .safetensors import decode

__all__ = ["ShmRingReader", "ShmClient", "ShmMessage", "ShmRingError", "ring_path"]

MAGIC = 0x474E49524F4E4146  # "FANORING"
VERSION = 1
HEADER_BYTES = 4096
RECORD_HEADER_BYTES = 24
KIND_MESSAGE, KIND_WRAP = 1, 2
STATE_OPEN, STATE_ENDED, STATE_ABORTED = 0, 1, 2
# Header word indexes (8-byte words) and offsets.
_W_CAPACITY, _W_WRITER_PID, _W_WRITE_POS, _W_WRITTEN, _W_READ_POS, _W_READ = 2, 4, 8, 9, 16, 17
_I_STATE = 10  # 4-byte word index of the state
_FIXED = struct.Struct("<QIIQII")  # magic, version, header_bytes, capacity, index, num_rings
_RANKS = struct.Struct("<II")  # at offset 44: rank, trainers (0: an unranked ring, one reader takes everything)
_OFF_RANKS = 44
_LENGTH_KIND = struct.Struct("<II")
_KEYS = struct.Struct("<iii")  # epoch, batch_id, num_batches
_TSO_MACHINES = {"x86_64", "amd64", "i386", "i686", "x86"}


class ShmRingError(RuntimeError):
    """A ring file is missing, malformed, or its writer aborted or died; the text names the file."""


def ring_path(directory="/dev/shm", name="fanout", index=0, rank=None) -> Path:
    """The ring file of sink subtask ``index``: ``<directory>/<name>-<index>.ring``; of a job run with
    ``--trainers N``, rank ``rank``'s ring of that subtask: ``<directory>/<name>-<index>-rank<rank>.ring``."""
    if rank is None:
        return Path(directory) / f"{name}-{index}.ring"
    return Path(directory) / f"{name}-{index}-rank{rank}.ring"


def _check_machine():
    machine = platform.machine().lower()
    if machine not in _TSO_MACHINES:
        raise ShmRingError(f"shared-memory rings need x86-64 memory ordering (TSO); this is {machine}. "
                           f"Use the TCP channel (ChannelClient) here.")


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return True  # unknown: assume alive
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ShmMessage(Message):
    """A message read from a ring. Without ``copy=True`` its arrays view the ring: they stay valid
    until ``release()`` (also called by ``with``-exit and by iteration moving on)."""

    __slots__ = ("_ring", "_end")

    def release(self) -> None:
        """Give this message's bytes (and those of every earlier message) back to the writer."""
        ring = self._ring
        if ring is not None:
            ring._release_to(self._end)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()
        return False


class ShmRingReader:
    """The single reader of one ring file (see the module doc).

    ``timeout``: seconds to wait for the file to appear (``ShmRingError`` after). ``copy``: hand out
    owned arrays and release each record at once. ``get(timeout)`` waits for the next message
    (``None`` at the end of the stream, ``TimeoutError`` after ``timeout`` seconds); it raises
    ``ShmRingError`` when the writer aborted (job cancelled or failed) or its process died.
    """

    def __init__(self, path, timeout: float = 30.0, copy: bool = False):
        _check_machine()
        self.path = Path(path)
        self.copy = copy
        deadline = time.monotonic() + timeout
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR)
                break
            except FileNotFoundError:
                if time.monotonic() >= deadline:
                    raise ShmRingError(f"ring file {self.path} did not appear within {timeout:g}s") from None
                time.sleep(0.02)
        try:
            size = os.fstat(fd).st_size
            if size < HEADER_BYTES:
                raise ShmRingError(f"{self.path}: {size} bytes, too short for a ring header")
            # MAP_POPULATE: map every page now, not with a fault on first access while streaming.
            flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
            self._mm = mmap.mmap(fd, size, flags, mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
        magic, version, header_bytes, capacity, index, num_rings = _FIXED.unpack_from(self._mm, 0)
        if magic != MAGIC:
            self.close()
            raise ShmRingError(f"{self.path}: not a Fanout ring (magic {magic:#x})")
        if version != VERSION or header_bytes != HEADER_BYTES:
            self.close()
            raise ShmRingError(f"{self.path}: ring format version {version} (header {header_bytes} bytes); "
                               f"this client reads version {VERSION}")
        if capacity % 8 or HEADER_BYTES + capacity != size:
            self.close()
            raise ShmRingError(f"{self.path}: capacity {capacity} does not match the file size {size}")
        self.capacity = capacity
        self.index = index
        self.num_rings = num_rings
        # The rank whose share the ring holds and the job's --trainers; trainers 0: an unranked ring.
        self.rank, self.trainers = _RANKS.unpack_from(self._mm, _OFF_RANKS)
        # Aligned numpy views: each element access is a single 8- (4-) byte load or store.
        self._u64 = np.frombuffer(self._mm, dtype="<u8", count=HEADER_BYTES // 8)
        self._u32 = np.frombuffer(self._mm, dtype="<u4", count=HEADER_BYTES // 4)
        self._view = memoryview(self._mm).toreadonly()
        self.writer_pid = int(self._u64[_W_WRITER_PID])
        self._cursor = int(self._u64[_W_READ_POS])   # start of the next record to get
        self._released = self._cursor                  # read position published to the writer
        self._held = []                                # end positions of records got, not released
        self._released_count = int(self._u64[_W_READ])
        self._last = None
        self._ended = False

    # ---- counters ---------------------------------------------------------------------------

    def qsize(self) -> int:
        """Messages written and not yet released (GLT's ``qsize()``)."""
        return int(self._u64[_W_WRITTEN]) - int(self._u64[_W_READ])

    def bytes_used(self) -> int:
        """Bytes of the ring written and not yet released."""
        return int(self._u64[_W_WRITE_POS]) - int(self._u64[_W_READ_POS])

    def state(self) -> int:
        """``STATE_OPEN`` (0), ``STATE_ENDED`` (1) or ``STATE_ABORTED`` (2)."""
        return int(self._u32[_I_STATE])

    # ---- reading ----------------------------------------------------------------------------

    def poll(self):
        """The next message if one is written, else ``None`` without waiting (``None`` also at the
        end: check ``ended``)."""
        cap = self.capacity
        while True:
            write_pos = int(self._u64[_W_WRITE_POS])  # acquire (TSO), then read the record
            if self._cursor >= write_pos:
                if self.state() == STATE_ENDED and self._cursor >= int(self._u64[_W_WRITE_POS]):
                    self._ended = True
                return None
            offset = self._cursor % cap
            at = HEADER_BYTES + offset
            length, kind = _LENGTH_KIND.unpack_from(self._mm, at)  # a WRAP marker may be just 8 bytes
            if kind == KIND_WRAP:
                self._cursor += cap - offset
                if not self._held:  # nothing held: give the padding back right away
                    self._publish(self._cursor, 0)
                continue
            if kind != KIND_MESSAGE or RECORD_HEADER_BYTES + length > cap - offset:
                raise ShmRingError(f"{self.path}: corrupt record at position {self._cursor} "
                                   f"(kind {kind}, length {length})")
            epoch, batch_id, num_batches = _KEYS.unpack_from(self._mm, at + 8)
            end = self._cursor + RECORD_HEADER_BYTES + ((length + 7) & ~7)
            blob = self._view[at + RECORD_HEADER_BYTES: at + RECORD_HEADER_BYTES + length]
            self._cursor = end
            self._held.append(end)
            tensors = decode(blob)
            if self.copy:
                tensors = {k: np.array(v, copy=True) for k, v in tensors.items()}
                blob = None
            msg = ShmMessage(tensors, epoch=epoch, batch_id=batch_id, num_batches=num_batches,
                             endpoint=self.index, blob=blob)
            msg._ring, msg._end = (None, end) if self.copy else (self, end)
            if self.copy:
                self._release_to(end)
            return msg

    @property
    def ended(self) -> bool:
        """True once the writer ended the stream and every message was got."""
        return self._ended

    def get(self, timeout: float | None = None):
        """Wait for the next message; ``None`` at the end of the stream. Spins briefly, then sleeps
        with a growing pause (up to 2 ms) while the ring is empty."""
        deadline = None if timeout is None else time.monotonic() + timeout
        pause, idle_since, spins = 20e-6, None, 0
        while True:
            msg = self.poll()
            if msg is not None or self._ended:
                return msg
            state = self.state()
            if state == STATE_ABORTED:
                raise ShmRingError(f"{self.path}: the writer aborted (job cancelled or failed) after "
                                   f"{int(self._u64[_W_WRITTEN])} messages")
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                raise TimeoutError(f"{self.path}: no message within {timeout:g}s")
            if idle_since is None:
                idle_since = now
            elif now - idle_since > 1.0:
                if not _pid_alive(self.writer_pid):
                    raise ShmRingError(f"{self.path}: writer process {self.writer_pid} died without ending "
                                       f"the stream")
                idle_since = now
            if spins < 50:
                spins += 1
                continue
            time.sleep(pause)
            pause = min(pause * 2, 2e-3)

    def release(self) -> None:
        """Release every message got so far."""
        if self._held:
            self._release_to(self._held[-1])

    def _release_to(self, end: int) -> None:
        n = 0
        while self._held and self._held[0] <= end:
            self._held.pop(0)
            n += 1
        if n:
            # Padding skipped after the last released record goes back too when nothing is held.
            self._publish(end if self._held else max(end, self._cursor), n)

    def _publish(self, position: int, count: int) -> None:
        if position > self._released:
            self._released_count += count
            self._u64[_W_READ] = self._released_count
            # Release (TSO): our loads of the record happened before this store frees its bytes.
            self._u64[_W_READ_POS] = position
            self._released = position

    def __iter__(self):
        return self

    def __next__(self) -> ShmMessage:
        self.release()  # the previous message's views end here
        msg = self.get()
        if msg is None:
            raise StopIteration
        return msg

    def close(self) -> None:
        """Release everything and unmap (deferred while arrays still view the ring)."""
        mm = getattr(self, "_mm", None)
        if mm is None:
            return
        if getattr(self, "_held", None):
            self.release()
        self._u64 = self._u32 = self._view = None
        self._mm = None
        try:
            mm.close()
        except BufferError:
            pass  # arrays handed out still view it; the mapping goes when they do

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"ShmRingReader({str(self.path)!r}, ring {self.index}/{self.num_rings}, {self.capacity} bytes)"


def _wait_for_first_ring(dir, name, rank, world_size, timeout: float) -> float:
    """Waits for the channel's first ring; refuses a job whose rings are not for this reader: ranked rings
    (``--trainers N``) for a reader without a rank, unranked ones for a rank, another world size. Returns
    the time left of ``timeout``."""
    deadline = time.monotonic() + timeout
    mine = ring_path(dir, name, 0, rank)
    while not mine.exists():
        if rank is None and ring_path(dir, name, 0, 0).exists():
            with ShmRingReader(ring_path(dir, name, 0, 0), timeout=0) as ring:
                raise ValueError(f"{ring.path}: the job writes one ring per rank (--trainers {ring.trainers}): "
                                 f"give ShmClient rank= and world_size={ring.trainers}")
        if rank is not None and ring_path(dir, name, 0).exists():
            raise ValueError(f"{ring_path(dir, name, 0)}: the job writes one ring for all readers (no --trainers), "
                             f"not one per rank: world_size {world_size} does not match the job's 1 trainer")
        if rank is not None and rank > 0 and ring_path(dir, name, 0, 0).exists():
            break  # rank 0's ring names the job's world size; this rank's may follow it
        if time.monotonic() >= deadline:
            raise ShmRingError(f"ring file {mine} did not appear within {timeout:g}s")
        time.sleep(0.02)
    if rank is not None:
        with ShmRingReader(ring_path(dir, name, 0, 0), timeout=max(deadline - time.monotonic(), 0)) as ring:
            if ring.trainers != world_size:
                raise ValueError(f"{ring.path}: the job writes rings for {ring.trainers} trainers (--trainers "
                                 f"{ring.trainers}), this reader's world_size is {world_size}: give "
                                 f"world_size={ring.trainers}, or run the job with --trainers {world_size}")
    return max(deadline - time.monotonic(), 0)


class ShmClient:
    """Every ring of a shared-memory channel, read by this one process, messages interleaved.

    Opens ``<dir>/<name>-0.ring`` (waiting up to ``timeout`` seconds), learns ``num_rings`` from its
    header and opens the others. Iteration yields ``ShmMessage`` (``endpoint`` = ring index) until
    every ring ended; zero-copy messages are valid until the next one is requested. ``transform`` is applied
    to every message handed out (``fanout_client.reader``); its result may view the ring (``to_torch``) and is
    then valid as long as the message, until the next one is requested; ``to_pyg`` copies out of the ring, so
    its ``Data`` stays valid.

    ``rank``, ``world_size``: read as data-parallel trainer ``rank`` of a job run with ``--trainers
    world_size``, whose sink subtasks write one ring per rank (``<name>-<i>-rank<r>.ring``, batch b in
    rank b mod world_size's): this client opens only its rank's rings and yields its share in (epoch,
    batch) order, flat or by ``epochs()``; a batch that arrives before its turn is copied out of its ring
    and held until then. A world size other than the job's, or a rank for a job without ``--trainers``
    (and the reverse), raises ``ValueError`` naming both.
    """

    def __init__(self, dir="/dev/shm", name: str = "fanout", timeout: float = 30.0, copy: bool = False,
                 rank: int | None = None, world_size: int | None = None, transform=None, **removed):
        self.transform = check_transform(transform, removed, "ShmClient")
        if (rank is None) != (world_size is None):
            raise ValueError("give both rank and world_size (a data-parallel trainer) or neither")
        if world_size is not None and (int(world_size) < 1 or not 0 <= int(rank) < int(world_size)):
            raise ValueError(f"rank {rank} of world_size {world_size}: expected world_size >= 1 and "
                             f"0 <= rank < world_size")
        self.rank = int(rank) if rank is not None else None
        self.world_size = int(world_size) if world_size is not None else None
        timeout = _wait_for_first_ring(dir, name, self.rank, self.world_size, timeout)
        first = ShmRingReader(ring_path(dir, name, 0, self.rank), timeout=timeout, copy=copy)
        self.rings = [first] + [ShmRingReader(ring_path(dir, name, i, self.rank), timeout=timeout, copy=copy)
                                for i in range(1, first.num_rings)]
        self._next = 0
        self._last = None
        self._ordered = None  # a rank's flat iteration: its epochs in order, each in batch order

    def qsize(self) -> int:
        return sum(r.qsize() for r in self.rings)

    def get(self, timeout: float | None = None):
        """The next message of any ring, or ``None`` once every ring ended."""
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 20e-6
        while True:
            live = 0
            for k in range(len(self.rings)):
                ring = self.rings[(self._next + k) % len(self.rings)]
                if ring.ended:
                    continue
                msg = ring.poll()
                if msg is not None:
                    self._next = (self._next + k + 1) % len(self.rings)
                    return msg
                if not ring.ended:
                    live += 1
                    if ring.state() == STATE_ABORTED:
                        ring.get(timeout=0)  # raises with the ring's story
            if live == 0:
                return None
            if deadline is not None and time.monotonic() >= deadline:
                raise TimeoutError(f"no message from {len(self.rings)} rings within {timeout:g}s")
            time.sleep(pause)
            pause = min(pause * 2, 2e-3)

    def epochs(self, strict: bool = True):
        """One iterator per epoch, ascending, with the TCP client's contract: each yields that epoch's
        messages from every ring, one per batch id (copies dropped), raising ``SamplingError`` for a failed
        batch (iterate on to skip it) and, with ``strict``, ``IncompleteEpochError`` when the rings ended
        without some of the epoch's batches. A ring that reaches a later epoch is not read further until
        the current epoch is over, so the client holds at most one message per ring: memory stays in the
        rings, whose writers wait. Zero-copy messages are valid until the next one is requested."""
        merger = _EpochMerger(self)
        name = self.rings[0].path.name
        source = f"shared-memory channel {self.rings[0].path.parent}/{name[:name.rindex('-0')]}"
        if self.rank is not None:
            source += f" rank {self.rank} of {self.world_size}"
            merger = _RankOrder(merger, self.rank, self.world_size)
        while True:
            epoch = merger.next_epoch()
            if epoch is None:
                return
            iterator = EpochIterator(epoch, merger.next_of_epoch, source, strict, rank=self.rank or 0,
                                     world_size=self.world_size or 1)
            yield iterator if self.transform is None else TransformedEpoch(iterator, self.transform)

    def __iter__(self):
        return self

    def _next_of_rank(self):
        """A rank's next message in (epoch, batch) order, or None at the end."""
        if self._ordered is None:
            self._ordered = (msg for epoch in self.epochs(strict=False) for msg in epoch)
        return next(self._ordered, None)

    def __next__(self) -> ShmMessage:
        if self._last is not None:
            self._last.release()
            self._last = None
        msg = self.get() if self.rank is None else self._next_of_rank()
        if msg is None:
            raise StopIteration
        self._last = msg  # released when the next one is requested, transformed or not (a result may view it)
        return msg if self.transform is None else self.transform(msg)

    def close(self) -> None:
        for r in self.rings:
            r.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _EpochMerger:
    """Reads a ShmClient's rings epoch by epoch: at most one message held per ring, a ring holding a later
    epoch's message is not read on; an epoch is over when every ring ended or holds a later epoch."""

    def __init__(self, client: ShmClient):
        self.rings = client.rings
        self.held: list[ShmMessage | None] = [None] * len(self.rings)
        self.last: ShmMessage | None = None
        self.current: int | None = None
        self.copies_dropped = 0

    def _fill(self) -> None:
        """Polls every ring that holds nothing; drops copies of epochs already over."""
        for r, ring in enumerate(self.rings):
            while self.held[r] is None and not ring.ended:
                msg = ring.poll()
                if msg is None:
                    if ring.state() == STATE_ABORTED:
                        ring.get(timeout=0)  # raises with the ring's story
                    break
                if self.current is not None and msg.epoch < self.current:
                    self.copies_dropped += 1  # a re-sent batch of an epoch already over
                    msg.release()
                    continue
                self.held[r] = msg

    def _wait(self, ready) -> None:
        pause = 20e-6
        while True:
            self._fill()
            if ready():
                return
            time.sleep(pause)
            pause = min(pause * 2, 2e-3)

    def next_epoch(self) -> int | None:
        """The next epoch to read (the smallest held), or None once every ring ended with nothing held."""
        if self.last is not None:
            self.last.release()
            self.last = None
        self._wait(lambda: all(h is not None or ring.ended for h, ring in zip(self.held, self.rings)))
        epochs = [h.epoch for h in self.held if h is not None]
        self.current = min(epochs) if epochs else None
        return self.current

    def next_of_epoch(self, epoch: int) -> ShmMessage | None:
        if self.last is not None:
            self.last.release()
            self.last = None
        while True:
            for r, h in enumerate(self.held):
                if h is not None and h.epoch == epoch:
                    self.held[r] = None
                    self.last = h
                    return h
            # Over when every ring ended or holds a later epoch; else wait for one of them to move.
            if all(h is not None or ring.ended for h, ring in zip(self.held, self.rings)):
                return None
            self._wait(lambda: any(h is not None and h.epoch == epoch for h in self.held)
                       or all(h is not None or ring.ended for h, ring in zip(self.held, self.rings)))


def _owned(msg: ShmMessage) -> ShmMessage:
    """A copy of ``msg`` that owns its arrays; ``msg``'s ring space is released."""
    copy = ShmMessage({k: np.array(v, copy=True) for k, v in msg.items()}, epoch=msg.epoch, batch_id=msg.batch_id,
                      num_batches=msg.num_batches, endpoint=msg.endpoint,
                      blob=bytes(msg.blob) if msg.blob is not None else None)
    copy._ring, copy._end = None, 0
    msg.release()
    return copy


class _RankOrder:
    """A rank's epochs from an ``_EpochMerger`` over its rings, each in batch order: rank, rank + world_size,
    ... A batch that comes before its turn is copied out of its ring (its space goes back to the writer, so
    no ring waits on this reader) and held until its turn; copies of batches already handed out are dropped."""

    def __init__(self, merger: "_EpochMerger", rank: int, world_size: int):
        self.merger = merger
        self.rank, self.world_size = rank, world_size
        self.early: dict[int, ShmMessage] = {}
        self.expected = rank
        self.epoch = None

    def next_epoch(self):
        epoch = self.merger.next_epoch()
        self.early.clear()
        self.expected = self.rank
        self.epoch = epoch
        return epoch

    def next_of_epoch(self, epoch: int):
        while True:
            held = self.early.pop(self.expected, None)
            if held is not None:
                self.expected += self.world_size
                return held
            msg = self.merger.next_of_epoch(epoch)
            if msg is None:
                # The epoch is over: what is left came after a batch that never did (EpochIterator names it).
                if self.early:
                    return self.early.pop(min(self.early))
                return None
            if msg.batch_id == self.expected:
                self.expected += self.world_size
                return msg
            if msg.batch_id > self.expected and msg.batch_id not in self.early:
                self.early[msg.batch_id] = _owned(msg)
            else:
                msg.release()  # a copy of a batch already handed out or held (after a restart)
