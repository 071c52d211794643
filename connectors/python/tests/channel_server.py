"""A Python server side of the channel protocol v3 (docs/channel-protocol.md), just enough to test
the client: one endpoint per instance, its own framing code (not the client's), a registry file
(with the token), credit and acknowledgement accounting it records, one resumable session, END_OF_EPOCH
and HEARTBEAT frames, and knobs for the failure cases. ``python channel_server.py --help`` runs one
in a process of its own (for tests that stop it with SIGSTOP).

The real endpoint is the Java ChannelSink; the project's integration tests exercise the client
against it.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import socket
import ssl
import struct
import threading
import time
from pathlib import Path

import numpy as np

from fanout_client import encode
import waits

HELLO, WELCOME, FETCH, MESSAGE, END_OF_EPOCH, END_OF_STREAM, ERROR, HEARTBEAT = 1, 2, 3, 4, 5, 6, 7, 8


def sample_blob(epoch: int, batch_id: int, endpoint: int = 0) -> bytes:
    """A small GLT-style message whose content identifies it."""
    base = 1000 * endpoint + 10 * batch_id
    return encode({
        "ids": np.arange(base, base + 5, dtype=np.int64),
        "rows": np.array([1, 2, 3, 4], dtype=np.int64),
        "cols": np.array([0, 0, 1, 1], dtype=np.int64),
        "num_sampled_nodes": np.array([1, 2, 2], dtype=np.int64),
        "#META.epoch": np.array(epoch, dtype=np.int64),
        "#META.batch_id": np.array(batch_id, dtype=np.int64),
    })


def write_registry_file(registry: Path, index: int, num_endpoints: int, port: int, state: str,
                        token: str = "", tls: bool = False) -> None:
    """Atomically (temp + rename) write registry/endpoint-<index>.json, as the sink does."""
    registry = Path(registry)
    registry.mkdir(parents=True, exist_ok=True)
    info = {"version": 2, "index": index, "num_endpoints": num_endpoints, "host": "127.0.0.1",
            "port": port, "state": state, "token": token}
    if tls:
        info["tls"] = True
    temp = registry / f".endpoint-{index}.json.tmp"
    temp.write_text(json.dumps(info))
    os.replace(temp, registry / f"endpoint-{index}.json")


def free_port() -> int:
    """A port nothing listens on (bound then released), for endpoints that never come up."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _recv_exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError("client closed")
        data += chunk
    return data


# The endpoint's limit for client frames (a HELLO with the longest token), as in channel-protocol.md.
MAX_CLIENT_FRAME = 65548


def read_frame(sock):
    (length,) = struct.unpack("<I", _recv_exact(sock, 4))
    if length > MAX_CLIENT_FRAME:  # e.g. a TLS ClientHello sent to a plain endpoint
        raise ValueError(f"frame of {length} bytes exceeds the {MAX_CLIENT_FRAME}-byte limit")
    body = _recv_exact(sock, length)
    return body[0], body[1:]


def send_frame(sock, frame_type, body=b""):
    sock.sendall(struct.pack("<I", 1 + len(body)) + bytes([frame_type]) + body)


