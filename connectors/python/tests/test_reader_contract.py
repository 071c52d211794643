"""The file and shared-memory readers keep the TCP client's contract (issue 13 item 13): messages by
epoch, one per (epoch, batch_id), SamplingError for a failed batch, whatever order parts and rings have."""

import struct

import numpy as np
import pytest

from channel_server import sample_blob
from fanout_client import (IncompleteEpochError, SamplesFormatError, SamplesReader, SamplingError, ShmClient,
                           encode, read_records, read_samples, shm)

from shm_writer import PyRingWriter


def blob(epoch, batch_id, num_batches, tag=0):
    return encode({"ids": np.array([epoch, batch_id, tag], dtype=np.int64),
                   "#META.epoch": np.array([epoch], dtype=np.int64),
                   "#META.batch_id": np.array([batch_id], dtype=np.int64),
                   "#META.num_batches": np.array([num_batches], dtype=np.int64)})


def error_blob(epoch, batch_id, num_batches, text="Traceback: boom"):
    return encode({"#SAMPLING_ERROR": np.frombuffer(text.encode(), dtype=np.uint8),
                   "#META.epoch": np.array([epoch], dtype=np.int64),
                   "#META.batch_id": np.array([batch_id], dtype=np.int64),
                   "#META.num_batches": np.array([num_batches], dtype=np.int64)})


def write_records(path, blobs):
    path.write_bytes(b"".join(struct.pack("<Q", len(b)) + b for b in blobs))


def keys(messages):
    return [(m.epoch, m.batch_id) for m in messages]


def test_parts_in_any_name_order_come_back_by_epoch_and_batch_once(tmp_path):
    # Part names are random in a FileSink's output: 'a' holds later batches than 'b' here.
    write_records(tmp_path / "part-a.samples", [blob(1, 0, 2), blob(0, 1, 3), blob(0, 0, 3)])
    write_records(tmp_path / "part-b.samples", [blob(0, 2, 3), blob(0, 0, 3), blob(1, 1, 2)])
    reader = SamplesReader(tmp_path)
    assert keys(reader) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    assert reader.copies_dropped == 1  # (0, 0) twice, byte-identical (a batch re-written after a restart)
    assert [[m.batch_id for m in epoch] for epoch in reader.epochs()] == [[0, 1, 2], [0, 1]]
    assert keys(read_samples(tmp_path)) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    assert len(list(read_records(tmp_path))) == 6  # as stored, copies included


def test_two_different_messages_for_one_batch_are_an_error_naming_both(tmp_path):
    write_records(tmp_path / "part-a.samples", [blob(0, 0, 1, tag=1)])
    write_records(tmp_path / "part-b.samples", [blob(0, 0, 1, tag=2)])
    with pytest.raises(SamplesFormatError, match=r"part-b.samples: at byte offset 0: epoch 0 batch 0 differs from the"
                                                 r" copy in .*part-a.samples at byte offset 0"):
        SamplesReader(tmp_path)


def test_a_failed_batch_raises_sampling_error_and_reading_goes_on(tmp_path):
    write_records(tmp_path / "part-0.samples", [blob(0, 2, 3), error_blob(0, 1, 3), blob(0, 0, 3)])
    it = read_samples(tmp_path)
    assert next(it).batch_id == 0
    with pytest.raises(SamplingError) as failed:
        next(it)
    assert failed.value.epoch == 0 and failed.value.batch_id == 1
    assert "Traceback: boom" in failed.value.server_text
    assert next(it).batch_id == 2
    with pytest.raises(StopIteration):
        next(it)


def test_an_incomplete_epoch_is_reported_unless_not_strict(tmp_path):
    write_records(tmp_path / "part-0.samples", [blob(0, 0, 4), blob(0, 3, 4), blob(1, 0, 1)])
    it = read_samples(tmp_path)
    assert keys([next(it), next(it)]) == [(0, 0), (0, 3)]
    with pytest.raises(IncompleteEpochError, match=r"epoch 0 has 2 of its 4 batches; missing batch ids 1, 2"):
        next(it)
    assert keys(it) == [(1, 0)]
    assert keys(read_samples(tmp_path, strict=False)) == [(0, 0), (0, 3), (1, 0)]


def test_messages_without_batch_keys_keep_file_order(tmp_path):
    write_records(tmp_path / "x.samples", [encode({"ids": np.arange(k, k + 2, dtype=np.int64)}) for k in (5, 1)])
    assert [int(m["ids"][0]) for m in read_samples(tmp_path)] == [5, 1]


def test_real_job_output_reads_one_message_per_batch_in_order(tmp_path):
    write_records(tmp_path / "p.samples", [sample_blob(0, b) for b in (3, 1, 2, 0)])
    assert [m.batch_id for m in read_samples(tmp_path, strict=False)] == [0, 1, 2, 3]


def ring_writers(tmp_path, n):
    return [PyRingWriter(shm.ring_path(tmp_path, "ch", k), 64 << 10, index=k, num_rings=n) for k in range(n)]


