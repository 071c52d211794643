"""Channel client: pulls sampled-subgraph messages from every endpoint of a running Fanout job.

Speaks the channel protocol v1 (``connectors/CHANNEL.md``): HELLO/WELCOME handshake, FETCH
credits (``prefetch`` per endpoint up front, then one per message handed to the caller), MESSAGE,
END_OF_STREAM and ERROR frames. One reader thread per endpoint feeds a shared queue, so a slow
endpoint never holds up messages from the others; credits bound what the queue can hold to
``prefetch`` messages per endpoint.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import struct
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from .message import Message
from .safetensors import decode

__all__ = ["ChannelClient", "ChannelError", "ChannelTimeoutError", "PROTOCOL_VERSION"]

PROTOCOL_VERSION = 1
HELLO, WELCOME, FETCH, MESSAGE, END_OF_EPOCH, END_OF_STREAM, ERROR = 1, 2, 3, 4, 5, 6, 7
FRAME_NAMES = {HELLO: "HELLO", WELCOME: "WELCOME", FETCH: "FETCH", MESSAGE: "MESSAGE",
               END_OF_EPOCH: "END_OF_EPOCH", END_OF_STREAM: "END_OF_STREAM", ERROR: "ERROR"}
DEFAULT_MAX_FRAME_BYTES = 256 << 20

_U32 = struct.Struct("<I")
_MESSAGE_HEAD = struct.Struct("<iii")
_WELCOME = struct.Struct("<HII")


class ChannelError(RuntimeError):
    """An endpoint failed: it sent ERROR (``server_text`` holds its text), broke the protocol, or
    dropped the connection. ``endpoint`` names it (``"endpoint 1 (host:port)"``)."""

    def __init__(self, endpoint: str, problem: str, server_text: str | None = None):
        super().__init__(f"{endpoint}: {problem}")
        self.endpoint = endpoint
        self.server_text = server_text


class ChannelTimeoutError(TimeoutError):
    """The channel did not come up within ``connect_timeout``; the text names every endpoint (or
    registry file) that was missing, and ``missing`` lists them."""

    def __init__(self, text: str, missing: list[str]):
        super().__init__(text)
        self.missing = missing


@dataclass
class _Endpoint:
    index: int | None            # from the registry or WELCOME
    address: str                 # "host:port"
    registry_file: Path | None = None
    sock: socket.socket | None = None
    done: bool = False
    granted: int = 0             # credits sent
    received: int = 0            # MESSAGE frames received
    last_error: str = "no answer"
    lock: threading.Lock = field(default_factory=threading.Lock)

    def label(self) -> str:
        if self.index is None:
            return f"endpoint {self.address}"
        return f"endpoint {self.index} ({self.address})"


def _parse_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"endpoint {address!r} is not host:port")
    return host.strip("[]"), int(port)


def _recv_exact(sock: socket.socket, n: int, what: str) -> bytearray:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            raise EOFError(f"connection closed while reading {what} ({got} of {n} bytes)")
        got += k
    return buf


def _send_frame(sock: socket.socket, frame_type: int, body: bytes = b"") -> None:
    sock.sendall(_U32.pack(1 + len(body)) + bytes([frame_type]) + body)


def _read_frame(sock: socket.socket, max_frame_bytes: int):
    """Read one frame -> (type, body). A MESSAGE body is (epoch, batch_id, num_batches, blob) with
    the blob in its own buffer, so the arrays decoded from it are 8-byte aligned views."""
    (length,) = _U32.unpack(_recv_exact(sock, 4, "a frame length"))
    if length < 1:
        raise ValueError("frame length 0 (must be at least 1)")
    if length > max_frame_bytes:
        raise ValueError(f"frame of {length} bytes exceeds the {max_frame_bytes}-byte limit")
    frame_type = _recv_exact(sock, 1, "a frame type")[0]
    if frame_type == MESSAGE:
        if length < 1 + _MESSAGE_HEAD.size:
            raise ValueError(f"MESSAGE frame of {length} bytes is shorter than its 12-byte head")
        head = _MESSAGE_HEAD.unpack(_recv_exact(sock, _MESSAGE_HEAD.size, "a MESSAGE head"))
        blob = _recv_exact(sock, length - 1 - _MESSAGE_HEAD.size, "a MESSAGE blob")
        return frame_type, (*head, blob)
    return frame_type, bytes(_recv_exact(sock, length - 1, f"a {FRAME_NAMES.get(frame_type, frame_type)} body"))


def _read_registry_file(path: Path):
    """The parsed JSON of a registry file, or None while it is absent or unreadable."""
    try:
        with open(path, "rb") as f:
            info = json.loads(f.read().decode("utf-8"))
    except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return info if isinstance(info, dict) else None


class ChannelClient:
    """Iterate over every message of a Fanout channel, pulled from all of its endpoints.

    Give either ``registry`` (the job's ``--registry`` directory of ``endpoint-<i>.json`` files) or
    ``endpoints`` (a list of ``"host:port"``). Iterating yields ``Message`` dicts (numpy arrays, or
    torch tensors with ``as_torch=True``) carrying ``epoch``, ``batch_id``, ``num_batches`` and
    ``endpoint``; it ends once every endpoint sent END_OF_STREAM (or is ``finished`` in the
    registry). Messages of different endpoints interleave in arrival order.

    ``prefetch``: messages each endpoint may send ahead of consumption. ``connect_timeout``:
    seconds to wait for the registry to be complete and every endpoint to answer (raises
    ``ChannelTimeoutError`` naming the missing ones). ``token``: sent in HELLO.
    ``max_frame_bytes``: larger frames are a protocol error.
    """

    def __init__(self, registry=None, endpoints=None, prefetch: int = 4, connect_timeout: float = 30.0,
                 token: str = "", as_torch: bool = False, pin_memory: bool = False,
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES):
        if (registry is None) == (endpoints is None):
            raise ValueError("give exactly one of registry=DIR or endpoints=[\"host:port\", ...]")
        if isinstance(endpoints, str):
            endpoints = [endpoints]
        if endpoints is not None and not endpoints:
            raise ValueError("endpoints is empty")
        if prefetch < 1:
            raise ValueError(f"prefetch must be at least 1, got {prefetch}")
        if as_torch:
            from .torch_support import _import_torch
            _import_torch()  # fail now, not at the first message
        self.registry = Path(registry) if registry is not None else None
        self.prefetch = int(prefetch)
        self.connect_timeout = float(connect_timeout)
        self.token = token
        self.as_torch = as_torch
        self.pin_memory = pin_memory
        self.max_frame_bytes = int(max_frame_bytes)
        self._addresses = list(endpoints) if endpoints is not None else None
        if self._addresses is not None:
            for address in self._addresses:
                _parse_address(address)
        self._endpoints: list[_Endpoint] = []
        self._queue: queue.Queue = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._connected = False
        self._closed = False
        self._remaining = 0

    # ---- connection phase -------------------------------------------------------------------

    def connect(self) -> "ChannelClient":
        """Find and connect every endpoint, handshake and send the initial credits. Iterating
        calls this on first use; calling it yourself surfaces connection errors early."""
        if self._closed:
            raise RuntimeError("ChannelClient is closed")
        if self._connected:
            return self
        deadline = time.monotonic() + self.connect_timeout
        try:
            if self.registry is not None:
                self._endpoints = self._wait_for_registry(deadline)
            else:
                self._endpoints = [_Endpoint(index=None, address=a) for a in self._addresses]
            self._connect_all(deadline)
        except BaseException:
            self._close_sockets()
            raise
        self._connected = True
        self._remaining = sum(1 for ep in self._endpoints if not ep.done)
        for ep in self._endpoints:
            if ep.done:
                continue
            self._grant(ep, self.prefetch)
            thread = threading.Thread(target=self._reader, args=(ep,), daemon=True,
                                      name=f"fanout-channel-{ep.label()}")
            thread.start()
            self._threads.append(thread)
        return self

    def _wait_for_registry(self, deadline: float) -> list[_Endpoint]:
        while True:
            infos = {}
            for path in sorted(self.registry.glob("endpoint-*.json")) if self.registry.is_dir() else []:
                info = _read_registry_file(path)
                if info is not None:
                    infos[path.name] = info
            expected = {info.get("num_endpoints") for info in infos.values()}
            if len(expected) > 1:
                raise ValueError(f"registry {self.registry}: endpoint files disagree on num_endpoints: "
                                 f"{sorted(map(str, expected))}")
            if infos:
                (n,) = expected
                if not isinstance(n, int) or n < 1:
                    raise ValueError(f"registry {self.registry}: bad num_endpoints {n!r}")
                missing = [f"endpoint-{i}.json" for i in range(n) if f"endpoint-{i}.json" not in infos]
                if not missing:
                    return [self._endpoint_from_registry(i, infos[f"endpoint-{i}.json"]) for i in range(n)]
            else:
                missing = ["endpoint-*.json"]
            if time.monotonic() >= deadline:
                detail = (f"no endpoint-*.json file appeared" if not infos else
                          f"num_endpoints={n} but {', '.join(missing)} did not appear "
                          f"(found {', '.join(sorted(infos))})")
                raise ChannelTimeoutError(
                    f"registry {self.registry}: after {self.connect_timeout:g}s {detail}", missing)
            time.sleep(0.05)

    def _endpoint_from_registry(self, index: int, info: dict) -> _Endpoint:
        path = self.registry / f"endpoint-{index}.json"
        if info.get("version", PROTOCOL_VERSION) != PROTOCOL_VERSION:
            raise ValueError(f"{path}: protocol version {info.get('version')!r}, this client speaks "
                             f"{PROTOCOL_VERSION}")
        ep = _Endpoint(index=index, address=f"{info.get('host')}:{info.get('port')}", registry_file=path)
        ep.done = info.get("state") == "finished"
        return ep

    def _refresh_from_registry(self, ep: _Endpoint) -> None:
        # The endpoint may have finished, or moved (a restarted subtask writes a new port).
        info = _read_registry_file(ep.registry_file)
        if info is not None:
            ep.address = f"{info.get('host')}:{info.get('port')}"
            ep.done = info.get("state") == "finished"

    def _connect_all(self, deadline: float) -> None:
        pending = [ep for ep in self._endpoints if not ep.done]
        while pending:
            for ep in list(pending):
                if ep.registry_file is not None:
                    self._refresh_from_registry(ep)
                    if ep.done:
                        pending.remove(ep)
                        continue
                if self._try_connect(ep, deadline):
                    pending.remove(ep)
            if not pending:
                break
            if time.monotonic() >= deadline:
                names = [ep.label() for ep in pending]
                detail = "; ".join(f"{ep.label()}: {ep.last_error}" for ep in pending)
                raise ChannelTimeoutError(
                    f"{len(pending)} of {len(self._endpoints)} channel endpoints did not answer within "
                    f"{self.connect_timeout:g}s: {detail}", names)
            time.sleep(0.05)

    def _try_connect(self, ep: _Endpoint, deadline: float) -> bool:
        """One connection + handshake attempt: True when WELCOMEd, False to retry later."""
        try:
            host, port = _parse_address(ep.address)
        except ValueError as e:
            ep.last_error = str(e)
            return False
        remaining = max(deadline - time.monotonic(), 0.05)
        try:
            sock = socket.create_connection((host, port), timeout=min(remaining, 2.0))
        except OSError as e:
            ep.last_error = f"connect failed: {e.strerror or e}"
            return False
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(max(deadline - time.monotonic(), 0.05))
            token = self.token.encode("utf-8")
            _send_frame(sock, HELLO, struct.pack("<HH", PROTOCOL_VERSION, len(token)) + token)
            frame_type, body = _read_frame(sock, self.max_frame_bytes)
        except (OSError, EOFError, ValueError) as e:
            sock.close()
            ep.last_error = f"handshake failed: {e}"
            return False
        if frame_type == ERROR:
            sock.close()
            text = body.decode("utf-8", "replace")
            raise ChannelError(ep.label(), f"refused the connection: {text}", server_text=text)
        if frame_type != WELCOME or len(body) != _WELCOME.size:
            sock.close()
            raise ChannelError(ep.label(), f"answered HELLO with {FRAME_NAMES.get(frame_type, frame_type)} "
                                           f"({len(body)} bytes), expected WELCOME")
        version, index, num_endpoints = _WELCOME.unpack(body)
        if version != PROTOCOL_VERSION:
            sock.close()
            raise ChannelError(ep.label(), f"speaks protocol version {version}, this client {PROTOCOL_VERSION}")
        if ep.index is not None and index != ep.index:
            sock.close()
            raise ChannelError(ep.label(), f"WELCOME says it is endpoint {index}")
        if ep.index is None:
            ep.index = index
            if num_endpoints != len(self._endpoints):
                warnings.warn(f"{ep.label()} belongs to a channel of {num_endpoints} endpoints but "
                              f"{len(self._endpoints)} were given; messages on the others are not read",
                              stacklevel=4)
        sock.settimeout(None)
        ep.sock = sock
        return True

    # ---- streaming phase --------------------------------------------------------------------

    def _grant(self, ep: _Endpoint, credits: int) -> None:
        with ep.lock:  # count first: the reader may see the MESSAGE before sendall returns
            ep.granted += credits
        try:
            _send_frame(ep.sock, FETCH, _U32.pack(credits))
        except OSError:
            pass  # the endpoint went away; its reader thread reports how

    def _reader(self, ep: _Endpoint) -> None:
        put = self._queue.put
        try:
            while True:
                frame_type, body = _read_frame(ep.sock, self.max_frame_bytes)
                if frame_type == MESSAGE:
                    epoch, batch_id, num_batches, blob = body
                    with ep.lock:
                        ep.received += 1
                        over = ep.received > ep.granted
                    if over:
                        raise ValueError(f"sent MESSAGE {ep.received} but only {ep.granted} credits were granted")
                    tensors = decode(blob)
                    put(("message", ep, Message(tensors, epoch=epoch, batch_id=batch_id,
                                                num_batches=num_batches, endpoint=ep.index, blob=blob)))
                elif frame_type == END_OF_STREAM:
                    put(("end", ep, None))
                    return
                elif frame_type == ERROR:
                    text = body.decode("utf-8", "replace")
                    put(("error", ep, ChannelError(ep.label(), f"sent ERROR: {text}", server_text=text)))
                    return
                elif frame_type == END_OF_EPOCH:
                    continue  # reserved in v1
                else:
                    raise ValueError(f"unexpected {FRAME_NAMES.get(frame_type, f'frame type {frame_type}')} frame")
        except ValueError as e:  # protocol violation: tell the server, then fail
            if not self._closed:
                try:
                    _send_frame(ep.sock, ERROR, f"protocol error: {e}".encode("utf-8"))
                except OSError:
                    pass
                put(("error", ep, ChannelError(ep.label(), f"protocol error: {e}")))
        except (OSError, EOFError) as e:
            if not self._closed:
                put(("error", ep, ChannelError(
                    ep.label(), f"connection lost before END_OF_STREAM: {e}")))

    def __iter__(self):
        if not self._closed:
            self.connect()
        return self

    def __next__(self) -> Message:
        if self._closed:
            raise StopIteration
        while self._remaining > 0:
            kind, ep, payload = self._queue.get()
            if kind == "message":
                if not ep.done:
                    self._grant(ep, 1)
                if self.as_torch:
                    from .torch_support import to_torch
                    return to_torch(payload, pin_memory=self.pin_memory)
                return payload
            if kind == "end":
                ep.done = True
                self._remaining -= 1
                self._close_endpoint(ep)
            else:
                self.close()
                raise payload
        self.close()
        raise StopIteration

    @property
    def num_endpoints(self) -> int:
        """Endpoints of the channel (known after connect())."""
        return len(self._endpoints)

    def credits(self) -> dict[int, tuple[int, int]]:
        """Per endpoint index: (credits granted, MESSAGE frames received) so far."""
        return {ep.index: (ep.granted, ep.received) for ep in self._endpoints}

    # ---- shutdown ---------------------------------------------------------------------------

    def _close_endpoint(self, ep: _Endpoint) -> None:
        if ep.sock is not None:
            try:
                ep.sock.close()
            except OSError:
                pass

    def _close_sockets(self) -> None:
        for ep in self._endpoints:
            if ep.sock is not None:
                try:
                    ep.sock.shutdown(socket.SHUT_RDWR)  # wakes the reader blocked in recv
                except OSError:
                    pass
                self._close_endpoint(ep)

    def close(self) -> None:
        """Close every connection; unread buffered messages are dropped (protocol v1: lost)."""
        if self._closed:
            return
        self._closed = True
        self._close_sockets()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout=5)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
