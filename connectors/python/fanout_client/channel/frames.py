"""Framing of the channel protocol (docs/channel-protocol.md, "Frames"): the frame types and their
fixed-size bodies, writing a frame, and reading frames from a socket, one at a time (the handshake)
or through a reused read-ahead buffer (``_FrameStream``, the per-message path)."""

from __future__ import annotations

import socket
import ssl
import struct

import numpy as np

PROTOCOL_VERSION = 3
HELLO, WELCOME, FETCH, MESSAGE, END_OF_EPOCH, END_OF_STREAM, ERROR, HEARTBEAT = 1, 2, 3, 4, 5, 6, 7, 8
FRAME_NAMES = {HELLO: "HELLO", WELCOME: "WELCOME", FETCH: "FETCH", MESSAGE: "MESSAGE",
               END_OF_EPOCH: "END_OF_EPOCH", END_OF_STREAM: "END_OF_STREAM", ERROR: "ERROR", HEARTBEAT: "HEARTBEAT"}
DEFAULT_MAX_FRAME_BYTES = 256 << 20

_U32 = struct.Struct("<I")
_I32 = struct.Struct("<i")
_FETCH = struct.Struct("<IQi")  # credits, ack, max_epoch (the epoch being read)
_FETCH_FRAME = struct.Struct("<IBIQi")
# FETCH max_epoch of a client that takes any epoch (flat iteration).
ANY_EPOCH = 0x7FFFFFFF
_MESSAGE_HEAD = struct.Struct("<Qiii")
_MESSAGE_MIN_LENGTH = 1 + _MESSAGE_HEAD.size  # type and head, an empty blob
_MESSAGE_HEAD_END = 5 + _MESSAGE_HEAD.size    # length, type and head
_WELCOME = struct.Struct("<HIIQB")


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
# While messages are that large, the read-ahead takes at most this much at a time: the next frame's
# head and the start of its blob, which is copied; the rest of that blob is received straight into
# it, together with the head after it (one scatter read, recvmsg_into, per message), so a large blob
# is not received into the read-ahead and copied again.
_TAIL = 4 << 10


class _FrameStream:
    """Frames of one connection, read through a reused read-ahead buffer.

    A MESSAGE body comes back as (seq, epoch, batch_id, num_batches, blob); the blob is its own
    uninitialised numpy buffer (no zero-fill), 8-byte aligned, which the decoded arrays view: the
    bytes are copied once, from the socket into that buffer, and a large blob is received straight
    into it (on a plain socket with the head of the next frame, see ``_TAIL``)."""

    __slots__ = ("sock", "tls", "max_frame_bytes", "buf", "view", "start", "end", "large")

    def __init__(self, sock: socket.socket, max_frame_bytes: int):
        self.sock = sock
        self.tls = isinstance(sock, ssl.SSLSocket)
        self.max_frame_bytes = max_frame_bytes
        self.buf = bytearray(_READ_AHEAD)
        self.view = memoryview(self.buf)
        self.start = 0
        self.end = 0
        self.large = False  # the last MESSAGE was received mostly straight into its blob

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
            k = recv_into(view[self.end:self.end + _TAIL] if self.large else view[self.end:])
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
        if self.tls:
            return self._fill_now_tls()
        try:
            k = self.sock.recv_into(self.view, _TAIL if self.large else 0, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True
        self.end = k
        return True

    def _fill_now_tls(self) -> bool:
        """``fill_now`` of a TLS connection: it takes no MSG_DONTWAIT, and readable bytes on the
        socket may be a record without data (a session ticket), so read in non-blocking mode;
        this also takes data already decrypted and buffered in the TLS layer."""
        sock = self.sock
        timeout = sock.gettimeout()
        sock.settimeout(0)
        try:
            self.end = sock.recv_into(self.view)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError, InterruptedError):
            return False
        except OSError:
            return True
        finally:
            sock.settimeout(timeout)
        return True

    def read(self):
        # The _fill calls are guarded here: on the per-message path the bytes are mostly buffered already.
        if self.end - self.start < 4:
            self._fill(4, "a frame length")
        (length,) = _U32.unpack_from(self.buf, self.start)
        if length < 1:
            raise ValueError("frame length 0 (must be at least 1)")
        if length > self.max_frame_bytes:
            raise ValueError(f"frame of {length} bytes exceeds the {self.max_frame_bytes}-byte limit")
        if self.end - self.start < 5:
            self._fill(5, "a frame type")
        frame_type = self.buf[self.start + 4]
        if frame_type != MESSAGE:
            self._fill(4 + length, f"a {FRAME_NAMES.get(frame_type, frame_type)} body")
            body = bytes(self.view[self.start + 5:self.start + 4 + length])
            self.start += 4 + length
            return frame_type, body
        if length < _MESSAGE_MIN_LENGTH:
            raise ValueError(f"MESSAGE frame of {length} bytes is shorter than its {_MESSAGE_HEAD.size}-byte head")
        if self.end - self.start < _MESSAGE_HEAD_END:
            self._fill(_MESSAGE_HEAD_END, "a MESSAGE head")
        start = self.start + _MESSAGE_HEAD_END
        head = _MESSAGE_HEAD.unpack_from(self.buf, self.start + 5)
        size = length - _MESSAGE_MIN_LENGTH
        blob = memoryview(np.empty(size, dtype=np.uint8))
        got = min(size, self.end - start)
        blob[:got] = self.view[start:start + got]
        self.start = start + got
        self.large = size - got >= _DIRECT
        if self.large and not self.tls:
            # The buffer is empty: the rest of the blob and, behind it, what follows (the next head).
            self.start = self.end = 0
            recvmsg_into, tail = self.sock.recvmsg_into, [self.view[:_TAIL]]
            while got < size:
                k = recvmsg_into([blob[got:], *tail])[0]
                if k == 0:
                    raise EOFError(f"connection closed while reading a MESSAGE blob ({got} of {size} bytes)")
                if k > size - got:
                    self.end = k - (size - got)
                    k = size - got
                got += k
        elif self.large:
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

