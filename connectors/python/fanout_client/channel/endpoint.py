"""One endpoint connection of a ``ChannelClient`` (``_Endpoint``): its address and registry file, its socket
and session, its credit window (``credits._CreditWindow``), its reconnecting thread and session resume
(docs/channel-protocol.md, "Lost connection"), its liveness, and turning its frames into events. The client
owns one per endpoint and orders their messages by epoch; what they share (the epoch being read, the
reconnecting threads' events, the bytes held) is ``_Shared``, the client's options ``_Settings``."""

from __future__ import annotations

import collections
import logging
import queue
import socket
import ssl
import struct
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from ..errors import ChannelError, ChannelRankError, _ServerRefused
from ..message import Message
from ..safetensors import decode
from .connection import _connect, _connected_to_itself, _read_registry_file
from .credits import _CreditWindow
from .frames import (END_OF_EPOCH, END_OF_STREAM, ERROR, FETCH, FRAME_NAMES, HEARTBEAT, HELLO, MESSAGE,
                     PROTOCOL_VERSION, WELCOME, _FETCH, _I32, _WELCOME, _FrameStream, _read_frame, _send_frame)
from .liveness import _set_receive_timeout, _stall_error
from .tls import _check_mode, _looks_like_tls, _shutdown, _wrap

log = logging.getLogger("fanout_client.channel")

# What read_event returns for a HEARTBEAT: the endpoint is alive, nothing to hand out.
_NOTHING = ()


@dataclass(frozen=True)
class _Settings:
    """The client's options an endpoint connection needs."""
    token: str
    tls_context: ssl.SSLContext | None
    prefetch: int
    prefetch_bytes: int
    max_frame_bytes: int
    stall_timeout: float         # 0 = wait for ever
    reconnect_timeout: float
    handshake_timeout: float
    rank: int | None
    world_size: int | None


class _Shared:
    """What the endpoints of one client share: the epoch being read (FETCH max_epoch), the events of
    reconnecting threads (messages never pass through it), whether the client closed, and the bytes
    received and not yet handed out or dropped."""

    def __init__(self):
        # Epoch 0 until flat iteration lifts it: endpoints send nothing of a later one, so the credit
        # windows bound what the client holds.
        self.epoch_limit = 0
        self.events: queue.Queue = queue.Queue()
        self.closed = False
        self.held_bytes = 0
        self.peak_held_bytes = 0

    def hold(self, nbytes: int) -> None:
        self.held_bytes += nbytes
        if self.held_bytes > self.peak_held_bytes:
            self.peak_held_bytes = self.held_bytes

    def release(self, nbytes: int) -> None:
        self.held_bytes -= nbytes