class EndpointServer:
    """One channel endpoint serving ``messages`` [(epoch, batch_id, num_batches, blob)] to clients.

    Records ``fetches`` (credit values received, but for FETCH frames that only set max_epoch),
    ``acks`` (seqs acknowledged), ``sent`` and
    ``max_outstanding`` (largest sent-minus-granted seen on a connection, must stay <= 0),
    ``client_errors`` (ERROR texts from clients), ``hellos`` ((version, token, session) per HELLO).
    Knobs: ``error_after`` (send ERROR ``error_text`` after that many messages), ``drop_after``
    (cut the connection once after that many messages; the unacknowledged ones are resent when the
    client resumes its session), ``hold`` (an Event to wait on before each message),
    ``ignore_credits`` (misbehave: send everything at once), ``token`` (required HELLO token),
    ``linger`` (seconds it keeps answering late clients with WELCOME + END_OF_STREAM),
    ``epoch_ends`` ({position: epoch}: send END_OF_EPOCH(epoch) once ``position`` messages are
    acknowledged), ``heartbeat`` (seconds: HEARTBEAT whenever nothing was sent that long; None =
    never, a server that stalls when idle), ``pauses`` ({position: seconds}: stay idle that long
    before sending message ``position`` for the first time, heartbeats going on),
    ``ignore_epoch_limit`` (misbehave: send messages of later epochs than the FETCH max_epoch),
    ``tls`` ((cert file, key file): serve TLS only, ``"tls": true`` in the registry; handshakes that
    fail are recorded in ``tls_failures``), ``host`` and ``port`` (the address to listen on; port 0: any).
    ``kill()`` stops it as a killed process would: no more listening, the open connection cut. Records ``limits`` (max_epoch of each FETCH).
    """

    SESSION = 0x5E55

    def __init__(self, messages, index=0, num_endpoints=1, registry=None, error_after=None,
                 error_text="sampler failed", drop_after=None, hold=None, ignore_credits=False, token="",
                 linger=2.0, epoch_ends=None, heartbeat=None, pauses=None, ignore_epoch_limit=False, tls=None,
                 host="127.0.0.1", port=0):
        self.messages = list(messages)
        self.index, self.num_endpoints, self.registry = index, num_endpoints, registry
        self.error_after, self.error_text, self.drop_after = error_after, error_text, drop_after
        self.hold, self.ignore_credits, self.token, self.linger = hold, ignore_credits, token, linger
        self.epoch_ends = dict(epoch_ends or {})
        self.heartbeat, self.pauses = heartbeat, dict(pauses or {})
        self.heartbeats = 0
        self.ignore_epoch_limit = ignore_epoch_limit
        self.limits: list[int] = []
        self.limit = 0x7FFFFFFF
        self._last_send = time.monotonic()
        self.fetches: list[int] = []
        self.acks: list[int] = []
        self.sent = 0            # MESSAGE frames written, resends included
        self.next_index = 0      # next message to send for the first time
        self.unacked: dict[int, int] = {}  # seq -> message index
        self.granted = 0
        self.max_outstanding = -1 << 30
        self.client_errors: list[str] = []
        self.hellos: list[tuple[int, str, int]] = []
        self.connections = 0
        self.finished = threading.Event()
        self.tls_context = None
        if tls is not None:
            self.tls_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.tls_context.load_cert_chain(*map(str, tls))
        self.tls_failures: list[str] = []
        self._listener = socket.create_server((host, port))
        self._conn = None
        self.port = self._listener.getsockname()[1]
        self.address = f"{host}:{self.port}"
        self._closed = False
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def start(self) -> "EndpointServer":
        if self.registry is not None:
            write_registry_file(self.registry, self.index, self.num_endpoints, self.port, "serving", self.token,
                                self.tls_context is not None)
        self._thread.start()
        return self

    def kill(self):
        """Stop listening and cut the open connection at once (its registry file stays as it was)."""
        self.close()
        conn = self._conn
        if conn is not None:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self._closed = True
        try:
            self._listener.close()
        except OSError:
            pass

    def _serve(self):
        # Serve clients one after another until the messages are delivered, then linger briefly
        # answering late clients with WELCOME + END_OF_STREAM (as the spec says).
        linger_until = None
        while not self._closed:
            try:
                self._listener.settimeout(0.2)
                conn, _ = self._listener.accept()
            except socket.timeout:
                if self.finished.is_set():
                    linger_until = linger_until or time.monotonic() + self.linger
                    if time.monotonic() >= linger_until:
                        break
                continue
            except OSError:
                break
            if self.tls_context is not None:
                try:
                    conn.settimeout(5)
                    conn = self.tls_context.wrap_socket(conn, server_side=True)
                    conn.settimeout(None)
                except (ssl.SSLError, OSError) as e:  # e.g. the client refused the certificate
                    self.tls_failures.append(str(e))
                    conn.close()
                    continue
            self._conn = conn
            with conn:
                try:
                    self._conversation(conn)
                except (EOFError, OSError):
                    pass
                except ValueError as e:  # garbage: ERROR and close, as the endpoint does
                    send_frame(conn, ERROR, f"protocol error: {e}".encode())
        self.close()

    def _send(self, conn, frame_type, body=b""):
        send_frame(conn, frame_type, body)
        self._last_send = time.monotonic()

    def _beat(self, conn):
        """HEARTBEAT if nothing was sent for the heartbeat interval; returns seconds to the next one."""
        if self.heartbeat is None:
            return None
        due = self._last_send + self.heartbeat - time.monotonic()
        if due <= 0:
            self._send(conn, HEARTBEAT)
            self.heartbeats += 1
            due = self.heartbeat
        return due

    def _idle(self, conn, seconds):
        """Send nothing but heartbeats for ``seconds``, still taking FETCH frames."""
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            self._poll_frames(conn, block=False)
            time.sleep(min(self._beat(conn) or 0.05, max(until - time.monotonic(), 0)))

    def _poll_frames(self, conn, block):
        """Read FETCH/ERROR frames; block until one arrives when ``block`` (heartbeating meanwhile)."""
        while True:
            # Bytes already decrypted by TLS are not seen by select.
            buffered = isinstance(conn, ssl.SSLSocket) and conn.pending() > 0
            ready = buffered or select.select([conn], [], [], self._beat(conn) if block else 0)[0]
            if not ready:
                if block:
                    continue
                return
            frame_type, body = read_frame(conn)
            if frame_type == FETCH:
                credits, ack, self.limit = struct.unpack("<IQi", body)
                self.limits.append(self.limit)
                if credits or ack:  # not one that only tells the epoch being read
                    self.fetches.append(credits)
                self.granted += credits
                if ack:
                    self.acks.append(ack)
                    self.unacked.pop(ack, None)
            elif frame_type == ERROR:
                self.client_errors.append(body.decode())
                raise EOFError("client sent ERROR")
            block = False

    def _eligible(self) -> bool:
        """Whether the next new message is of an epoch the client reads (FETCH max_epoch)."""
        return self.ignore_epoch_limit or self.messages[self.next_index][0] <= self.limit

    def _acknowledged(self) -> int:
        """Messages sent and acknowledged so far (in order)."""
        pending = min(self.unacked.values(), default=self.next_index)
        return min(pending, self.next_index)

    def _send_epoch_ends(self, conn, told):
        for position, epoch in sorted(self.epoch_ends.items()):
            if epoch > told[0] and self._acknowledged() >= position:
                self._send(conn, END_OF_EPOCH, struct.pack("<i", epoch))
                told[0] = epoch

    def _conversation(self, conn):
        frame_type, body = read_frame(conn)
        assert frame_type == HELLO, frame_type
        version, token_len = struct.unpack_from("<HH", body)
        token = body[4:4 + token_len].decode()
        session = struct.unpack_from("<Q", body, 4 + token_len)[0] if len(body) == 4 + token_len + 8 else 0
        self.hellos.append((version, token, session))
        if version != 3:
            send_frame(conn, ERROR, f"unsupported protocol version {version}".encode())
            return
        if token != self.token:
            send_frame(conn, ERROR, b"bad access token")
            return
        resumed = session == self.SESSION
        self._send(conn, WELCOME, struct.pack("<HIIQB", 3, self.index, self.num_endpoints, self.SESSION, resumed))
        self.connections += 1
        self.granted = 0
        sent_here = 0
        told = [-1]
        # A resumed session gets its unacknowledged messages again first (same seqs).
        resend = sorted(self.unacked.items()) if resumed else []
        if not resumed and self.unacked:  # a new session: what the old one held goes out again
            self.next_index = min([self.next_index, *self.unacked.values()])
            self.unacked.clear()
        while resend or self.next_index < len(self.messages):
            if self.error_after is not None and self.sent >= self.error_after:
                send_frame(conn, ERROR, self.error_text.encode())
                return
            if self.drop_after is not None and self.sent >= self.drop_after:
                self.drop_after = None  # once
                conn.shutdown(socket.SHUT_RDWR)
                return
            if not self.ignore_credits:
                self._poll_frames(conn, block=self.granted <= sent_here)
                # A FETCH may carry only an ack (0 credits); the next message waits for its epoch.
                while self.granted <= sent_here or not (resend or self._eligible()):
                    self._send_epoch_ends(conn, told)
                    self._poll_frames(conn, block=True)
            self._send_epoch_ends(conn, told)
            if self.hold is not None:
                self.hold.wait()
            if not resend and self.next_index in self.pauses:
                self._idle(conn, self.pauses.pop(self.next_index))
            if resend:
                seq, i = resend.pop(0)
            else:
                i = self.next_index
                self.next_index += 1
                seq = i + 1
            self.unacked[seq] = i
            epoch, batch_id, num_batches, blob = self.messages[i]
            self._send(conn, MESSAGE, struct.pack("<Qiii", seq, epoch, batch_id, num_batches) + blob)
            self.sent += 1
            sent_here += 1
            self.max_outstanding = max(self.max_outstanding, sent_here - self.granted)
        if self.error_after is not None and self.sent >= self.error_after:
            send_frame(conn, ERROR, self.error_text.encode())
            return
        while self.unacked:  # END_OF_STREAM only once everything is acknowledged
            self._poll_frames(conn, block=True)
            self._send_epoch_ends(conn, told)
        self._send_epoch_ends(conn, told)
        send_frame(conn, END_OF_STREAM)
        if self.registry is not None:
            write_registry_file(self.registry, self.index, self.num_endpoints, self.port, "finished", self.token,
                                self.tls_context is not None)
        self.finished.set()
        # Keep reading until the client hangs up, recording late FETCH frames.
        try:
            while True:
                self._poll_frames(conn, block=True)
        except (EOFError, OSError):
            pass


