"""ChannelClient against an in-test Python server side of channel-protocol.md (tests/channel_server.py).

Real TCP sockets on localhost and real registry files; the real Java endpoint (ChannelSink) is
exercised against this client by the project's integration tests.
"""

import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from channel_server import (ERROR, FETCH, WELCOME, EndpointServer, batches, free_port, read_frame,
                            sample_blob, send_frame, wait_until, write_registry_file)
from fanout_client import (ChannelClient, ChannelError, ChannelStallError, ChannelTimeoutError, SamplingError, decode,
                           encode)


def test_pulls_every_message_from_every_endpoint_of_a_registry(tmp_path, servers):
    registry = tmp_path / "registry"
    sent = {i: batches(i, 7) for i in range(3)}
    for i in range(3):
        servers(sent[i], index=i, num_endpoints=3, registry=registry)

    with ChannelClient(registry=registry, prefetch=2, connect_timeout=10) as client:
        received = list(client)

    assert client.num_endpoints == 3
    assert sorted((m.endpoint, m.batch_id) for m in received) == sorted(
        (i, b) for i in sent for (_, b, _, _) in sent[i])
    for msg in received:
        expected = decode(sample_blob(0, msg.batch_id, msg.endpoint))
        assert msg.epoch == 0 and msg.num_batches == 7
        assert int(msg["#META.batch_id"]) == msg.batch_id
        assert list(msg) == list(expected)
        for name in expected:
            np.testing.assert_array_equal(msg[name], expected[name])
    # Messages of one endpoint arrive in the order it sent them.
    for i in sent:
        assert [m.batch_id for m in received if m.endpoint == i] == [b for (_, b, _, _) in sent[i]]


def credits_arrived(server, client, endpoint=0):
    """Waits until ``server`` has every credit ``client`` granted it: it can send no more than those."""
    return wait_until(lambda: sum(server.fetches) == client.credits()[endpoint][0])


def test_credits_are_prefetch_then_one_per_consumed_message(servers):
    server = servers(batches(0, 10))
    client = ChannelClient(endpoints=[server.address], prefetch=3, prefetch_bytes=0, connect_timeout=10)
    iterator = iter(client)
    assert wait_until(lambda: server.sent == 3)
    assert credits_arrived(server, client)
    assert server.sent == 3 and server.fetches == [3]  # nothing consumed: no more credits

    next(iterator), next(iterator)
    assert wait_until(lambda: server.sent == 5)
    assert credits_arrived(server, client)
    assert server.sent == 5 and server.fetches == [3, 1, 1]

    rest = list(iterator)
    assert len(rest) == 8
    assert server.max_outstanding <= 0  # the server never had to send beyond the credits
    assert server.fetches[0] == 3 and set(server.fetches[1:]) == {1}
    assert client.credits()[0][1] == 10


def test_a_wide_window_is_acknowledged_in_batches_of_sixteen_while_messages_are_buffered(servers):
    # An endpoint holds at most its capacity (64 by default) counting unacknowledged messages: a client
    # that kept its acks until half of a 64-message window was consumed, or until it ran dry, would stop
    # an endpoint at that capacity while it works through what it received.
    server = servers(batches(0, 80))
    client = ChannelClient(endpoints=[server.address], prefetch=64, prefetch_bytes=0, connect_timeout=10)
    iterator = iter(client)
    assert wait_until(lambda: server.sent == 64)  # the whole window is in the client's socket: no waiting
    for _ in range(16):
        next(iterator)
    assert wait_until(lambda: len(server.acks) == 16), f"acks arrived: {len(server.acks)} after 16 consumed"
    assert server.acks == list(range(1, 17))
    assert wait_until(lambda: server.sent == 80)  # credits for 16 more: every message is in the socket
    for _ in range(15):
        next(iterator)
    assert len(server.acks) == 16  # the next batch goes with the 32nd
    rest = list(iterator)
    assert len(rest) == 80 - 31 and sorted(server.acks) == list(range(1, 81))


