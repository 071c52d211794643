"""Unit tests of the shared-memory ring reader against a ring written from the format document.

The Java writer -> Python reader path across processes is tested by the Java test
ShmRingPythonReaderTest (it spawns python3 on a ring written by ShmRing)."""

import numpy as np
import pytest

from fanout_client import ShmClient, ShmRingError, ShmRingReader, encode, shm

from shm_writer import PyRingWriter


def blob_of(i, n=3):
    return encode({"ids": np.arange(i, i + n, dtype=np.int64), "#META.batch_id": np.array([i], dtype=np.int64)})


@pytest.fixture
def ring_file(tmp_path):
    return tmp_path / "t-0.ring"


def test_reads_messages_in_order_with_keys_and_zero_copy_views(ring_file):
    w = PyRingWriter(ring_file, 64 << 10)
    for i in range(5):
        assert w.try_write(blob_of(i), epoch=1, batch_id=i, num_batches=5)
    w.set_state(shm.STATE_ENDED)
    r = ShmRingReader(ring_file, timeout=1)
    assert (r.qsize(), r.index, r.num_rings, r.capacity) == (5, 0, 1, 64 << 10)
    got = []
    for msg in r:
        assert (msg.epoch, msg.num_batches, msg.endpoint) == (1, 5, 0)
        ids = msg["ids"]
        assert not ids.flags.owndata and not ids.flags.writeable  # a read-only view of the ring
        assert ids.ctypes.data % 8 == 0
        got.append((msg.batch_id, ids.tolist()))
    assert got == [(i, [i, i + 1, i + 2]) for i in range(5)]
    assert r.qsize() == 0 and r.bytes_used() == 0 and r.ended


def test_release_hands_bytes_back_and_writer_blocks_when_full(ring_file):
    cap = 64 << 10
    w = PyRingWriter(ring_file, cap)
    blob = encode({"x": np.zeros(2490, dtype=np.int64)})
    rec = 24 + len(blob)
    assert len(blob) % 8 == 0 and 3 * rec < cap < 4 * rec  # 3 records fit, a 4th does not
    assert all(w.try_write(blob, batch_id=i) for i in range(3))
    assert not w.try_write(blob, batch_id=3)
    r = ShmRingReader(ring_file, timeout=1)
    # get() holds messages: the writer stays blocked until they are released
    m0 = r.get(timeout=1)
    assert m0.batch_id == 0 and len(m0.blob) == len(blob) and m0["x"].shape == (2490,)
    assert not w.try_write(blob, batch_id=3)
    assert r.qsize() == 3
    with m0:
        pass  # exiting releases m0
    # the blocked write already placed its WRAP marker over the tail: it counts as used
    assert r.qsize() == 2 and r.bytes_used() == 2 * rec + (cap - 3 * rec)
    # the next record does not fit before the end: the writer wraps (marker + record at offset 0)
    assert w.try_write(blob, batch_id=3)
    got = [r.get(timeout=1).batch_id for _ in range(3)]
    assert got == [1, 2, 3]
    r.release()
    assert r.qsize() == 0 and r.bytes_used() == 0
    with pytest.raises(TimeoutError):
        r.get(timeout=0.05)


def test_wraps_many_times_with_varied_sizes_and_copy_mode(ring_file):
    cap = 64 << 10
    w = PyRingWriter(ring_file, cap)
    r = ShmRingReader(ring_file, timeout=1, copy=True)
    rng = np.random.default_rng(7)
    expected, got, i = [], [], 0
    while len(got) < 300:
        while i < 300:
            blob = blob_of(i, int(rng.integers(1, 900)))
            if not w.try_write(blob, batch_id=i):
                break
            expected.append(blob)
            i += 1
        if i == 300:
            w.set_state(shm.STATE_ENDED)
        msg = r.get(timeout=1)
        if msg is None:
            break
        assert msg["ids"].flags.owndata  # copy mode: owned arrays, record already released
        got.append(encode(dict(msg)))
    assert got == expected
    assert r.get(timeout=1) is None and r.ended
    assert w.write_pos > 5 * cap  # really wrapped several times


def test_aborted_writer_and_dead_writer_raise(ring_file, tmp_path):
    w = PyRingWriter(ring_file, 64 << 10)
    w.try_write(blob_of(0))
    w.set_state(shm.STATE_ABORTED)
    r = ShmRingReader(ring_file, timeout=1)
    assert r.get(timeout=1).batch_id == 0  # what was written before the abort is still readable
    with pytest.raises(ShmRingError, match="aborted"):
        r.get(timeout=1)
    dead = tmp_path / "d-0.ring"
    PyRingWriter(dead, 64 << 10, pid=2**22 + 12345)  # no such process
    with pytest.raises(ShmRingError, match="died"):
        ShmRingReader(dead, timeout=1).get(timeout=5)


def test_bad_files_are_named(tmp_path):
    with pytest.raises(ShmRingError, match="did not appear"):
        ShmRingReader(tmp_path / "missing.ring", timeout=0.05)
    bad = tmp_path / "bad.ring"
    bad.write_bytes(b"x" * 8192)
    with pytest.raises(ShmRingError, match=r"bad\.ring: not a Fanout ring"):
        ShmRingReader(bad, timeout=0)


def test_client_reads_every_ring_of_a_channel(tmp_path):
    writers = [PyRingWriter(shm.ring_path(tmp_path, "ch", k), 64 << 10, index=k, num_rings=3) for k in range(3)]
    for k, w in enumerate(writers):
        for i in range(4):
            w.try_write(blob_of(10 * k + i), batch_id=10 * k + i)
        w.set_state(shm.STATE_ENDED)
    with ShmClient(tmp_path, "ch", timeout=1) as client:
        assert client.qsize() == 12
        got = sorted((m.endpoint, m.batch_id, int(m["ids"][0])) for m in client)
    assert got == sorted((k, 10 * k + i, 10 * k + i) for k in range(3) for i in range(4))
