"""What the client knows about one endpoint: its address, connection, session, credit window,
epoch progress and liveness (``_Endpoint``), shared by the client's parts."""

from __future__ import annotations

import collections
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .frames import WELCOME, _FrameStream


@dataclass
class _Endpoint:
    index: int | None            # from the registry or WELCOME
    address: str                 # "host:port"
    registry_file: Path | None = None
    token: str = ""
    tls: bool = False            # serves TLS ("tls": true in the registry, or a CA given for a host:port list)
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
    # Held while writing to sock: a reconnecting thread's FETCH and the consumer's acks may meet on a
    # new connection, and a TLS connection must not be written by two threads at once.
    send_lock: threading.Lock = field(default_factory=threading.Lock)

    def label(self) -> str:
        if self.index is None:
            return f"endpoint {self.address}"
        return f"endpoint {self.index} ({self.address})"


def _parse_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"endpoint {address!r} is not host:port")
    return host.strip("[]"), int(port)