def sized_batches(sizes):
    """One endpoint's messages whose blobs are about ``sizes[i]`` bytes each."""
    out = []
    for b, size in enumerate(sizes):
        blob = encode({"x": np.zeros(max(1, size // 8), dtype=np.int64),
                       "#META.epoch": np.array(0, dtype=np.int64), "#META.batch_id": np.array(b, dtype=np.int64)})
        out.append((0, b, len(sizes), blob))
    return out


def test_small_messages_widen_the_window_to_prefetch_bytes(servers):
    messages = sized_batches([1000] * 40)
    size = len(messages[0][3])
    server = servers(messages)
    client = ChannelClient(endpoints=[server.address], prefetch=2, prefetch_bytes=10 * size, connect_timeout=10)
    iterator = iter(client)
    assert wait_until(lambda: server.sent == 2)
    next(iterator)  # the first size seen: 10 of them fit in prefetch_bytes, 8 more credits at once
    assert wait_until(lambda: server.sent == 10)
    assert credits_arrived(server, client)
    # The consumed message's own credit goes back with the next batch of acks (half the window).
    assert client.credits()[0][0] == 10 and server.sent == 10, "the window is prefetch_bytes of messages, no more"
    rest = list(iterator)
    assert len(rest) == 39
    assert server.max_outstanding <= 0
    assert max(server.fetches) == 8  # the window grew once, from 2 to 10, in one FETCH


def test_window_shrinks_back_to_prefetch_when_messages_grow(servers):
    server = servers(sized_batches([1000] * 4 + [16000] * 40))
    small = len(sized_batches([1000])[0][3])
    client = ChannelClient(endpoints=[server.address], prefetch=2, prefetch_bytes=8 * small, connect_timeout=10)
    iterator = iter(client)
    consumed = 0
    for _ in range(30):
        next(iterator)
        consumed += 1
    assert credits_arrived(server, client)
    assert client.credits()[0][0] - consumed <= 2, "large messages: back to prefetch, the kept-back credits were not returned"
    assert server.sent - consumed <= 2
    assert len(list(iterator)) == 44 - consumed
    assert server.max_outstanding <= 0


def test_prefetch_bytes_is_validated():
    with pytest.raises(ValueError, match="prefetch_bytes"):
        ChannelClient(endpoints=["a:1"], prefetch_bytes=-1)


def test_client_rejects_a_server_that_ignores_credits(servers):
    server = servers(batches(0, 6), ignore_credits=True)
    # prefetch_bytes=0: two credits at first, one more per message handed out.
    with ChannelClient(endpoints=[server.address], prefetch=2, prefetch_bytes=0, connect_timeout=10) as client:
        iterator = iter(client)
        assert wait_until(lambda: server.sent >= 6)
        handed_out = 0
        with pytest.raises(ChannelError, match=r"sent MESSAGE \d+ but only \d+ credits were granted") as err:
            for _ in iterator:
                handed_out += 1
    # Which MESSAGE breaks the limit depends on how much of the burst one read took in (a frame
    # larger than the read-ahead is received on its own, and handing it out grants a credit);
    # what must hold: the first MESSAGE past the credits is the one reported, and no message past
    # the granted ones reached the trainer.
    received, granted = map(int, re.search(r"MESSAGE (\d+) but only (\d+)", str(err.value)).groups())
    assert received == granted + 1
    assert 2 <= granted < 6 and handed_out <= granted
    assert server.address in str(err.value)


def test_endpoint_with_end_of_stream_at_once(servers):
    empty = servers([], index=0, num_endpoints=2)
    full = servers(batches(1, 4), index=1, num_endpoints=2)
    with ChannelClient(endpoints=[empty.address, full.address], connect_timeout=10) as client:
        received = list(client)
    assert [m.batch_id for m in received] == [100, 101, 102, 103]
    assert {m.endpoint for m in received} == {1}
    assert empty.finished.is_set() and empty.sent == 0


def test_error_frame_surfaces_the_server_text_and_endpoint(servers):
    server = servers(batches(0, 5), index=0, error_after=2, error_text="sampling failed: node 42 missing")
    received = []
    with ChannelClient(endpoints=[server.address], connect_timeout=10) as client:
        with pytest.raises(ChannelError) as err:
            for msg in client:
                received.append(msg)
    assert len(received) == 2
    assert err.value.server_text == "sampling failed: node 42 missing"
    assert "sampling failed: node 42 missing" in str(err.value)
    assert f"endpoint 0 ({server.address})" in str(err.value)


def test_bad_token_is_refused_with_the_server_text(servers):
    server = servers(batches(0, 1), token="s3cret")
    with pytest.raises(ChannelError, match="bad access token"):
        ChannelClient(endpoints=[server.address], token="wrong", connect_timeout=10).connect()
    with ChannelClient(endpoints=[server.address], token="s3cret", connect_timeout=10) as client:
        assert len(list(client)) == 1
    assert server.hellos == [(3, "wrong", 0), (3, "s3cret", 0)]


def test_the_token_comes_from_the_registry_file(tmp_path, servers):
    registry = tmp_path / "registry"
    server = servers(batches(0, 2), registry=registry, token="from-registry")
    with ChannelClient(registry=registry, connect_timeout=10) as client:
        assert len(list(client)) == 2
    assert server.hellos[0][1] == "from-registry"


def test_a_dropped_connection_is_resumed_and_nothing_is_lost_or_repeated(servers):
    server = servers(batches(0, 8), drop_after=3)
    with ChannelClient(endpoints=[server.address], prefetch=2, connect_timeout=10, reconnect_timeout=10) as client:
        received = [m.batch_id for m in client]
    assert received == list(range(8))
    assert server.connections == 2
    assert server.hellos[1][2] == EndpointServer.SESSION  # the client resumed its session
    # Every message acknowledged once consumed; one the server sends again after the drop because its
    # ack had not arrived yet is acknowledged again (channel-protocol.md, lost connection), so compare sets.
    assert set(server.acks) == set(range(1, 9))


def test_an_endpoint_that_stays_away_fails_within_the_reconnect_timeout(servers):
    server = servers(batches(0, 8), drop_after=2)
    client = ChannelClient(endpoints=[server.address], prefetch=1, connect_timeout=10, reconnect_timeout=0.5)
    client.connect()
    server.close()  # no new connections; the current one is cut after 2 messages
    started = time.monotonic()
    with pytest.raises(ChannelError, match="not re-established within 0.5s"):
        list(client)
    assert time.monotonic() - started < 10


def test_copies_resent_by_a_new_session_are_dropped(servers):
    # The server forgets the session (a restarted endpoint): it sends again from the oldest
    # unacknowledged message, and the client drops what it already handed out.
    server = servers(batches(0, 6), drop_after=4)
    server.SESSION = 0x1111
    original = server._conversation

    def forgetful(conn):
        original(conn)
        server.SESSION += 1  # the next connection gets a new session id

    server._conversation = forgetful
    with ChannelClient(endpoints=[server.address], prefetch=4, connect_timeout=10) as client:
        got = [m.batch_id for m in client]
    assert got == list(range(6))


def read_epochs(client, after, then, check=lambda: True):
    """(epoch, batch_id) of every message of ``client.epochs()``, each in its epoch; calls ``then()``
    once ``after`` messages are read and asserts ``check()`` after each one."""
    seen = []
    for epoch in client.epochs():
        for msg in epoch:
            assert msg.epoch == epoch.epoch
            seen.append((msg.epoch, msg.batch_id))
            if len(seen) == after:
                then()
            assert check()
    return seen


def test_epochs_end_with_end_of_epoch_and_early_messages_wait_for_their_epoch(servers):
    # Endpoint 0 has epoch 1 messages before endpoint 1 finished epoch 0: they wait at endpoint 0,
    # which learns from FETCH that the client reads epoch 0. Endpoint 1 has nothing in epoch 1 and
    # says so at once.
    e0 = [(0, 0, 4, sample_blob(0, 0)), (0, 1, 4, sample_blob(0, 1)),
          (1, 0, 4, sample_blob(1, 0)), (1, 1, 4, sample_blob(1, 1))]
    e1 = [(0, 2, 4, sample_blob(0, 2, 1)), (0, 3, 4, sample_blob(0, 3, 1))]
    hold = threading.Event()
    a = servers(e0, index=0, num_endpoints=2, epoch_ends={2: 0})
    b = servers(e1, index=1, num_endpoints=2, hold=hold, epoch_ends={2: 1})
    threading.Timer(10.0, hold.set).start()
    def lagging():  # endpoint 0 has the client's credits and knows it reads epoch 0
        assert wait_until(lambda: a.limits and a.limits[-1] == 0 and sum(a.fetches) == client.credits()[0][0])
        assert a.sent == 2 and a.limits[-1] == 0  # epoch 1 waits at its endpoint
        hold.set()

    with ChannelClient(endpoints=[a.address, b.address], prefetch=1, prefetch_bytes=0, connect_timeout=10) as client:
        seen = read_epochs(client, 2, lagging)
    assert seen[:4] and sorted(seen[:4]) == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert seen[4:] == [(1, 0), (1, 1)]


@pytest.mark.parametrize("server_honours_the_epoch", [True, False])
def test_an_endpoint_an_epoch_ahead_does_not_grow_what_the_client_holds(servers, server_honours_the_epoch):
    # Endpoint 0 has its 3 messages of epoch 0 and 30 of epoch 1 while endpoint 1 has not produced
    # its epoch 0 yet. A window of 2 per endpoint: the client never holds more than 2 x 2 messages.
    # An endpoint that honours FETCH max_epoch keeps epoch 1 until the client reads it; one that
    # ignores it gets no credit back for what the client holds back.
    e0 = batches(0, 3) + [(1, b, 30, sample_blob(1, b)) for b in range(30)]
    hold = threading.Event()
    a = servers(e0, index=0, num_endpoints=2, epoch_ends={3: 0, 33: 1},
                ignore_epoch_limit=not server_honours_the_epoch)
    b = servers(batches(1, 3), index=1, num_endpoints=2, hold=hold, epoch_ends={3: 0})
    threading.Timer(10.0, hold.set).start()
    bound = 2 * 2 * len(sample_blob(1, 0))

    def lagging():  # endpoint 0's epoch 0 is read, endpoint 1 lags
        sent = 3 if server_honours_the_epoch else 3 + 2
        # Endpoint 0 has every credit the client granted (the window and one per consumed message) and knows
        # the client reads epoch 0: what it sent by then is all it can send.
        assert wait_until(lambda: a.sent == sent and a.limits[-1] == 0 and sum(a.fetches) == client.credits()[0][0])
        assert client.credits()[0][0] == 2 + 3
        assert a.sent == sent
        hold.set()

    with ChannelClient(endpoints=[a.address, b.address], prefetch=2, prefetch_bytes=0, connect_timeout=10) as client:
        seen = read_epochs(client, 3, lagging, check=lambda: client.held_bytes <= bound)
        assert 0 < client.peak_held_bytes <= bound and client.held_bytes == 0
    assert sorted(seen[:6]) == [(0, 0), (0, 1), (0, 2), (0, 100), (0, 101), (0, 102)]
    assert seen[6:] == [(1, b) for b in range(30)]  # epoch 1 after epoch 0, each once, in order


def test_a_sampling_error_raises_with_the_job_text_and_reading_goes_on(servers):
    error_blob = encode({"#SAMPLING_ERROR": np.frombuffer(b"Traceback: boom", dtype=np.uint8),
                         "#META.epoch": np.array([0]), "#META.batch_id": np.array([1])})
    server = servers([(0, 0, 3, sample_blob(0, 0)), (0, 1, 3, error_blob), (0, 2, 3, sample_blob(0, 2))])
    got = []
    with ChannelClient(endpoints=[server.address], connect_timeout=10) as client:
        iterator = iter(client)
        got.append(next(iterator).batch_id)
        with pytest.raises(SamplingError) as err:
            next(iterator)
        got.extend(m.batch_id for m in iterator)
    assert err.value.server_text == "Traceback: boom" and err.value.batch_id == 1 and err.value.epoch == 0
    assert "boom" in str(err.value)
    assert got == [0, 2]


def test_a_telemetry_line_every_n_messages(servers, caplog):
    server = servers(batches(0, 6))
    with caplog.at_level("INFO", logger="fanout_client.channel"):
        with ChannelClient(endpoints=[server.address], connect_timeout=10, log_every=3) as client:
            list(client)
    lines = [r.getMessage() for r in caplog.records if "messages received" in r.getMessage()]
    assert len(lines) == 2
    assert lines[0].startswith("channel: 3 messages received") and "waited" in lines[0] and "queue depth" in lines[0]


def test_oversized_frame_is_a_protocol_error_reported_to_the_server():
    # A raw server: WELCOME, then only the 4-byte length of a 1 GiB frame; it then reads what the
    # client says (the whole exchange is in this test, so nothing races).
    listener = socket.create_server(("127.0.0.1", 0))
    heard = []

    def serve():
        conn, _ = listener.accept()
        with conn:
            read_frame(conn)  # HELLO
            send_frame(conn, WELCOME, struct.pack("<HIIQB", 3, 0, 1, 7, 0))
            heard.append(read_frame(conn))  # FETCH: the window, epoch 0
            heard.append(read_frame(conn))  # FETCH: any epoch (the client iterates flat)
            conn.sendall(struct.pack("<I", 1 << 30))
            heard.append(read_frame(conn))  # ERROR

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    with ChannelClient(endpoints=[address], connect_timeout=10, max_frame_bytes=1 << 20) as client:
        with pytest.raises(ChannelError, match="exceeds the 1048576-byte limit"):
            list(client)
    thread.join(5)
    listener.close()
    assert heard[0] == (FETCH, struct.pack("<IQi", 4, 0, 0))
    assert heard[1] == (FETCH, struct.pack("<IQi", 0, 0, 0x7FFFFFFF))
    assert heard[2][0] == ERROR and b"exceeds the 1048576-byte limit" in heard[2][1]


def test_slow_endpoint_does_not_block_the_others(servers):
    hold = threading.Event()
    slow = servers(batches(0, 3), index=0, num_endpoints=2, hold=hold)
    fast = servers(batches(1, 10), index=1, num_endpoints=2)
    threading.Timer(10.0, hold.set).start()  # unblock eventually even if the client is wrong
    with ChannelClient(endpoints=[slow.address, fast.address], prefetch=2, connect_timeout=10) as client:
        iterator = iter(client)
        first = [next(iterator) for _ in range(10)]
        assert hold.is_set() is False  # all ten arrived while the slow endpoint was stalled
        hold.set()
        rest = list(iterator)
    assert [m.endpoint for m in first] == [1] * 10
    assert [m.endpoint for m in rest] == [0] * 3


def test_endpoint_that_never_comes_up_times_out_naming_it(tmp_path, servers):
    registry = tmp_path / "registry"
    servers(batches(0, 2), index=0, num_endpoints=2, registry=registry)
    dead_port = free_port()
    write_registry_file(registry, 1, 2, dead_port, "serving")
    started = time.monotonic()
    with pytest.raises(ChannelTimeoutError) as err:
        ChannelClient(registry=registry, connect_timeout=1.0).connect()
    assert time.monotonic() - started < 5
    assert f"endpoint 1 (127.0.0.1:{dead_port})" in str(err.value)
    assert "endpoint 0" not in str(err.value)
    assert err.value.missing == [f"endpoint 1 (127.0.0.1:{dead_port})"]


def test_endpoint_list_timeout_names_every_silent_endpoint(servers):
    live = servers(batches(0, 1), index=0, num_endpoints=3)
    dead = [f"127.0.0.1:{free_port()}", f"127.0.0.1:{free_port()}"]
    with pytest.raises(ChannelTimeoutError) as err:
        ChannelClient(endpoints=[live.address, *dead], connect_timeout=0.5).connect()
    for address in dead:
        assert address in str(err.value)
    assert live.address not in str(err.value)


def test_registry_missing_an_endpoint_file_times_out_naming_it(tmp_path, servers):
    registry = tmp_path / "registry"
    servers(batches(0, 1), index=0, num_endpoints=3, registry=registry)
    with pytest.raises(ChannelTimeoutError) as err:
        ChannelClient(registry=registry, connect_timeout=0.5).connect()
    assert "endpoint-1.json, endpoint-2.json did not appear" in str(err.value)
    assert "num_endpoints=3" in str(err.value)


def test_empty_registry_times_out(tmp_path):
    with pytest.raises(ChannelTimeoutError, match="no endpoint-\\*.json file appeared"):
        ChannelClient(registry=tmp_path, connect_timeout=0.3).connect()


def test_registry_waits_for_endpoints_that_appear_late(tmp_path, servers):
    registry = tmp_path / "registry"
    servers(batches(0, 2), index=0, num_endpoints=2, registry=registry)
    late = []
    threading.Timer(0.5, lambda: late.append(
        servers(batches(1, 2), index=1, num_endpoints=2, registry=registry))).start()
    with ChannelClient(registry=registry, connect_timeout=10) as client:
        received = list(client)
    assert sorted(m.batch_id for m in received) == [0, 1, 100, 101]


def test_registry_finished_endpoint_is_done(tmp_path, servers):
    registry = tmp_path / "registry"
    servers(batches(0, 3), index=0, num_endpoints=2, registry=registry)
    write_registry_file(registry, 1, 2, free_port(), "finished")  # nothing listens there any more
    with ChannelClient(registry=registry, connect_timeout=5) as client:
        received = list(client)
    assert [m.batch_id for m in received] == [0, 1, 2]


def test_refused_endpoint_whose_file_turns_finished_is_done(tmp_path, servers):
    registry = tmp_path / "registry"
    servers(batches(0, 2), index=0, num_endpoints=2, registry=registry)
    port = free_port()
    write_registry_file(registry, 1, 2, port, "serving")
    threading.Timer(0.3, write_registry_file, args=(registry, 1, 2, port, "finished")).start()
    with ChannelClient(registry=registry, connect_timeout=10) as client:
        received = list(client)
    assert [m.batch_id for m in received] == [0, 1]


def test_late_client_of_a_finished_endpoint_gets_end_of_stream(servers):
    server = servers(batches(0, 2))
    with ChannelClient(endpoints=[server.address], connect_timeout=10) as first:
        assert len(list(first)) == 2
    # Within the linger period the endpoint still answers: WELCOME, then END_OF_STREAM.
    with ChannelClient(endpoints=[server.address], connect_timeout=10) as late:
        assert list(late) == []


def test_close_mid_stream_stops_iteration(servers):
    server = servers(batches(0, 50))
    client = ChannelClient(endpoints=[server.address], prefetch=2, connect_timeout=10)
    iterator = iter(client)
    next(iterator)
    client.close()
    assert list(iterator) == []


def test_an_endpoint_process_stopped_mid_epoch_raises_a_stall_error_naming_it(tmp_path):
    # A real process (the test server) that went idle after 3 of its 10 epoch-0 messages, sending
    # heartbeats: idle for longer than the stall timeout is fine; stopped (SIGSTOP) is not.
    registry = tmp_path / "registry"
    tests = Path(__file__).resolve().parent
    server = subprocess.Popen(
        [sys.executable, str(tests / "channel_server.py"), "--registry", str(registry), "--count", "10",
         "--heartbeat", "0.2", "--pause", "3:600"],
        env={**os.environ, "PYTHONPATH": str(tests.parent)})
    try:
        with ChannelClient(registry=registry, prefetch=2, connect_timeout=20, stall_timeout=1.0) as client:
            messages = iter(client)
            assert [next(messages).batch_id for _ in range(3)] == [0, 1, 2]
            threading.Timer(2.5, os.kill, (server.pid, signal.SIGSTOP)).start()
            started = time.monotonic()
            with pytest.raises(ChannelStallError) as stalled:
                next(messages)
            waited = time.monotonic() - started
        # Idle 2.5 s without a stall, then a stall 1 s after the last heartbeat, which came up to one
        # heartbeat interval (0.2 s) before the stop.
        assert 2.5 + 1.0 - 0.2 - 0.05 <= waited < 2.5 + 3.0
        assert stalled.value.endpoint == f"endpoint 0 (127.0.0.1:{server_port(registry)})"
        assert stalled.value.last_frame == "HEARTBEAT" and 1.0 <= stalled.value.seconds < 2.0
        assert re.search(r"endpoint 0 \(127\.0\.0\.1:\d+\): sent nothing for 1\.\ds .*the last frame it sent "
                         r"was HEARTBEAT, 1\.\ds ago", str(stalled.value))
    finally:
        server.kill()
        server.wait()


def server_port(registry):
    import json
    return json.loads((registry / "endpoint-0.json").read_text())["port"]


def test_an_idle_endpoint_that_sends_heartbeats_does_not_stall(servers):
    # Idle for 3x the stall timeout between messages: heartbeats keep it alive.
    server = servers(batches(0, 6), heartbeat=0.1, pauses={2: 1.5, 4: 1.5})
    with ChannelClient(endpoints=[server.address], prefetch=2, connect_timeout=10, stall_timeout=0.5) as client:
        assert [m.batch_id for m in client] == list(range(6))
    assert server.heartbeats >= 20


def test_a_stall_in_the_middle_of_epoch_names_the_last_message(servers):
    # A server without heartbeats stops sending after message 1 (e.g. a hung version 2 endpoint).
    server = servers(batches(0, 6), pauses={2: 30.0})
    with ChannelClient(endpoints=[server.address], prefetch=2, connect_timeout=10, stall_timeout=0.5) as client:
        epoch = next(client.epochs())
        assert [next(epoch).batch_id for _ in range(2)] == [0, 1]
        with pytest.raises(ChannelStallError, match=r"the last frame it sent was MESSAGE \(epoch 0, batch 1\)"):
            next(epoch)


def test_argument_errors():
    with pytest.raises(ValueError, match="exactly one of"):
        ChannelClient()
    with pytest.raises(ValueError, match="exactly one of"):
        ChannelClient(registry="r", endpoints=["a:1"])
    with pytest.raises(ValueError, match="not host:port"):
        ChannelClient(endpoints=["localhost"])
    with pytest.raises(ValueError, match="prefetch"):
        ChannelClient(endpoints=["a:1"], prefetch=0)
    with pytest.raises(ValueError, match="stall_timeout"):
        ChannelClient(endpoints=["a:1"], stall_timeout=-1)
