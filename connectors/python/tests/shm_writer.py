"""A minimal ring writer in Python, written from docs/shm-ring.md, for the reader's unit tests
(the real writer is Java's ShmRing; the cross-process Java -> Python test is ShmRingPythonReaderTest)."""

import os
import struct

import numpy as np

from fanout_client import shm

_HEADER = struct.Struct("<QIIQIIq")


class PyRingWriter:
    def __init__(self, path, capacity, index=0, num_rings=1, pid=None):
        self.path = path
        self.capacity = capacity
        with open(path, "wb") as f:
            f.truncate(shm.HEADER_BYTES + capacity)
        fd = os.open(path, os.O_RDWR)
        import mmap
        self.mm = mmap.mmap(fd, shm.HEADER_BYTES + capacity)
        os.close(fd)
        _HEADER.pack_into(self.mm, 0, shm.MAGIC, shm.VERSION, shm.HEADER_BYTES, capacity, index, num_rings,
                          os.getpid() if pid is None else pid)
        self.u64 = np.frombuffer(self.mm, dtype="<u8", count=shm.HEADER_BYTES // 8)
        self.u32 = np.frombuffer(self.mm, dtype="<u4", count=shm.HEADER_BYTES // 4)
        self.write_pos = 0
        self.written = 0

    def free(self):
        return self.capacity - (self.write_pos - int(self.u64[16]))

    def try_write(self, blob, epoch=0, batch_id=0, num_batches=1):
        """Writes one record if it fits now; False when the ring is full."""
        record = shm.RECORD_HEADER_BYTES + ((len(blob) + 7) & ~7)
        assert record <= self.capacity
        to_end = self.capacity - self.write_pos % self.capacity
        if to_end < record:
            if self.free() < to_end:
                return False
            struct.pack_into("<II", self.mm, shm.HEADER_BYTES + self.write_pos % self.capacity, 0, shm.KIND_WRAP)
            self.write_pos += to_end
            self.u64[8] = self.write_pos
        if self.free() < record:
            return False
        at = shm.HEADER_BYTES + self.write_pos % self.capacity
        struct.pack_into("<IIiiiI", self.mm, at, len(blob), shm.KIND_MESSAGE, epoch, batch_id, num_batches, 0)
        self.mm[at + 24: at + 24 + len(blob)] = blob
        self.write_pos += record
        self.written += 1
        self.u64[9] = self.written
        self.u64[8] = self.write_pos
        return True

    def set_state(self, state):
        self.u32[10] = state