class _Endpoint:
    """One endpoint and the client's connection to it (see the module doc)."""

    def __init__(self, settings: _Settings, shared: _Shared, index: int | None, address: str,
                 registry_file: Path | None = None, token: str = "", tls: bool = False, channel_size: int = 1):
        self.settings = settings
        self.shared = shared
        self.index = index                  # from the registry or WELCOME
        self.address = address              # "host:port"
        self.registry_file = registry_file
        self.token = token
        self.tls = tls                      # serves TLS ("tls": true in the registry, or a CA for a host:port list)
        self.channel_size = channel_size    # endpoints the client was given (a host:port list)
        # The connection.
        self.sock: socket.socket | None = None
        self.session = 0                    # 0 = none yet
        self.generation = 0                 # bumped on every reconnect: older queued messages are stale
        self.stream: _FrameStream | None = None  # the connection being read, None while away
        self.pending: collections.deque = collections.deque()  # events read ahead
        self.last_error = "no answer"
        self.reconnecting: threading.Thread | None = None
        self.lock = threading.Lock()
        # Held while writing to sock: a reconnecting thread's FETCH and the consumer's acks may meet on a
        # new connection, and a TLS connection must not be written by two threads at once.
        self.send_lock = threading.Lock()
        # Progress, as the consumer saw it.
        self.done = False                   # END_OF_STREAM seen / finished
        self.ended_epoch = -1               # END_OF_EPOCH seen up to
        # Liveness: time.monotonic() of the last frame read, and that frame's type (and epoch, batch).
        self.heard = 0.0
        self.last_frame: tuple = (WELCOME,)
        self.credits = _CreditWindow()

    @classmethod
    def from_registry(cls, settings: _Settings, shared: _Shared, path: Path, index: int, info: dict) -> "_Endpoint":
        # The file names the oldest protocol version the endpoint serves (2 for a v3 endpoint).
        version = info.get("version", PROTOCOL_VERSION)
        if not isinstance(version, int) or version > PROTOCOL_VERSION:
            raise ValueError(f"{path}: the endpoint needs protocol version {version!r}, this client speaks "
                             f"{PROTOCOL_VERSION}")
        ep = cls(settings, shared, index=index, address=f"{info.get('host')}:{info.get('port')}", registry_file=path,
                 token=settings.token or info.get("token") or "", tls=info.get("tls") is True)
        ep.done = info.get("state") == "finished"
        return ep

    def label(self) -> str:
        if self.index is None:
            return f"endpoint {self.address}"
        return f"endpoint {self.index} ({self.address})"

    # ---- connecting (docs/channel-protocol.md, "Conversation" steps 1-2) ------------------------------

    def refresh_from_registry(self) -> None:
        """The endpoint may have finished, or moved (a restarted subtask writes a new port)."""
        info = _read_registry_file(self.registry_file)
        if info is not None:
            self.address = f"{info.get('host')}:{info.get('port')}"
            if not self.settings.token and info.get("token"):
                self.token = info["token"]
            self.done = info.get("state") == "finished"
            self.tls = info.get("tls") is True  # checked again on connecting: no downgrade on a restart

    def try_connect(self, deadline: float) -> bool:
        """One connection + handshake attempt: True when WELCOMEd, False to retry later; raises
        _ServerRefused(ChannelError) when the endpoint answered with ERROR or nonsense, its TLS
        certificate does not verify, or it does not serve what the client expects (TLS or plain)."""
        settings = self.settings
        context = settings.tls_context
        _check_mode(self, context)
        try:
            host, port = _parse_address(self.address)
        except ValueError as e:
            self.last_error = str(e)
            return False
        remaining = max(deadline - time.monotonic(), 0.05)
        try:
            sock = _connect(host, port, min(remaining, 2.0))
        except OSError as e:
            self.last_error = f"connect failed: {e.strerror or e}"
            return False
        if _connected_to_itself(sock):
            # Nothing listens at a local port in the ephemeral range, and the kernel gave this
            # socket that very port: TCP's simultaneous open connects it to itself, and it would
            # read its own HELLO as the answer. The registry names the old port of a restarted
            # endpoint until the new one writes its file.
            sock.close()
            self.last_error = f"nothing listens at {self.address} (the connection reached itself)"
            return False
        # An endpoint answers HELLO at once; a registry address taken by another process may never answer.
        handshake_seconds = min(settings.handshake_timeout, max(deadline - time.monotonic(), 0.05))
        if context is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.settimeout(handshake_seconds)  # as long as HELLO may take
                sock = _wrap(sock, context, host, self)
            except OSError as e:
                self.last_error = f"TLS handshake failed: {e}"
                return False
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(handshake_seconds)
            token = self.token.encode("utf-8")  # inside TLS when the endpoint serves it
            hello = struct.pack("<HH", PROTOCOL_VERSION, len(token)) + token + struct.pack("<Q", self.session)
            if settings.world_size is not None:
                # A data-parallel trainer: the endpoint sends it only its rank's share.
                hello += struct.pack("<ii", settings.rank, settings.world_size)
            _send_frame(sock, HELLO, hello)
            tls_answer = context is None and _looks_like_tls(sock.recv(3, socket.MSG_PEEK))
            if not tls_answer:
                frame_type, body = _read_frame(sock, settings.max_frame_bytes)
        except (OSError, EOFError, ValueError) as e:
            sock.close()
            self.last_error = (f"no answer to HELLO within {handshake_seconds:g}s" if isinstance(e, TimeoutError)
                               else f"handshake failed: {e}")
            if isinstance(e, (EOFError, ConnectionResetError)) and context is None and self.registry_file is None:
                self.last_error += " (if the endpoint serves TLS, pass tls_ca)"
            return False
        if tls_answer:
            sock.close()
            raise _ServerRefused(ChannelError(self.label(), "answered HELLO with TLS: the endpoint serves TLS; pass "
                                                            "tls_ca=CA_FILE (CLI --tls-ca) or ssl_context"))
        if frame_type == ERROR:
            sock.close()
            text = body.decode("utf-8", "replace")
            if settings.world_size is not None and text.startswith(("world size ", "rank ")):
                raise _ServerRefused(ChannelRankError(self.label(), f"refused rank {settings.rank} of world size "
                                                                    f"{settings.world_size}: {text}", server_text=text))
            raise _ServerRefused(ChannelError(self.label(), f"refused the connection: {text}", server_text=text))
        stale = self.registry_file is not None  # the file may still name an old address (see _stale_answer)
        if frame_type != WELCOME or len(body) != _WELCOME.size:
            sock.close()
            if stale:
                return self._stale_answer(f"{FRAME_NAMES.get(frame_type, f'frame type {frame_type}')} "
                                          f"({len(body)} bytes), not WELCOME")
            raise _ServerRefused(ChannelError(self.label(), f"answered HELLO with "
                                              f"{FRAME_NAMES.get(frame_type, frame_type)} ({len(body)} bytes), "
                                              f"expected WELCOME"))
        version, index, num_endpoints, session, resumed = _WELCOME.unpack(body)
        if version != PROTOCOL_VERSION:
            sock.close()
            raise _ServerRefused(ChannelError(self.label(), f"speaks protocol version {version}, this client "
                                                            f"{PROTOCOL_VERSION}"))
        if self.index is not None and index != self.index:
            sock.close()
            if stale:
                return self._stale_answer(f"WELCOME of endpoint {index}")
            raise _ServerRefused(ChannelError(self.label(), f"WELCOME says it is endpoint {index}"))
        if self.index is None:
            self.index = index
            if num_endpoints != self.channel_size:
                warnings.warn(f"{self.label()} belongs to a channel of {num_endpoints} endpoints but "
                              f"{self.channel_size} were given; messages on the others are not read", stacklevel=4)
        if self.session and not resumed:
            log.info("%s: session %x is gone (endpoint restarted or session expired); new session %x",
                     self.label(), self.session, session)
        sock.settimeout(None)
        if settings.stall_timeout:
            _set_receive_timeout(sock, settings.stall_timeout)
        with self.lock:
            self.sock = sock
            self.session = session
            self.credits.new_connection()  # granted its whole window afresh
        log.info("connected to %s (endpoint %d of %d)%s", self.label(), index, num_endpoints,
                 " resuming its session" if resumed else "")
        return True

    def _stale_answer(self, answer: str) -> bool:
        """Something other than this endpoint answered at the address of its registry file: the file
        still names the address of an endpoint that is gone (a restarted endpoint writes its new one once
        it listens), where another endpoint of the channel or another process listens now. Not an error:
        False, to read the registry again and retry until the deadline."""
        error = f"{self.address} answered HELLO with {answer}: not this endpoint (a stale registry address?)"
        if error != self.last_error:  # once, not at every retry
            log.info("%s: %s; trying again", self.label(), error)
        self.last_error = error
        return False

    def start(self) -> None:
        """Connected at last: grant the first window and start reading."""
        self.credits.window = self.settings.prefetch
        self.grant(self.credits.window)
        self.stream = _FrameStream(self.sock, self.settings.max_frame_bytes)
        self.heard = time.monotonic()

    def close_socket(self) -> None:
        if self.sock is not None:
            try:
                _shutdown(self.sock)  # wakes a consumer blocked in recv
            except OSError:
                pass
            try:
                self.sock.close()
            except OSError:
                pass

    # ---- credits and acknowledgements (credits.py keeps the window's arithmetic) -------------------

    def grant(self, credits: int) -> None:
        """FETCH: ``credits`` more."""
        if credits == 0:
            return
        with self.lock:  # count first: the reader may see the MESSAGE before sendall returns
            self.credits.granted += credits
            sock = self.sock
        self._send(_FETCH.pack(credits, 0, self.shared.epoch_limit), sock)

    def send_epoch_limit(self) -> None:
        """FETCH without credits: the epoch now read."""
        self._send(_FETCH.pack(0, 0, self.shared.epoch_limit), self.sock)

    def _send(self, fetch_body: bytes, sock) -> None:
        try:
            with self.send_lock:
                _send_frame(sock, FETCH, fetch_body)
        except (OSError, AttributeError):
            pass  # the endpoint went away; the next read of it reconnects or reports how (and sends the limit)

    def ack(self, meta) -> None:
        """Acknowledge a consumed message and give its credit back. The FETCH frames are batched:
        sent together (one system call) once ``credits.ACK_BATCH`` (or half the window) are pending, and always
        before the consumer waits for a message, at the end of an epoch and on close, so the
        endpoint never waits on an ack the client is sitting on while it waits itself."""
        if self.credits.add_ack(meta):
            self.send_acks()

    def fit_window(self, nbytes: int) -> None:
        """Size the credit window to the endpoint's messages (``_CreditWindow.fit``); a grown window
        pays off only once the endpoint knows."""
        if not self.settings.prefetch_bytes or nbytes == self.credits.avg_bytes:
            return  # a message of the average size changes nothing (the common case: one size)
        with self.lock:
            owed = self.credits.fit(nbytes, self.settings.prefetch, self.settings.prefetch_bytes)
        if owed:
            self.send_acks()

    def send_acks(self) -> None:
        if not self.credits.owes():
            return
        with self.lock:  # count first: the reader may see the MESSAGE before sendall returns
            frames = self.credits.take_frames(self.generation, self.session, self.shared.epoch_limit)
            sock = self.sock
        if frames:
            try:
                with self.send_lock:
                    sock.sendall(frames)
            except (OSError, AttributeError):
                pass  # the endpoint went away; the next read of it reconnects or reports how

    # ---- reading: frames to events ("message", "epoch_end", "end", "error") -----------------------

    def read_events(self) -> None:
        """Read the next frame and every further one already whole in the read-ahead buffer into
        ``pending`` (so a batch of small frames costs one system call, and a server sending beyond
        its credits is caught as soon as the frames are here)."""
        pending = self.pending
        while True:
            event = self.read_event()
            if event is None:
                return
            if event is not _NOTHING:
                pending.append(event)
            frames = self.stream
            if frames is None or not frames.has_frame():
                return

    def read_event(self):
        """Read one frame (its bytes are buffered or arriving) -> an event, ``_NOTHING`` for a
        HEARTBEAT, or None when the connection broke and is being re-established."""
        frames = self.stream
        try:
            frame_type, body = frames.read()
            self.heard = time.monotonic()
            if frame_type == HEARTBEAT:
                if body:
                    raise ValueError(f"HEARTBEAT body of {len(body)} bytes, expected 0")
                self.last_frame = (HEARTBEAT,)
                return _NOTHING
            if frame_type == MESSAGE:
                seq, epoch, batch_id, num_batches, blob = body
                self.last_frame = (MESSAGE, epoch, batch_id)  # formatted only for a stall error
                credits = self.credits
                credits.received += 1
                if credits.received > credits.granted:
                    raise ValueError(f"sent MESSAGE {credits.received} but only {credits.granted} credits were "
                                     f"granted")
                tensors = decode(blob)
                msg = Message(tensors, epoch=epoch, batch_id=batch_id, num_batches=num_batches,
                              endpoint=self.index, blob=blob)
                self.shared.hold(len(blob))
                return "message", self, (self.generation, self.session, seq), msg
            self.last_frame = (frame_type,)
            if frame_type == END_OF_EPOCH:
                if len(body) != 4:
                    raise ValueError(f"END_OF_EPOCH body of {len(body)} bytes, expected 4")
                self.last_frame = (END_OF_EPOCH, _I32.unpack(body)[0])
                return "epoch_end", self, None, _I32.unpack(body)[0]
            if frame_type == END_OF_STREAM:
                self.stream = None
                return "end", self, None, None
            if frame_type == ERROR:
                text = body.decode("utf-8", "replace")
                self.stream = None
                return "error", self, None, ChannelError(self.label(), f"sent ERROR: {text}", server_text=text)
            raise ValueError(f"unexpected {FRAME_NAMES.get(frame_type, f'frame type {frame_type}')} frame")
        except ValueError as e:  # protocol violation: tell the server, then fail
            self.stream = None
            try:
                with self.send_lock:
                    _send_frame(self.sock, ERROR, f"protocol error: {e}".encode("utf-8"))
            except OSError:
                pass
            return "error", self, None, ChannelError(self.label(), f"protocol error: {e}")
        except (BlockingIOError, TimeoutError):  # SO_RCVTIMEO (TLS: the socket timeout): not a byte for
            self.stream = None                  # stall_timeout in the middle of a frame
            return "error", self, None, _stall_error(self, self.settings.stall_timeout)
        except (EOFError, ssl.SSLEOFError) as e:  # a TLS endpoint closed without close_notify
            if self.registry_file is not None:
                self.refresh_from_registry()
                if self.done:
                    log.warning("%s closed without END_OF_STREAM but is finished in the registry", self.label())
                    self.stream = None
                    return "end", self, None, None
            self.lost(e)
        except OSError as e:
            self.lost(e)
        return None

    # ---- reconnecting and session resume ----------------------------------------------------------

    def lost(self, problem) -> None:
        """The connection broke: stop reading it and re-establish it in the background (re-reading the
        registry, where a restarted endpoint writes its new port), while the other endpoints keep being
        read. The HELLO carries the session id, so a resumed session sends its unacknowledged messages
        again; messages of the dropped connection still queued are stale (``generation``)."""
        log.warning("%s: connection lost (%s); reconnecting for up to %gs", self.label(), problem,
                    self.settings.reconnect_timeout)
        self.stream = None
        with self.lock:
            self.generation += 1
        self.close_socket()
        self.reconnecting = threading.Thread(target=self._reconnector, daemon=True,
                                             name=f"fanout-channel-reconnect-{self.label()}")
        self.reconnecting.start()

    def is_reconnecting(self) -> bool:
        return self.reconnecting is not None and self.reconnecting.is_alive()

    def _reconnector(self) -> None:
        put = self.shared.events.put
        outcome = self._reconnect()
        if self.shared.closed:
            return
        if outcome == "finished":
            put(("end", self, None, None))
        elif outcome is not None:
            put(("error", self, None, outcome))
        else:
            self.grant(self.credits.window)
            put(("reconnected", self, None, _FrameStream(self.sock, self.settings.max_frame_bytes)))

    def _reconnect(self):
        """None when reconnected, "finished" when the registry says so, else a ChannelError."""
        deadline = time.monotonic() + self.settings.reconnect_timeout
        while not self.shared.closed:
            if self.registry_file is not None:
                self.refresh_from_registry()
                if self.done:
                    return "finished"
            try:
                if self.try_connect(deadline):
                    return None
            except _ServerRefused as e:
                return e.args[0]
            if time.monotonic() >= deadline:
                return ChannelError(self.label(), f"connection lost and not re-established within "
                                                  f"{self.settings.reconnect_timeout:g}s: {self.last_error}")
            time.sleep(0.1)
        return None

    def resumed(self, stream: _FrameStream) -> None:
        """The consumer takes the re-established connection (its reconnecting thread's event)."""
        self.stream = stream
        self.heard = time.monotonic()
        self.send_epoch_limit()  # in case it changed after the reconnecting thread's FETCH


def _parse_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"endpoint {address!r} is not host:port")
    return host.strip("[]"), int(port)
