"""The reconnect race of a killed endpoint (issue 27): until a restarted endpoint writes its new
registry file, the file names the dead endpoint's old address, and on one machine another process
may listen there meanwhile (a TaskManager's ephemeral ports come from the same range: another
endpoint of the channel, or some other server). The client used to wait for that process's answer
to HELLO until its whole reconnect deadline, or fail at the first wrong answer, so it never reached
the restarted endpoint and the job, whose endpoint waits for its unacknowledged messages, never
ended. Made deterministic with real sockets: endpoint 0 is killed mid-stream, something else takes
its port before the client's reconnect, the restarted endpoint 0 registers only once the client
has sent its HELLO to the stale address; the client must then get every batch exactly once."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from channel_server import EndpointServer, batches, wait_until
from fanout_client import ChannelClient


class SilentServer:
    """A foreign server on a given port: accepts connections, reads what they send, never answers."""

    def __init__(self, port: int):
        self.listener = socket.create_server(("127.0.0.1", port))
        self.received = b""
        self.connections = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections.append(conn)
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn):
        while True:
            try:
                data = conn.recv(65536)
            except OSError:
                return
            if not data:
                return
            self.received += data

    def saw_hello(self) -> bool:
        return len(self.received) > 5 and self.received[4] == 1  # u32 length, then frame type HELLO

    def close(self):
        self.listener.close()
        for conn in self.connections:
            conn.close()


class Reader(threading.Thread):
    def __init__(self, registry):
        super().__init__(daemon=True)
        self.client = ChannelClient(registry=registry, connect_timeout=10, reconnect_timeout=30, handshake_timeout=0.5,
                                    prefetch=2)
        self.keys = []
        self.error = None

    def run(self):
        try:
            with self.client:
                for msg in self.client:
                    self.keys.append((msg.epoch, msg.batch_id))
        except BaseException as e:  # reported by the test
            self.error = e


@pytest.mark.parametrize("squatter", ["silent-server", "endpoint-1"])
def test_client_reaches_the_restarted_endpoint_past_a_stale_registry_address(tmp_path, squatter):
    registry = tmp_path / "registry"
    endpoint_1 = EndpointServer(batches(1, 4), index=1, num_endpoints=2, registry=registry, heartbeat=0.2).start()
    # Endpoint 0 sends 3 of its 6 batches, then only heartbeats: killed there, mid-stream.
    old_0 = EndpointServer(batches(0, 6), index=0, num_endpoints=2, registry=registry, heartbeat=0.2,
                           pauses={3: 60}).start()
    stale_port = old_0.port
    reader = Reader(registry)
    reader.start()
    assert wait_until(lambda: sum(1 for _, b in reader.keys if b < 100) == 3, timeout=10), reader.keys

    # The kill: endpoint 0 stops listening; before the client learns of it, something else takes
    # its port (its registry file still names it), then the connection is cut.
    old_0.close()
    if squatter == "silent-server":
        other = SilentServer(stale_port)
        reached_it = other.saw_hello
    else:  # the channel's endpoint 1, restarted on the port endpoint 0 had
        other = EndpointServer(batches(1, 4), index=1, num_endpoints=2, port=stale_port, heartbeat=0.2).start()
        reached_it = lambda: bool(other.hellos)  # noqa: E731
    old_0.kill()
    try:
        # The controlled point: the client's reconnect sent HELLO to the stale address.
        assert wait_until(reached_it, timeout=10), "the client did not try the stale registry address"
        new_0 = EndpointServer(batches(0, 6), index=0, num_endpoints=2, registry=registry, heartbeat=0.2).start()
        started = time.monotonic()
        reader.join(timeout=15)
        assert not reader.is_alive(), f"the client did not reach the restarted endpoint 0 (got {len(reader.keys)})"
        assert reader.error is None, repr(reader.error)
        assert sorted(reader.keys) == sorted((0, b) for b in [*range(6), *range(100, 104)])  # each batch once
        assert new_0.sent == 6 and wait_until(new_0.finished.is_set)
        assert time.monotonic() - started < 10  # a handshake timeout or two, not the reconnect deadline
    finally:
        other.close()
        reader.client.close()
