"""prefetch(): a reader iterated on a background thread keeps the reader's stream, order, errors and bound."""

import os
import threading

import pytest

import waits
from channel_server import EndpointServer, batches, wait_until
from fanout_client import ChannelClient, Prefetcher, SamplingError, prefetch, read_samples
from test_reader_contract import blob, error_blob, write_records


def test_files_come_through_in_the_readers_order_on_another_thread(tmp_path):
    write_records(tmp_path / "part-b.samples", [blob(0, 2, 3), blob(1, 0, 1)])
    write_records(tmp_path / "part-a.samples", [blob(0, 1, 3), blob(0, 0, 3)])
    direct = [(m.epoch, m.batch_id) for m in read_samples(tmp_path)]
    threads = set()

    def tagged():
        for m in read_samples(tmp_path):
            threads.add(threading.current_thread().name)
            yield m

    assert [(m.epoch, m.batch_id) for m in prefetch(tagged())] == direct == [(0, 0), (0, 1), (0, 2), (1, 0)]
    assert threads == {"fanout-prefetch"}


def test_a_sampling_error_reaches_the_loop_where_it_was_in_the_stream(tmp_path):
    write_records(tmp_path / "part-0.samples", [blob(0, 0, 3), error_blob(0, 1, 3), blob(0, 2, 3)])
    got = []
    with pytest.raises(SamplingError, match="boom"):
        for m in prefetch(read_samples(tmp_path)):
            got.append(m.batch_id)
    assert got == [0]  # batch 2 was not handed out before the error


def test_reads_at_most_depth_ahead_of_the_loop():
    produced = []

    def source():
        for i in range(100):
            produced.append(i)
            yield i

    it = prefetch(source(), depth=3)
    assert next(it) == 0
    # depth items queued plus the one the thread holds while waiting to hand it over: the thread can
    # read the next only once the consumer takes one, so it stops there
    waits.wait_until("the thread read 1 + 3 + 1 items", lambda: len(produced) >= 1 + 3 + 1)
    assert len(produced) == 1 + 3 + 1
    assert list(it) == list(range(1, 100))


def test_close_stops_the_thread_and_drops_what_it_read_ahead():
    def endless():
        i = 0
        while True:
            yield i
            i += 1

    it = Prefetcher(endless(), depth=2)
    assert next(it) == 0
    it.close()
    assert not it._thread.is_alive()
    with pytest.raises(StopIteration):
        next(it)


def test_depth_is_validated():
    with pytest.raises(ValueError, match="depth must be at least 1, got 0"):
        prefetch([], depth=0)


def test_cpus_pin_the_prefetch_thread_and_not_the_loop():
    before = os.sched_getaffinity(0)
    cpu = max(before)
    seen = []

    def source():
        for i in range(3):
            seen.append(os.sched_getaffinity(0))  # runs on the prefetch thread
            yield i

    assert list(prefetch(source(), cpus=[cpu])) == [0, 1, 2]
    assert seen == [{cpu}] * 3
    assert os.sched_getaffinity(0) == before  # the training loop's thread keeps its CPUs
    if len(before) > 1:  # a loop pinned to one core first still gives the feed another
        other = min(before)
        try:
            os.sched_setaffinity(0, {other})
            seen.clear()
            assert list(prefetch(source(), cpus={cpu})) == [0, 1, 2]
            assert seen == [{cpu}] * 3
        finally:
            os.sched_setaffinity(0, before)


def test_cpus_outside_this_process_are_refused_up_front():
    with pytest.raises(ValueError, match=r"cpus \[1000000\] must be a non-empty subset of this machine's CPUs"):
        prefetch(iter([]), cpus={1_000_000})
    with pytest.raises(ValueError, match="non-empty"):
        prefetch(iter([]), cpus=[])
    with pytest.raises(TypeError, match="cpus or worker_cpus"):
        prefetch(lambda: iter([]), process=True, cpus={0}, worker_cpus={0})


def test_a_live_channel_through_prefetch_gives_every_message_once(tmp_path):
    registry = tmp_path / "registry"
    sent = {i: batches(i, 9) for i in range(2)}
    servers = [EndpointServer(sent[i], index=i, num_endpoints=2, registry=registry).start() for i in range(2)]
    try:
        with ChannelClient(registry=registry, prefetch=2, connect_timeout=10) as client:
            received = [(m.endpoint, m.batch_id) for m in prefetch(client, depth=2)]
        assert sorted(received) == sorted((i, b) for i in sent for (_, b, _, _) in sent[i])
        assert wait_until(lambda: all(s.max_outstanding <= 0 for s in servers))
    finally:
        for s in servers:
            s.close()
