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


def ranked_writers(tmp_path, rank, world_size, num_rings=2):
    writers = [PyRingWriter(shm.ring_path(tmp_path, "rk", k, rank), 64 << 10, index=k, num_rings=num_rings)
               for k in range(num_rings)]
    for w in writers:
        w.mm[44:52] = np.array([rank, world_size], dtype="<u4").tobytes()  # the rank words of the header
    return writers


def test_a_rank_reads_its_rings_in_epoch_and_batch_order_whatever_the_rings_order(tmp_path):
    # Rank 1 of 2, epochs of 8 batches: its batches 1, 3, 5, 7 spread over two subtasks' rings, each out of order.
    writers = ranked_writers(tmp_path, 1, 2)
    ranks_0 = ranked_writers(tmp_path, 0, 2)  # rank 0's rings exist too (they name the job's world size)
    for epoch in range(2):
        for w, batches in zip(writers, ([7, 3], [5, 1])):
            for b in batches:
                w.try_write(blob_of(100 * epoch + b), epoch=epoch, batch_id=b, num_batches=8)
    writers[1].try_write(blob_of(101), epoch=1, batch_id=1, num_batches=8)  # a copy after a restart: dropped
    for w in writers + ranks_0:
        w.set_state(shm.STATE_ENDED)
    with ShmClient(tmp_path, "rk", rank=1, world_size=2, timeout=1) as client:
        flat = [(m.epoch, m.batch_id, int(m["ids"][0])) for m in client]
    assert flat == [(e, b, 100 * e + b) for e in range(2) for b in (1, 3, 5, 7)]
    with ShmClient(tmp_path, "rk", rank=0, world_size=2, timeout=1) as client:
        assert [list(epoch) for epoch in client.epochs()] == []  # nothing was written for rank 0
    with pytest.raises(ValueError, match=r"rings for 2 trainers \(--trainers 2\), this reader's world_size is 4"):
        ShmClient(tmp_path, "rk", rank=1, world_size=4, timeout=1)
    with pytest.raises(ValueError, match="one ring per rank"):
        ShmClient(tmp_path, "rk", timeout=1)


def test_a_rank_missing_a_batch_of_its_share_is_told_which(tmp_path):
    writers = ranked_writers(tmp_path, 0, 2, num_rings=1)
    for b in (0, 4):  # batch 2 of rank 0's share never comes
        writers[0].try_write(blob_of(b), epoch=0, batch_id=b, num_batches=6)
    writers[0].set_state(shm.STATE_ENDED)
    with ShmClient(tmp_path, "rk", rank=0, world_size=2, timeout=1) as client:
        epoch = next(client.epochs())
        got = []
        with pytest.raises(fanout_client_epochs().IncompleteEpochError,
                           match=r"epoch 0 has 2 of its 3 batches of 6 \(its rank.s share\); missing batch ids 2$"):
            for m in epoch:
                got.append(m.batch_id)
    assert got == [0, 4]


def fanout_client_epochs():
    from fanout_client import epochs
    return epochs
