"""prefetch(process=True): a reader iterated in a worker process hands over messages in shared memory
with the reader's stream, order, errors and bound, uint8 features dequantised, batches kept valid."""

import functools
import os

import numpy as np
import pytest

import waits
from channel_server import EndpointServer, batches, wait_until
from fanout_client import (ChannelClient, ProcessPrefetcher, SamplesWriter, SamplingError, encode, prefetch,
                           read_samples)
from test_reader_contract import blob, error_blob, write_records

I64 = np.int64


def quantised_blob(epoch, batch_id, num_batches, rows=40, dim=9):
    """A message with uint8 features and their per-column scale/offset, as the job's --feature-dtype uint8."""
    rng = np.random.default_rng(100 * epoch + batch_id)
    return encode({"ids": np.arange(rows, dtype=I64) + 1000 * batch_id,
                   "nfeats": rng.integers(0, 256, (rows, dim), dtype=np.uint8),
                   "#META.nfeats_scale": rng.random(dim, dtype=np.float32),
                   "#META.nfeats_offset": rng.random(dim, dtype=np.float32) - 0.5,
                   "nlabels": rng.integers(-1, 7, rows).astype(I64),
                   "#META.epoch": np.array([epoch], dtype=I64), "#META.batch_id": np.array([batch_id], dtype=I64),
                   "#META.num_batches": np.array([num_batches], dtype=I64)})


def dequantised(msg):
    return msg["#META.nfeats_offset"] + msg["#META.nfeats_scale"] * msg["nfeats"].astype(np.float32)