def batches(endpoint: int, count: int, epoch: int = 0):
    """``count`` messages of one endpoint: batch ids endpoint, endpoint + 100, ..."""
    return [(epoch, endpoint * 100 + b, count, sample_blob(epoch, endpoint * 100 + b, endpoint))
            for b in range(count)]


def wait_until(predicate, timeout=5.0):
    """True once ``predicate()`` holds, False if it still does not after ``timeout`` s (tests assert it)."""
    try:
        return bool(waits.wait_until("the condition", predicate, timeout))
    except AssertionError:
        return False


def main():
    """Serve ``--count`` epoch-0 messages as endpoint 0 of 1 in ``--registry`` until delivered."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--registry", required=True)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--heartbeat", type=float, default=None)
    parser.add_argument("--pause", action="append", default=[], metavar="POSITION:SECONDS",
                        help="stay idle (heartbeats only) before message POSITION")
    parser.add_argument("--tls-cert", help="serve TLS with this PEM certificate chain (and --tls-key)")
    parser.add_argument("--tls-key", help="the PEM private key of --tls-cert")
    args = parser.parse_args()
    pauses = {int(p): float(s) for p, s in (x.split(":") for x in args.pause)}
    tls = (args.tls_cert, args.tls_key) if args.tls_cert else None
    server = EndpointServer(batches(0, args.count), registry=Path(args.registry), heartbeat=args.heartbeat,
                            pauses=pauses, tls=tls).start()
    server._thread.join()


if __name__ == "__main__":
    main()