def test_shm_client_epochs_in_order_copies_dropped_and_errors_raised(tmp_path):
    w0, w1 = ring_writers(tmp_path, 2)
    # Ring 0 runs ahead into epoch 1 while ring 1 still has epoch 0's batches.
    for e, b in [(0, 0), (1, 0), (1, 1)]:
        w0.try_write(blob(e, b, 3 if e == 0 else 2), epoch=e, batch_id=b, num_batches=3 if e == 0 else 2)
    w1.try_write(blob(0, 1, 3), epoch=0, batch_id=1, num_batches=3)
    w1.try_write(blob(0, 1, 3), epoch=0, batch_id=1, num_batches=3)  # a copy re-sent after a restart
    w1.try_write(error_blob(0, 2, 3), epoch=0, batch_id=2, num_batches=3)
    for w in (w0, w1):
        w.set_state(shm.STATE_ENDED)
    got = []
    with ShmClient(tmp_path, "ch", timeout=1) as client:
        for epoch in client.epochs():
            batches = []
            while True:
                try:
                    msg = next(epoch)
                except StopIteration:
                    break
                except SamplingError as e:
                    batches.append(("error", e.batch_id))
                    continue
                assert int(msg["ids"][0]) == epoch.epoch  # the message is valid while it is the current one
                batches.append(msg.batch_id)
            got.append((epoch.epoch, batches, epoch.copies_dropped))
    assert got == [(0, [0, 1, ("error", 2)], 1), (1, [0, 1], 0)]


def test_shm_client_reports_an_epoch_the_rings_ended_without(tmp_path):
    (w0,) = ring_writers(tmp_path, 1)
    w0.try_write(blob(0, 0, 2), epoch=0, batch_id=0, num_batches=2)
    w0.set_state(shm.STATE_ENDED)
    with ShmClient(tmp_path, "ch", timeout=1) as client:
        epoch = next(client.epochs())
        assert next(epoch).batch_id == 0
        with pytest.raises(IncompleteEpochError, match="missing batch ids 1"):
            next(epoch)


# ---- one reader protocol, one transform (issue 29) ------------------------------------------------------------

def tag(msg):
    """A transform whose result says it ran: (epoch, batch_id) of the message."""
    return ("seen", msg.epoch, msg.batch_id)


def one_epoch_ring(tmp_path, batches=3):
    (w0,) = ring_writers(tmp_path, 1)
    for b in range(batches):
        w0.try_write(blob(0, b, batches), epoch=0, batch_id=b, num_batches=batches)
    w0.set_state(shm.STATE_ENDED)


def open_readers(tmp_path, servers, **options):
    """Each of the three readers over epoch 0's batches 0, 1, 2, opened with ``options``."""
    from fanout_client import ChannelClient
    files = tmp_path / "files"
    files.mkdir()
    write_records(files / "part-0.samples", [blob(0, b, 3) for b in (2, 0, 1)])
    one_epoch_ring(tmp_path)
    server = servers([(0, b, 3, blob(0, b, 3)) for b in range(3)], epoch_ends={3: 0})
    return {"files": read_samples(files, **options),
            "shm": ShmClient(tmp_path, "ch", timeout=1, **options),
            "channel": ChannelClient(endpoints=[server.address], connect_timeout=10, **options)}


@pytest.mark.parametrize("how", ["flat", "epochs"])
def test_every_reader_is_a_reader_and_applies_its_transform(tmp_path, servers, how):
    from fanout_client import Reader
    for name, reader in open_readers(tmp_path, servers, transform=tag).items():
        with reader:
            assert isinstance(reader, Reader), name
            if how == "flat":
                got = list(reader)
            else:
                got = [item for epoch in reader.epochs() for item in epoch]
        assert sorted(got) == [("seen", 0, b) for b in range(3)], name


def test_a_failed_batch_raises_before_the_transform_and_reading_goes_on(tmp_path):
    write_records(tmp_path / "part-0.samples", [blob(0, 0, 2), error_blob(0, 1, 2)])
    seen = []
    with read_samples(tmp_path, transform=lambda m: seen.append(m.batch_id) or m.batch_id) as it:
        assert next(it) == 0
        with pytest.raises(SamplingError):
            next(it)
        assert list(it) == []
    assert seen == [0]


@pytest.mark.parametrize("flag, replacement", [("as_pyg", "transform=fanout_client.to_pyg"),
                                               ("as_torch", "transform=fanout_client.to_torch"),
                                               ("pin_memory", r"transform=functools.partial\(fanout_client.to_torch, "
                                                              r"pin_memory=True\)")])
def test_an_old_flag_is_a_type_error_naming_the_transform(tmp_path, flag, replacement):
    from fanout_client import ChannelClient, ProcessPrefetcher, prefetch
    write_records(tmp_path / "part-0.samples", [blob(0, 0, 1)])
    one_epoch_ring(tmp_path)
    opens = [lambda: read_samples(tmp_path, **{flag: True}),
             lambda: SamplesReader(tmp_path, **{flag: True}),
             lambda: ShmClient(tmp_path, "ch", timeout=1, **{flag: True}),
             lambda: ChannelClient(endpoints=["127.0.0.1:1"], **{flag: True}),
             lambda: ProcessPrefetcher(lambda: [], **{flag: True}),
             lambda: prefetch(lambda: [], process=True, **{flag: True}),
             lambda: prefetch([], **{flag: True})]
    for open_reader in opens:
        with pytest.raises(TypeError, match=f"{flag}= is gone; pass {replacement}"):
            open_reader()
    with pytest.raises(TypeError, match="unexpected keyword argument 'as_numpy'"):
        read_samples(tmp_path, as_numpy=True)
    with pytest.raises(TypeError, match="transform must be a callable"):
        ShmClient(tmp_path, "ch", timeout=1, transform="to_pyg")
