"""Liveness (docs/channel-protocol.md, "Liveness"): a version 3 endpoint sends HEARTBEAT when idle,
so an endpoint that sends nothing at all for ``stall_timeout`` seconds while the client waits on it
is stopped or hung: ``ChannelStallError`` names it and the last frame it sent. A blocking receive
gives up after ``stall_timeout`` without a byte (``SO_RCVTIMEO``, or a socket timeout for TLS); the wait loop checks how long ago
each endpoint was heard from (``_Endpoint.heard``)."""

from __future__ import annotations

import socket
import ssl
import struct
import time

from ..errors import ChannelStallError
from .frames import END_OF_EPOCH, FRAME_NAMES, MESSAGE

# Seconds an endpoint may send nothing (not even HEARTBEAT, every 5 s by default) while the client
# waits on it, before ChannelStallError.
DEFAULT_STALL_TIMEOUT = 30.0


def _set_receive_timeout(sock: socket.socket, stall_timeout: float) -> None:
    """A blocking recv (a frame in flight, or waiting on the only endpoint) gives up after
    ``stall_timeout`` without a byte (BlockingIOError); MSG_DONTWAIT reads are unaffected, unlike
    settimeout(). A TLS socket retries a read that SO_RCVTIMEO ends, so it gets settimeout() instead
    (TimeoutError); its non-blocking reads switch the timeout off and back."""
    if isinstance(sock, ssl.SSLSocket):
        sock.settimeout(stall_timeout)
        return
    seconds = int(stall_timeout)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                    struct.pack("ll", seconds, int((stall_timeout - seconds) * 1e6)))


def _stalled(endpoints, now: float, stall_timeout: float) -> "_Endpoint | None":
    """The first of ``endpoints`` not heard from for ``stall_timeout`` seconds (0 = never stalls)."""
    if stall_timeout:
        for ep in endpoints:
            if now - ep.heard >= stall_timeout:
                return ep
    return None


def _stall_error(ep: "_Endpoint", stall_timeout: float) -> ChannelStallError:
    kind, *args = ep.last_frame
    name = FRAME_NAMES.get(kind, f"frame type {kind}")
    if kind == MESSAGE:
        name += " (epoch %d, batch %d)" % tuple(args)
    elif kind == END_OF_EPOCH:
        name += " %d" % tuple(args)
    return ChannelStallError(ep.label(), name, time.monotonic() - ep.heard, stall_timeout)
