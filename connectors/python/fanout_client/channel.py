"""Channel client: pulls sampled-subgraph messages from every endpoint of a running Fanout job.

Speaks the channel protocol v3 (``connectors/CHANNEL.md``): HELLO (access token, session id) /
WELCOME handshake, FETCH frames carrying credits (``prefetch`` per endpoint up front, then one per
message handed to the caller) and the acknowledgement of each consumed message, MESSAGE,
END_OF_EPOCH, END_OF_STREAM, ERROR and HEARTBEAT frames. An endpoint that sends nothing, not even
HEARTBEAT, for ``stall_timeout`` seconds while the client waits on it raises ``ChannelStallError``.

The consuming thread reads the endpoint sockets itself: a frame already in a connection's
read-ahead buffer is taken at once, otherwise ``select`` waits for whichever endpoint has data, so a
slow endpoint never holds up the others and no thread hand-off sits on the per-message path. A lost
connection is re-established by a background thread (re-reading the registry, where a restarted
endpoint writes its new port) while the other endpoints keep being read, and its session resumed,
so unacknowledged messages come again; copies of messages already handed out (after a reconnect or
a job restart) are dropped by (epoch, batch_id).

Two ways to read::

    for msg in client: ...                  # every message, in arrival order
    for epoch in client.epochs():           # epoch by epoch, like a GLT/PyG loader
        for msg in epoch: ...               # ends when every endpoint ended epoch.epoch
"""

from __future__ import annotations

import collections
import json
import logging
import queue
import select
import socket
import struct
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .message import Message
from .safetensors import decode

__all__ = ["ChannelClient", "ChannelError", "ChannelStallError", "ChannelTimeoutError", "SamplingError", "Epoch",
           "PROTOCOL_VERSION"]

log = logging.getLogger("fanout_client.channel")

PROTOCOL_VERSION = 3
HELLO, WELCOME, FETCH, MESSAGE, END_OF_EPOCH, END_OF_STREAM, ERROR, HEARTBEAT = 1, 2, 3, 4, 5, 6, 7, 8
FRAME_NAMES = {HELLO: "HELLO", WELCOME: "WELCOME", FETCH: "FETCH", MESSAGE: "MESSAGE",
               END_OF_EPOCH: "END_OF_EPOCH", END_OF_STREAM: "END_OF_STREAM", ERROR: "ERROR", HEARTBEAT: "HEARTBEAT"}
DEFAULT_MAX_FRAME_BYTES = 256 << 20
# Small messages are prefetched beyond ``prefetch`` while they fit in this many bytes per endpoint.
DEFAULT_PREFETCH_BYTES = 8 << 20
# Upper bound of an endpoint's credit window, however small its messages.
MAX_PREFETCH_WINDOW = 1024
# Seconds an endpoint may send nothing (not even HEARTBEAT, every 5 s by default) while the client
# waits on it, before ChannelStallError.
DEFAULT_STALL_TIMEOUT = 30.0
SAMPLING_ERROR_KEY = "#SAMPLING_ERROR"

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_FETCH = struct.Struct("<IQi")  # credits, ack, max_epoch (the epoch being read)
_FETCH_FRAME = struct.Struct("<IBIQi")
# FETCH max_epoch of a client that takes any epoch (flat iteration).
ANY_EPOCH = 0x7FFFFFFF
_MESSAGE_HEAD = struct.Struct("<Qiii")
_WELCOME = struct.Struct("<HIIQB")


class ChannelError(RuntimeError):
    """An endpoint failed: it sent ERROR (``server_text`` holds its text), broke the protocol, or
    could not be reached again. ``endpoint`` names it (``"endpoint 1 (host:port)"``)."""

    def __init__(self, endpoint: str, problem: str, server_text: str | None = None):
        super().__init__(f"{endpoint}: {problem}")
        self.endpoint = endpoint
        self.server_text = server_text


class SamplingError(ChannelError):
    """Sampling this batch failed in the job (GiGL's ``#SAMPLING_ERROR``): ``server_text`` is the
    job's traceback, ``epoch``/``batch_id`` the batch. The client stays usable: iterate on to skip it."""

    def __init__(self, endpoint: str, epoch: int, batch_id: int, text: str):
        super().__init__(endpoint, f"sampling failed for epoch {epoch} batch {batch_id}: {text}", server_text=text)
        self.epoch = epoch
        self.batch_id = batch_id


class ChannelStallError(ChannelError):
    """A connected endpoint sent nothing, not even HEARTBEAT, for ``stall_timeout`` seconds: its
    process is stopped or hung. ``last_frame`` names the last frame it sent (with epoch and batch
    for a MESSAGE), ``seconds`` how long ago."""

    def __init__(self, endpoint: str, last_frame: str, seconds: float, stall_timeout: float):
        super().__init__(endpoint, f"sent nothing for {seconds:.1f}s (stall_timeout {stall_timeout:g}s; a live "
                                   f"endpoint sends HEARTBEAT every fanout.channel.heartbeat-interval): the last "
                                   f"frame it sent was {last_frame}, {seconds:.1f}s ago")
        self.last_frame = last_frame
        self.seconds = seconds


class ChannelTimeoutError(TimeoutError):
    """The channel did not come up within ``connect_timeout``; the text names every endpoint (or
    registry file) that was missing, and ``missing`` lists them."""

    def __init__(self, text: str, missing: list[str]):
        super().__init__(text)
        self.missing = missing