def test_files_come_through_dequantised_in_the_readers_order_and_stay_valid_while_kept(tmp_path):
    with SamplesWriter(tmp_path / "part-0.samples") as writer:
        for b in range(12):
            writer.write(quantised_blob(b // 4, b % 4, 4, rows=30 + 7 * b))  # sizes vary: buffers grow
    direct = list(read_samples(tmp_path))
    kept = list(prefetch(functools.partial(read_samples, tmp_path), depth=2, process=True))
    assert [(m.epoch, m.batch_id, m.num_batches) for m in kept] == [(m.epoch, m.batch_id, m.num_batches)
                                                                   for m in direct]
    for got, want in zip(kept, direct):  # all 12 held at once: no buffer was reused under them
        assert got["nfeats"].dtype == np.float32
        np.testing.assert_array_equal(got["nfeats"], dequantised(want))
        assert "#META.nfeats_scale" not in got and "#META.nfeats_offset" not in got
        np.testing.assert_array_equal(got["ids"], want["ids"])
        np.testing.assert_array_equal(got["nlabels"], want["nlabels"])
        assert got["ids"].flags.writeable and got["ids"].ctypes.data % 64 == 0


def test_buffers_go_back_to_the_worker_when_the_loop_drops_its_batches(tmp_path):
    with SamplesWriter(tmp_path / "part-0.samples") as writer:
        for b in range(40):
            writer.write(quantised_blob(0, b, 40))
    it = ProcessPrefetcher(functools.partial(read_samples, tmp_path), depth=2)
    sums = [float(m["nfeats"].sum()) for m in it]  # each message dropped before the next arrives
    assert sums == [float(dequantised(m).sum()) for m in read_samples(tmp_path)]
    # 40 messages through a handful of reused buffers (read ahead + the one in use + one being returned)
    assert len(it._maps) <= 2 + 3


def test_float16_features_widened_to_float32_unless_x_dtype_is_none(tmp_path):
    x = np.arange(12, dtype=np.float16).reshape(4, 3) / 8
    write_records(tmp_path / "part-0.samples", [encode({"nfeats": x, "#META.epoch": np.array([0], dtype=I64),
                                                        "#META.batch_id": np.array([0], dtype=I64),
                                                        "#META.num_batches": np.array([1], dtype=I64)})])
    [wide] = prefetch(functools.partial(read_samples, tmp_path), process=True)
    assert wide["nfeats"].dtype == np.float32 and wide["nfeats"].tolist() == x.astype(np.float32).tolist()
    [kept] = prefetch(functools.partial(read_samples, tmp_path), process=True, x_dtype=None)
    assert kept["nfeats"].dtype == np.float16 and kept["nfeats"].tolist() == x.tolist()


def test_a_sampling_error_reaches_the_loop_where_it_was_in_the_stream(tmp_path):
    write_records(tmp_path / "part-0.samples", [blob(0, 0, 3), error_blob(0, 1, 3), blob(0, 2, 3)])
    got = []
    with pytest.raises(SamplingError, match="boom") as raised:
        for m in prefetch(functools.partial(read_samples, tmp_path), process=True):
            got.append(m.batch_id)
    assert got == [0]  # batch 2 was not handed out before the error
    assert (raised.value.epoch, raised.value.batch_id) == (0, 1)  # rebuilt with its attributes
    assert any("prefetch worker process" in note for note in raised.value.__notes__)


def test_reads_at_most_depth_ahead_of_the_loop(tmp_path):
    produced = tmp_path / "produced"

    def source():
        for i in range(50):
            with open(produced, "a") as f:
                f.write(f"{i}\n")
            yield {"i": np.array([i], dtype=I64)}

    it = prefetch(source, depth=3, process=True)
    assert int(next(it)["i"][0]) == 0
    # depth messages handed over ahead plus the one the worker holds while waiting to hand it over: the
    # worker reads the next only once the consumer takes one, so it stops there
    waits.wait_until("the worker read 1 + 3 + 1 messages", lambda: len(produced.read_text().split()) >= 1 + 3 + 1)
    assert len(produced.read_text().split()) == 1 + 3 + 1
    assert [int(m["i"][0]) for m in it] == list(range(1, 50))


def test_close_stops_the_worker_and_the_worker_closes_its_reader(tmp_path):
    closed = tmp_path / "closed"

    class Endless:
        def __iter__(self):
            i = 0
            while True:
                yield {"i": np.array([i], dtype=I64)}
                i += 1

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            closed.write_text("yes")

    it = ProcessPrefetcher(Endless, depth=2)
    assert int(next(it)["i"][0]) == 0
    it.close()
    assert not it._process.is_alive()
    assert closed.read_text() == "yes"
    with pytest.raises(StopIteration):
        next(it)


def test_a_worker_that_dies_is_reported_with_its_exit_code():
    def dying():
        yield {"i": np.array([0], dtype=I64)}
        os._exit(3)

    it = prefetch(dying, process=True)
    assert int(next(it)["i"][0]) == 0
    with pytest.raises(RuntimeError, match=r"prefetch worker process exited \(code 3\)"):
        next(it)


def test_options_are_validated():
    with pytest.raises(ValueError, match="depth must be at least 1, got 0"):
        prefetch(list, depth=0, process=True)
    with pytest.raises(TypeError, match="needs a callable that opens the reader in the worker"):
        prefetch([1, 2], process=True)
    with pytest.raises(ValueError, match="x_dtype must be 'float32' or None, got 'float64'"):
        prefetch(list, process=True, x_dtype="float64")
    with pytest.raises(TypeError, match="x_dtype: only with process=True"):
        prefetch([], x_dtype=None)


def test_a_live_channel_through_a_worker_process_gives_every_message_once(tmp_path):
    registry = tmp_path / "registry"
    sent = {i: batches(i, 9) for i in range(2)}
    servers = [EndpointServer(sent[i], index=i, num_endpoints=2, registry=registry).start() for i in range(2)]
    try:
        open_client = functools.partial(ChannelClient, registry=registry, prefetch=2, connect_timeout=10)
        received = [(m.endpoint, m.batch_id, int(m["ids"][0])) for m in prefetch(open_client, depth=2, process=True)]
        assert sorted(received) == sorted((i, b, 1000 * i + 10 * b) for i in sent for (_, b, _, _) in sent[i])
        assert wait_until(lambda: all(s.max_outstanding <= 0 for s in servers))
    finally:
        for s in servers:
            s.close()


def test_worker_cpus_pin_the_worker_only():
    def affinity():
        yield {"cpus": np.array(sorted(os.sched_getaffinity(0)), dtype=I64)}

    mine = os.sched_getaffinity(0)
    [msg] = prefetch(affinity, process=True, worker_cpus={min(mine)})
    assert msg["cpus"].tolist() == [min(mine)]
    assert os.sched_getaffinity(0) == mine  # the trainer's own affinity is untouched