class _ServerRefused(Exception):
    """ERROR during the handshake, or a WELCOME that does not fit: no retry."""


@dataclass
class _Endpoint:
    index: int | None            # from the registry or WELCOME
    address: str                 # "host:port"
    registry_file: Path | None = None
    token: str = ""
    sock: socket.socket | None = None
    session: int = 0             # 0 = none yet
    generation: int = 0          # bumped on every reconnect: older queued messages are stale
    done: bool = False           # consumer side: END_OF_STREAM seen / finished
    ended_epoch: int = -1        # consumer side: END_OF_EPOCH seen up to
    granted: int = 0             # credits sent on the current connection
    window: int = 0              # consumer side: messages the endpoint may have ahead of consumption
    avg_bytes: float = 0.0       # consumer side: moving average of its message sizes
    extra: int = 0               # consumer side: credits owed for a grown window, sent with the next acks
    withhold: int = 0            # consumer side: credits not returned yet because the window shrank
    received: int = 0            # MESSAGE frames received on the current connection
    acks: list = field(default_factory=list)  # consumer side: (generation, session, seq) not yet sent
    last_error: str = "no answer"
    heard: float = 0.0           # consumer side: time.monotonic() of the last frame read
    last_frame: tuple = (WELCOME,)  # consumer side: that frame's type (and epoch, batch), for a stall error
    stream: "_FrameStream | None" = None  # consumer side: the connection being read, None while away
    pending: collections.deque = field(default_factory=collections.deque)  # consumer side: events read ahead
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


# What _read_event returns for a HEARTBEAT: the endpoint is alive, nothing to hand out.
_NOTHING = ()

# Socket receive buffer (SO_RCVBUF), set before connecting so the TCP window can use it.
_RECEIVE_BUFFER_BYTES = 4 << 20


def _connect(host: str, port: int, timeout: float) -> socket.socket:
    last = OSError(f"no address for {host}")
    for family, kind, proto, _, address in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, _RECEIVE_BUFFER_BYTES)
            sock.settimeout(timeout)
            sock.connect(address)
            return sock
        except OSError as e:
            sock.close()
            last = e
    raise last


def _send_frame(sock: socket.socket, frame_type: int, body: bytes = b"") -> None:
    sock.sendall(_U32.pack(1 + len(body)) + bytes([frame_type]) + body)


def _read_frame(sock: socket.socket, max_frame_bytes: int):
    """Read one frame -> (type, body) straight from the socket (the handshake; no read-ahead, so
    nothing of a later frame is consumed)."""
    (length,) = _U32.unpack(_recv_exact(sock, 4, "a frame length"))
    if length < 1:
        raise ValueError("frame length 0 (must be at least 1)")
    if length > max_frame_bytes:
        raise ValueError(f"frame of {length} bytes exceeds the {max_frame_bytes}-byte limit")
    return _recv_exact(sock, 1, "a frame type")[0], bytes(_recv_exact(sock, length - 1, "a frame body"))


# Read-ahead buffer of a connection: one recv_into takes whatever the socket holds (several small
# frames, or a frame head plus the start of its blob), so a frame costs about one system call.
_READ_AHEAD = 256 << 10
# A blob remainder at least this large is received straight into the blob, not via read-ahead.
_DIRECT = 32 << 10


class _FrameStream:
    """Frames of one connection, read through a reused read-ahead buffer.

    A MESSAGE body comes back as (seq, epoch, batch_id, num_batches, blob); the blob is its own
    uninitialised numpy buffer (no zero-fill), 8-byte aligned, which the decoded arrays view: the
    bytes are copied once, from the socket into that buffer, and a large blob is received straight
    into it."""

    __slots__ = ("sock", "max_frame_bytes", "buf", "view", "start", "end")

    def __init__(self, sock: socket.socket, max_frame_bytes: int):
        self.sock = sock
        self.max_frame_bytes = max_frame_bytes
        self.buf = bytearray(_READ_AHEAD)
        self.view = memoryview(self.buf)
        self.start = 0
        self.end = 0

    def _fill(self, n: int, what: str) -> None:
        """Make at least ``n`` bytes available from ``start``."""
        have = self.end - self.start
        if have >= n:
            return
        if n > len(self.buf):  # a frame larger than the read-ahead (a long ERROR text): grow
            self.buf = bytearray(max(n, 2 * len(self.buf)))
            self.buf[:have] = self.view[self.start:self.end]
            self.view = memoryview(self.buf)
            self.start, self.end = 0, have
        elif self.start + n > len(self.buf):
            self.view[:have] = self.view[self.start:self.end]
            self.start, self.end = 0, have
        recv_into, view = self.sock.recv_into, self.view
        while self.end - self.start < n:
            k = recv_into(view[self.end:])
            if k == 0:
                raise EOFError(f"connection closed while reading {what} ({self.end - self.start} of {n} bytes)")
            self.end += k

    def has_frame(self) -> bool:
        """Whether a whole frame is buffered."""
        have = self.end - self.start
        return have >= 4 and have >= 4 + _U32.unpack_from(self.buf, self.start)[0]

    def fill_now(self) -> bool:
        """Take whatever the socket holds without waiting (the buffer is empty); True when there
        was something, or EOF or an error that the next read reports."""
        self.start = self.end = 0
        try:
            k = self.sock.recv_into(self.view, 0, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True
        self.end = k
        return True

    def read(self):
        self._fill(4, "a frame length")
        (length,) = _U32.unpack_from(self.buf, self.start)
        if length < 1:
            raise ValueError("frame length 0 (must be at least 1)")
        if length > self.max_frame_bytes:
            raise ValueError(f"frame of {length} bytes exceeds the {self.max_frame_bytes}-byte limit")
        self._fill(5, "a frame type")
        frame_type = self.buf[self.start + 4]
        if frame_type != MESSAGE:
            self._fill(4 + length, f"a {FRAME_NAMES.get(frame_type, frame_type)} body")
            body = bytes(self.view[self.start + 5:self.start + 4 + length])
            self.start += 4 + length
            return frame_type, body
        if length < 1 + _MESSAGE_HEAD.size:
            raise ValueError(f"MESSAGE frame of {length} bytes is shorter than its {_MESSAGE_HEAD.size}-byte head")
        self._fill(5 + _MESSAGE_HEAD.size, "a MESSAGE head")
        head = _MESSAGE_HEAD.unpack_from(self.buf, self.start + 5)
        self.start += 5 + _MESSAGE_HEAD.size
        size = length - 1 - _MESSAGE_HEAD.size
        blob = memoryview(np.empty(size, dtype=np.uint8))
        got = min(size, self.end - self.start)
        blob[:got] = self.view[self.start:self.start + got]
        self.start += got
        if size - got >= _DIRECT:
            recv_into = self.sock.recv_into
            while got < size:
                k = recv_into(blob[got:])
                if k == 0:
                    raise EOFError(f"connection closed while reading a MESSAGE blob ({got} of {size} bytes)")
                got += k
        elif got < size:
            rest = size - got
            self._fill(rest, "a MESSAGE blob")
            blob[got:] = self.view[self.start:self.start + rest]
            self.start += rest
        return frame_type, (*head, blob)


def _read_registry_file(path: Path):
    """The parsed JSON of a registry file, or None while it is absent or unreadable."""
    try:
        with open(path, "rb") as f:
            info = json.loads(f.read().decode("utf-8"))
    except (FileNotFoundError, PermissionError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return info if isinstance(info, dict) else None


class Epoch:
    """The messages of one epoch (``epoch.epoch`` is its number); iterate it once. It ends when
    every endpoint sent END_OF_EPOCH for it (or ended its stream)."""

    def __init__(self, client: "ChannelClient", number: int):
        self._client = client
        self.epoch = number
        self.count = 0

    def __iter__(self):
        return self

    def __next__(self) -> Message:
        msg = self._client._next_of_epoch(self.epoch)
        self.count += 1
        return msg

    def __repr__(self) -> str:
        return f"Epoch({self.epoch}, {self.count} messages so far)"


class ChannelClient:
    """Read every message of a Fanout channel, pulled from all of its endpoints.

    Give either ``registry`` (the job's ``--registry`` directory of ``endpoint-<i>.json`` files,
    which also hold the access token) or ``endpoints`` (a list of ``"host:port"``, then ``token``
    is needed). Messages are ``Message`` dicts of numpy arrays, or torch tensors with
    ``as_torch=True`` (``pin_memory=True`` pins them), carrying ``epoch``, ``batch_id``,
    ``num_batches`` and ``endpoint``; ``as_pyg=True`` yields ``fanout_client.to_pyg(msg)``, a PyG
    ``Data`` shaped like a ``NeighborLoader`` batch.

    - ``for msg in client``: every message in arrival order; ends once every endpoint sent
      END_OF_STREAM (or is ``finished`` in the registry).
    - ``for epoch in client.epochs(): for msg in epoch``: epoch by epoch from epoch 0. Every FETCH
      tells the endpoints the epoch being read, and they send nothing of a later one (it waits in
      their buffers); what a server sends early anyway is held back until its epoch, counting
      against that endpoint's credit window.

    Each (epoch, batch_id) is yielded once. A batch whose sampling failed raises ``SamplingError``
    (with the job's traceback); iterating again continues after it.

    ``prefetch``: messages each endpoint may send ahead of consumption (at least). ``prefetch_bytes``:
    while an endpoint's messages are small, let it send more ahead, as many as fit in this many
    bytes (by the moving average of their sizes; at most ``MAX_PREFETCH_WINDOW``), so that small
    messages do not wait on credit round trips; 0 = exactly ``prefetch``. A client holds at most
    about ``max(prefetch messages, prefetch_bytes)`` per endpoint, held-back messages included
    (``held_bytes``, ``peak_held_bytes``). ``connect_timeout``:
    seconds to wait for the registry to be complete and every endpoint to answer (raises
    ``ChannelTimeoutError`` naming the missing ones). ``reconnect_timeout``: seconds to try
    re-establishing a lost connection before raising ``ChannelError``. ``log_every``: an INFO log
    line (logger ``fanout_client.channel``) every N messages with the count, time spent waiting and
    queue depth (0 = never). ``max_frame_bytes``: larger frames are a protocol error.
    ``stall_timeout``: seconds a connected endpoint may send nothing, not even HEARTBEAT, while
    the client waits on it before ``ChannelStallError`` names it and its last frame (a stopped or
    hung process; an idle endpoint sends HEARTBEAT); None or 0 = wait for ever.
    """

    def __init__(self, registry=None, endpoints=None, prefetch: int = 4, connect_timeout: float = 30.0,
                 token: str = "", as_torch: bool = False, pin_memory: bool = False,
                 max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, reconnect_timeout: float = 60.0,
                 log_every: int = 1000, prefetch_bytes: int = DEFAULT_PREFETCH_BYTES,
                 stall_timeout: float | None = DEFAULT_STALL_TIMEOUT, as_pyg: bool = False):
        if (registry is None) == (endpoints is None):
            raise ValueError("give exactly one of registry=DIR or endpoints=[\"host:port\", ...]")
        if isinstance(endpoints, str):
            endpoints = [endpoints]
        if endpoints is not None and not endpoints:
            raise ValueError("endpoints is empty")
        if prefetch < 1:
            raise ValueError(f"prefetch must be at least 1, got {prefetch}")
        if prefetch_bytes < 0:
            raise ValueError(f"prefetch_bytes must be 0 or positive, got {prefetch_bytes}")
        if log_every < 0:
            raise ValueError(f"log_every must be 0 or positive, got {log_every}")
        if stall_timeout is not None and stall_timeout < 0:
            raise ValueError(f"stall_timeout must be None, 0 (both: wait for ever) or positive, got {stall_timeout}")
        if as_torch and as_pyg:
            raise ValueError("give as_torch=True or as_pyg=True, not both")
        if as_torch or as_pyg:
            from .torch_support import _import_torch
            _import_torch()  # fail now, not at the first message
        self.registry = Path(registry) if registry is not None else None
        self.prefetch = int(prefetch)
        self.prefetch_bytes = int(prefetch_bytes)
        self.connect_timeout = float(connect_timeout)
        self.reconnect_timeout = float(reconnect_timeout)
        self.token = token or ""
        self.as_torch = as_torch
        self.pin_memory = pin_memory
        self.as_pyg = as_pyg
        self.max_frame_bytes = int(max_frame_bytes)
        self.log_every = int(log_every)
        self.stall_timeout = float(stall_timeout or 0)
        self._addresses = list(endpoints) if endpoints is not None else None
        if self._addresses is not None:
            for address in self._addresses:
                _parse_address(address)
        self._endpoints: list[_Endpoint] = []
        # Events from reconnecting threads (reconnected / end / error); messages never pass through it.
        self._queue: queue.Queue = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._connected = False
        self._closed = False
        self._parked: dict[int, list] = {}     # epoch -> queued events of a later epoch
        # The epoch being read, sent in every FETCH: endpoints send nothing of a later one, so the
        # credit windows bound what this client holds. Epoch 0 until flat iteration lifts it.
        self._epoch_limit = 0
        self.held_bytes = 0                    # bytes received and not yet handed out or dropped
        self.peak_held_bytes = 0
        self._seen: dict[int, set] = {}        # epoch -> batch ids handed out
        self._closed_epoch = -1                # every endpoint ended epochs up to this one
        self.received = 0
        self.duplicates = 0
        self._wait_seconds = 0.0

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
                self._endpoints = [_Endpoint(index=None, address=a, token=self.token) for a in self._addresses]
            self._connect_all(deadline)
        except BaseException:
            self._close_sockets()
            raise
        self._connected = True
        for ep in self._endpoints:
            if ep.done:
                continue
            ep.window = self.prefetch
            self._grant(ep, ep.window)
            ep.stream = _FrameStream(ep.sock, self.max_frame_bytes)
            ep.heard = time.monotonic()
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
        # The file names the oldest protocol version the endpoint serves (2 for a v3 endpoint).
        version = info.get("version", PROTOCOL_VERSION)
        if not isinstance(version, int) or version > PROTOCOL_VERSION:
            raise ValueError(f"{path}: the endpoint needs protocol version {version!r}, this client speaks "
                             f"{PROTOCOL_VERSION}")
        ep = _Endpoint(index=index, address=f"{info.get('host')}:{info.get('port')}", registry_file=path,
                       token=self.token or info.get("token") or "")
        ep.done = info.get("state") == "finished"
        return ep

    def _refresh_from_registry(self, ep: _Endpoint) -> None:
        # The endpoint may have finished, or moved (a restarted subtask writes a new port).
        info = _read_registry_file(ep.registry_file)
        if info is not None:
            ep.address = f"{info.get('host')}:{info.get('port')}"
            if not self.token and info.get("token"):
                ep.token = info["token"]
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
                try:
                    ok = self._try_connect(ep, deadline)
                except _ServerRefused as e:
                    raise e.args[0] from None
                if ok:
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
        """One connection + handshake attempt: True when WELCOMEd, False to retry later; raises
        _ServerRefused(ChannelError) when the endpoint answered with ERROR or nonsense."""
        try:
            host, port = _parse_address(ep.address)
        except ValueError as e:
            ep.last_error = str(e)
            return False
        remaining = max(deadline - time.monotonic(), 0.05)
        try:
            sock = _connect(host, port, min(remaining, 2.0))
        except OSError as e:
            ep.last_error = f"connect failed: {e.strerror or e}"
            return False
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(max(deadline - time.monotonic(), 0.05))
            token = ep.token.encode("utf-8")
            _send_frame(sock, HELLO, struct.pack("<HH", PROTOCOL_VERSION, len(token)) + token
                        + struct.pack("<Q", ep.session))
            frame_type, body = _read_frame(sock, self.max_frame_bytes)
        except (OSError, EOFError, ValueError) as e:
            sock.close()
            ep.last_error = f"handshake failed: {e}"
            return False
        if frame_type == ERROR:
            sock.close()
            text = body.decode("utf-8", "replace")
            raise _ServerRefused(ChannelError(ep.label(), f"refused the connection: {text}", server_text=text))
        if frame_type != WELCOME or len(body) != _WELCOME.size:
            sock.close()
            raise _ServerRefused(ChannelError(ep.label(), f"answered HELLO with "
                                              f"{FRAME_NAMES.get(frame_type, frame_type)} ({len(body)} bytes), "
                                              f"expected WELCOME"))
        version, index, num_endpoints, session, resumed = _WELCOME.unpack(body)
        if version != PROTOCOL_VERSION:
            sock.close()
            raise _ServerRefused(ChannelError(ep.label(), f"speaks protocol version {version}, this client "
                                                          f"{PROTOCOL_VERSION}"))
        if ep.index is not None and index != ep.index:
            sock.close()
            raise _ServerRefused(ChannelError(ep.label(), f"WELCOME says it is endpoint {index}"))
        if ep.index is None:
            ep.index = index
            if num_endpoints != len(self._endpoints):
                warnings.warn(f"{ep.label()} belongs to a channel of {num_endpoints} endpoints but "
                              f"{len(self._endpoints)} were given; messages on the others are not read",
                              stacklevel=4)
        if ep.session and not resumed:
            log.info("%s: session %x is gone (endpoint restarted or session expired); new session %x",
                     ep.label(), ep.session, session)
        sock.settimeout(None)
        if self.stall_timeout:
            # A blocking recv (a frame in flight, or waiting on the only endpoint) gives up after
            # stall_timeout without a byte; MSG_DONTWAIT reads are unaffected, unlike settimeout().
            seconds = int(self.stall_timeout)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                            struct.pack("ll", seconds, int((self.stall_timeout - seconds) * 1e6)))
        with ep.lock:
            ep.sock = sock
            ep.session = session
            ep.granted = 0
            ep.received = 0
            ep.extra = ep.withhold = 0  # a new connection is granted its whole window afresh
        log.info("connected to %s (endpoint %d of %d)%s", ep.label(), index, num_endpoints,
                 " resuming its session" if resumed else "")
        return True

    # ---- reading --------------------------------------------------------------------------

    def _grant(self, ep: _Endpoint, credits: int, ack: int = 0, session: int | None = None) -> None:
        """FETCH: ``credits`` more, and acknowledge seq ``ack`` of ``session`` (not sent to another
        session: that endpoint no longer holds it)."""
        with ep.lock:  # count first: the reader may see the MESSAGE before sendall returns
            if session is not None and session != ep.session:
                ack = 0
            if credits == 0 and ack == 0:
                return
            ep.granted += credits
            sock = ep.sock
        try:
            _send_frame(sock, FETCH, _FETCH.pack(credits, ack, self._epoch_limit))
        except (OSError, AttributeError):
            pass  # the endpoint went away; the next read of it reconnects or reports how

    def _limit_epochs(self, epoch: int) -> None:
        """Tell every endpoint the epoch now read (FETCH max_epoch), if it changed."""
        if epoch != self._epoch_limit:
            self._epoch_limit = epoch
            for ep in self._endpoints:
                if ep.stream is not None:
                    self._send_epoch_limit(ep)

    def _send_epoch_limit(self, ep: _Endpoint) -> None:
        try:
            _send_frame(ep.sock, FETCH, _FETCH.pack(0, 0, self._epoch_limit))
        except (OSError, AttributeError):
            pass  # the endpoint went away; its reconnect sends the limit

    def _ack(self, ep: _Endpoint, meta) -> None:
        """Acknowledge a consumed message and give its credit back. The FETCH frames are batched:
        sent together (one system call) once half the endpoint's window is pending, and always
        before the consumer waits for a message, at the end of an epoch and on close, so the
        endpoint never waits on an ack the client is sitting on while it waits itself."""
        generation, session, seq = meta
        ep.acks.append((generation, session, seq))
        if len(ep.acks) >= max(1, ep.window // 2):
            self._send_acks(ep)

    def _fit_window(self, ep: _Endpoint, nbytes: int) -> None:
        """Size the endpoint's credit window to its messages: ``prefetch_bytes`` worth of them by
        their moving average, at least ``prefetch``. Growing grants the difference with the next
        acks; shrinking keeps back that many returning credits. Changes under a quarter are
        ignored, so the window does not follow every wobble of the sizes."""
        if not self.prefetch_bytes:
            return
        ep.avg_bytes = float(nbytes) if ep.avg_bytes == 0 else ep.avg_bytes + (nbytes - ep.avg_bytes) / 8
        fit = max(self.prefetch, min(MAX_PREFETCH_WINDOW, int(self.prefetch_bytes // max(ep.avg_bytes, 1.0))))
        if 4 * abs(fit - ep.window) < ep.window:
            return
        with ep.lock:
            if fit > ep.window:
                grow = fit - ep.window
                paid = min(grow, ep.withhold)  # first cancel credits still kept back
                ep.withhold -= paid
                ep.extra += grow - paid
            else:
                shrink = ep.window - fit
                owed = min(shrink, ep.extra)  # first drop credits not sent yet
                ep.extra -= owed
                ep.withhold += shrink - owed
            ep.window = fit
        if ep.extra:
            self._send_acks(ep)  # a grown window pays off only once the endpoint knows

    def _send_acks(self, ep: _Endpoint) -> None:
        if not ep.acks and not ep.extra:
            return
        frames = []
        with ep.lock:  # count first: the reader may see the MESSAGE before sendall returns
            for generation, session, seq in ep.acks:
                # A credit belongs to the connection it was consumed from (a new one was granted its
                # window afresh); an ack to the session (a resumed session still holds the message).
                credit = 1 if generation == ep.generation else 0
                if credit and ep.withhold:
                    ep.withhold -= 1  # the window shrank: this credit is not returned
                    credit = 0
                ack = seq if session == ep.session else 0
                if credit or ack:
                    ep.granted += credit
                    frames.append(_FETCH_FRAME.pack(1 + _FETCH.size, FETCH, credit, ack, self._epoch_limit))
            ep.acks.clear()
            if ep.extra:
                ep.granted += ep.extra
                frames.append(_FETCH_FRAME.pack(1 + _FETCH.size, FETCH, ep.extra, 0, self._epoch_limit))
                ep.extra = 0
            sock = ep.sock
        if frames:
            try:
                sock.sendall(b"".join(frames))
            except (OSError, AttributeError):
                pass  # the endpoint went away; the next read of it reconnects or reports how

    def _send_all_acks(self) -> None:
        for ep in self._endpoints:
            if ep.acks or ep.extra:
                self._send_acks(ep)

    def _lost(self, ep: _Endpoint, problem) -> None:
        """The connection of ``ep`` broke: stop reading it and re-establish it in the background."""
        log.warning("%s: connection lost (%s); reconnecting for up to %gs", ep.label(), problem,
                    self.reconnect_timeout)
        ep.stream = None
        with ep.lock:
            ep.generation += 1
        self._close_endpoint(ep)
        thread = threading.Thread(target=self._reconnector, args=(ep,), daemon=True,
                                  name=f"fanout-channel-reconnect-{ep.label()}")
        self._threads = [t for t in self._threads if t.is_alive()]
        self._threads.append(thread)
        thread.start()

    def _reconnector(self, ep: _Endpoint) -> None:
        put = self._queue.put
        outcome = self._reconnect(ep)
        if self._closed:
            return
        if outcome == "finished":
            put(("end", ep, None, None))
        elif outcome is not None:
            put(("error", ep, None, outcome))
        else:
            self._grant(ep, ep.window)
            put(("reconnected", ep, None, _FrameStream(ep.sock, self.max_frame_bytes)))

    def _reconnect(self, ep: _Endpoint):
        """None when reconnected, "finished" when the registry says so, else a ChannelError."""
        deadline = time.monotonic() + self.reconnect_timeout
        while not self._closed:
            if ep.registry_file is not None:
                self._refresh_from_registry(ep)
                if ep.done:
                    return "finished"
            try:
                if self._try_connect(ep, deadline):
                    return None
            except _ServerRefused as e:
                return e.args[0]
            if time.monotonic() >= deadline:
                return ChannelError(ep.label(), f"connection lost and not re-established within "
                                                f"{self.reconnect_timeout:g}s: {ep.last_error}")
            time.sleep(0.1)
        return None

    def _read_events(self, ep: _Endpoint) -> None:
        """Read the next frame of ``ep`` and every further one already whole in its read-ahead
        buffer into ``ep.pending`` (so a batch of small frames costs one system call, and a
        server sending beyond its credits is caught as soon as the frames are here)."""
        pending = ep.pending
        while True:
            event = self._read_event(ep)
            if event is None:
                return
            if event is not _NOTHING:
                pending.append(event)
            frames = ep.stream
            if frames is None or not frames.has_frame():
                return

    def _read_event(self, ep: _Endpoint):
        """Read one frame of ``ep`` (its bytes are buffered or arriving) -> an event, ``_NOTHING``
        for a HEARTBEAT, or None when the connection broke and is being re-established."""
        frames = ep.stream
        try:
            frame_type, body = frames.read()
            ep.heard = time.monotonic()
            if frame_type == HEARTBEAT:
                if body:
                    raise ValueError(f"HEARTBEAT body of {len(body)} bytes, expected 0")
                ep.last_frame = (HEARTBEAT,)
                return _NOTHING
            if frame_type == MESSAGE:
                seq, epoch, batch_id, num_batches, blob = body
                ep.last_frame = (MESSAGE, epoch, batch_id)  # formatted only for a stall error
                ep.received += 1
                if ep.received > ep.granted:
                    raise ValueError(f"sent MESSAGE {ep.received} but only {ep.granted} credits were granted")
                tensors = decode(blob)
                msg = Message(tensors, epoch=epoch, batch_id=batch_id, num_batches=num_batches,
                              endpoint=ep.index, blob=blob)
                self.held_bytes += len(blob)
                if self.held_bytes > self.peak_held_bytes:
                    self.peak_held_bytes = self.held_bytes
                return "message", ep, (ep.generation, ep.session, seq), msg
            ep.last_frame = (frame_type,)
            if frame_type == END_OF_EPOCH:
                if len(body) != 4:
                    raise ValueError(f"END_OF_EPOCH body of {len(body)} bytes, expected 4")
                ep.last_frame = (END_OF_EPOCH, _I32.unpack(body)[0])
                return "epoch_end", ep, None, _I32.unpack(body)[0]
            if frame_type == END_OF_STREAM:
                ep.stream = None
                return "end", ep, None, None
            if frame_type == ERROR:
                text = body.decode("utf-8", "replace")
                ep.stream = None
                return "error", ep, None, ChannelError(ep.label(), f"sent ERROR: {text}", server_text=text)
            raise ValueError(f"unexpected {FRAME_NAMES.get(frame_type, f'frame type {frame_type}')} frame")
        except ValueError as e:  # protocol violation: tell the server, then fail
            ep.stream = None
            try:
                _send_frame(ep.sock, ERROR, f"protocol error: {e}".encode("utf-8"))
            except OSError:
                pass
            return "error", ep, None, ChannelError(ep.label(), f"protocol error: {e}")
        except BlockingIOError:  # SO_RCVTIMEO: not a byte for stall_timeout in the middle of a frame
            ep.stream = None
            return "error", ep, None, self._stall_error(ep)
        except EOFError as e:
            if ep.registry_file is not None:
                self._refresh_from_registry(ep)
                if ep.done:
                    log.warning("%s closed without END_OF_STREAM but is finished in the registry", ep.label())
                    ep.stream = None
                    return "end", ep, None, None
            self._lost(ep, e)
        except OSError as e:
            self._lost(ep, e)
        return None

    # ---- consuming ----------------------------------------------------------------------------

    def _take(self):
        """The next event, blocking; counts the time waited. A frame already in a read-ahead
        buffer or in a socket comes first, then events of reconnecting threads; only when neither
        has anything are the acks flushed and the sockets waited on."""
        while True:
            reading = []
            for ep in self._endpoints:
                if ep.pending:
                    return ep.pending.popleft()
                frames = ep.stream
                if frames is None:
                    continue
                if frames.end > frames.start or frames.fill_now():  # the rest of the frame is in flight
                    self._read_events(ep)
                    if ep.pending:
                        return ep.pending.popleft()
                    continue
                reading.append(ep)
            try:
                kind, ep, meta, payload = self._queue.get_nowait()
            except queue.Empty:
                pass
            else:
                if kind != "reconnected":
                    return kind, ep, meta, payload
                ep.stream = payload
                ep.heard = time.monotonic()
                self._send_epoch_limit(ep)  # in case it changed after the reconnecting thread's FETCH
                continue
            self._send_all_acks()  # about to wait: the endpoints must have every ack and credit
            started = time.monotonic()
            if self.stall_timeout:
                for ep in reading:
                    if started - ep.heard >= self.stall_timeout:
                        ep.stream = None
                        return "error", ep, None, self._stall_error(ep)
            try:
                if len(reading) == 1 and not any(t.is_alive() for t in self._threads):
                    ep = reading[0]  # the only source of events: wait in recv itself
                    self._read_events(ep)
                    continue
                if not reading:
                    time.sleep(0.05)  # every open endpoint is reconnecting
                    continue
                try:
                    # A short timeout, so events of reconnecting threads are seen.
                    ready = select.select([ep.stream.sock for ep in reading], [], [], 0.1)[0]
                except (OSError, ValueError):
                    ready = [ep.stream.sock for ep in reading]  # let the read report it
            finally:
                self._wait_seconds += time.monotonic() - started
            for ep in reading:
                if ep.stream is not None and ep.stream.sock in ready:
                    self._read_events(ep)

    def _stall_error(self, ep: _Endpoint) -> ChannelStallError:
        kind, *args = ep.last_frame
        name = FRAME_NAMES.get(kind, f"frame type {kind}")
        if kind == MESSAGE:
            name += " (epoch %d, batch %d)" % tuple(args)
        elif kind == END_OF_EPOCH:
            name += " %d" % tuple(args)
        return ChannelStallError(ep.label(), name, time.monotonic() - ep.heard, self.stall_timeout)

    def _all_done(self) -> bool:
        return all(ep.done for ep in self._endpoints)

    def _handle_control(self, kind, ep, payload) -> None:
        if kind == "epoch_end":
            if payload > ep.ended_epoch:
                ep.ended_epoch = payload
                log.info("%s: end of epoch %d", ep.label(), payload)
                self._update_closed_epoch()
        elif kind == "end":
            ep.done = True
            self._close_endpoint(ep)
            self._update_closed_epoch()
        else:
            self.close()
            raise payload

    def _update_closed_epoch(self) -> None:
        open_ends = [ep.ended_epoch for ep in self._endpoints if not ep.done]
        if not open_ends:
            return
        low = min(open_ends)
        if low > self._closed_epoch:
            self._closed_epoch = low
            for epoch in [e for e in self._seen if e <= low]:
                del self._seen[epoch]

    def _accept(self, ep: _Endpoint, meta, msg: Message) -> bool:
        """False for a message of a dropped connection (the endpoint sends it again) and for a copy
        of one already handed out (acknowledged again, and dropped)."""
        if meta[0] != ep.generation:
            self.held_bytes -= len(msg.blob)
            return False  # unacknowledged: the endpoint sends it again on the new connection
        # A held-back message is not acknowledged until it is handed out (protocol v3), so an endpoint
        # cannot end its epoch before then: a message of an ended epoch is a copy.
        if msg.epoch <= self._closed_epoch or msg.batch_id in self._seen.get(msg.epoch, ()):
            self.duplicates += 1
            log.debug("dropped a copy of epoch %d batch %d from %s", msg.epoch, msg.batch_id, ep.label())
            self.held_bytes -= len(msg.blob)
            self._ack(ep, meta)
            return False
        return True

    def _hand_out(self, ep: _Endpoint, meta, msg: Message) -> Message:
        self._seen.setdefault(msg.epoch, set()).add(msg.batch_id)
        self.received += 1
        self.held_bytes -= len(msg.blob)
        self._fit_window(ep, len(msg.blob))
        self._ack(ep, meta)
        if self.log_every and self.received % self.log_every == 0:
            parked = sum(len(v) for v in self._parked.values())
            log.info("channel: %d messages received (%d copies dropped), waited %.3fs in total, queue depth %d "
                     "(+%d held for later epochs), %d bytes held (peak %d)", self.received, self.duplicates,
                     self._wait_seconds, sum(len(e.pending) for e in self._endpoints), parked, self.held_bytes,
                     self.peak_held_bytes)
        if SAMPLING_ERROR_KEY in msg:
            text = bytes(msg[SAMPLING_ERROR_KEY]).decode("utf-8", "replace")
            raise SamplingError(ep.label(), msg.epoch, msg.batch_id, text)
        if self.as_torch:
            from .torch_support import to_torch
            return to_torch(msg, pin_memory=self.pin_memory)
        if self.as_pyg:
            from .pyg import to_pyg
            return to_pyg(msg)
        return msg

    def __iter__(self):
        if not self._closed:
            self.connect()
        return self

    def __next__(self) -> Message:
        """The next message of any epoch, in arrival order."""
        if self._closed:
            raise StopIteration
        self.connect()
        self._limit_epochs(ANY_EPOCH)
        while self._parked:
            epoch = min(self._parked)
            kind, ep, meta, msg = self._parked[epoch].pop(0)
            if not self._parked[epoch]:
                del self._parked[epoch]
            if self._accept(ep, meta, msg):
                return self._hand_out(ep, meta, msg)
        while not self._all_done():
            kind, ep, meta, payload = self._take()
            if kind == "message":
                if self._accept(ep, meta, payload):
                    return self._hand_out(ep, meta, payload)
            else:
                self._handle_control(kind, ep, payload)
        self.close()
        raise StopIteration

    def _epoch_over(self, epoch: int) -> bool:
        return all(ep.done or ep.ended_epoch >= epoch for ep in self._endpoints)

    def _next_of_epoch(self, epoch: int) -> Message:
        if self._closed:
            raise StopIteration
        self._limit_epochs(epoch)
        early = self._parked.get(epoch)
        while early:
            kind, ep, meta, msg = early.pop(0)
            if self._accept(ep, meta, msg):
                return self._hand_out(ep, meta, msg)
        self._parked.pop(epoch, None)
        while not self._epoch_over(epoch):
            kind, ep, meta, payload = self._take()
            if kind != "message":
                self._handle_control(kind, ep, payload)
                continue
            if not self._accept(ep, meta, payload):
                continue
            if payload.epoch > epoch:
                # Sent before its endpoint learned the epoch being read: held back until its epoch,
                # neither acknowledged nor credited, so it counts against the endpoint's window.
                self._parked.setdefault(payload.epoch, []).append((kind, ep, meta, payload))
                continue
            return self._hand_out(ep, meta, payload)
        self._send_all_acks()
        raise StopIteration

    def epochs(self):
        """Yield an ``Epoch`` per epoch, from 0, until every endpoint ended its stream; each is an
        iterator of that epoch's messages. Messages of an epoch left unread when the next one is
        requested are skipped (with a warning)."""
        self.connect()
        number = 0
        while True:
            epoch = Epoch(self, number)
            yield epoch
            skipped = sum(1 for _ in _drain(epoch))
            if skipped:
                warnings.warn(f"skipped {skipped} unread messages of epoch {number}", stacklevel=2)
            if self._closed or (self._all_done() and not self._parked and self._queue.empty()):
                return
            number += 1

    @property
    def num_endpoints(self) -> int:
        """Endpoints of the channel (known after connect())."""
        return len(self._endpoints)

    def credits(self) -> dict[int, tuple[int, int]]:
        """Per endpoint index: (credits granted, MESSAGE frames received) on its current connection."""
        return {ep.index: (ep.granted, ep.received) for ep in self._endpoints}

    # ---- shutdown ---------------------------------------------------------------------------

    def _close_endpoint(self, ep: _Endpoint) -> None:
        if ep.sock is not None:
            try:
                ep.sock.shutdown(socket.SHUT_RDWR)  # wakes a consumer blocked in recv
            except OSError:
                pass
            try:
                ep.sock.close()
            except OSError:
                pass

    def _close_sockets(self) -> None:
        for ep in self._endpoints:
            self._close_endpoint(ep)

    def close(self) -> None:
        """Close every connection. Messages not yet handed out are not acknowledged, so the
        endpoints give them to other clients (after the session timeout)."""
        if self._closed:
            return
        self._send_all_acks()  # what was handed out is consumed: not to be sent to anyone again
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


def _drain(epoch: Epoch):
    try:
        while True:
            yield next(epoch)
    except StopIteration:
        return
    except SamplingError:
        yield None
        yield from _drain(epoch)
