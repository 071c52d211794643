"""``ChannelClient``: the public iterator. It owns one ``_Endpoint`` per channel endpoint (connection,
credits, resume, liveness) and the epoch order across them (``_EpochOrder``); this module holds its
options, finding and connecting the endpoints, waiting on whichever has a frame, the hand-out of each
message and shutdown."""

from __future__ import annotations

import logging
import select
import ssl
import threading
import time
import warnings
from pathlib import Path

from ..errors import SAMPLING_ERROR_KEY, ChannelError, SamplingError
from ..message import Message
from ..reader import check_transform
from .connection import _connect_all, _wait_for_registry
from .credits import DEFAULT_PREFETCH_BYTES
from .endpoint import _Endpoint, _parse_address, _Settings, _Shared
from .epoch_order import Epoch, _drain, _EpochOrder
from .frames import ANY_EPOCH, DEFAULT_MAX_FRAME_BYTES
from .liveness import DEFAULT_STALL_TIMEOUT, _stall_error, _stalled
from .tls import _client_context

log = logging.getLogger("fanout_client.channel")


class ChannelClient:
    """Read every message of a Fanout channel, pulled from all of its endpoints.

    Give either ``registry`` (the job's ``--registry`` directory of ``endpoint-<i>.json`` files,
    which also hold the access token) or ``endpoints`` (a list of ``"host:port"``, then ``token``
    is needed). Messages are ``Message`` dicts of numpy arrays carrying ``epoch``, ``batch_id``,
    ``num_batches`` and ``endpoint``; ``transform`` is applied to every message handed out
    (``transform=fanout_client.to_pyg``: a PyG ``Data`` shaped like a ``NeighborLoader`` batch;
    ``functools.partial(fanout_client.to_torch, pin_memory=True)``: pinned torch tensors).

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
    re-establishing a lost connection before raising ``ChannelError``. ``handshake_timeout``: seconds
    an endpoint may take to answer HELLO; a connection that gets no answer in that time, or an
    answer from something other than this endpoint (another endpoint, another protocol), is
    dropped and tried again with the registry read afresh, because a registry file names the old
    address of a restarted endpoint until the new one replaces it, and another process may listen
    there meanwhile. ``log_every``: an INFO log
    line (logger ``fanout_client.channel``) every N messages with the count, time spent waiting and
    queue depth (0 = never). ``max_frame_bytes``: larger frames are a protocol error.
    ``stall_timeout``: seconds a connected endpoint may send nothing, not even HEARTBEAT, while
    the client waits on it before ``ChannelStallError`` names it and its last frame (a stopped or
    hung process; an idle endpoint sends HEARTBEAT); None or 0 = wait for ever.

    ``tls_ca``: a PEM file of the CA (or CAs) that signed the endpoints' TLS certificates, for a job
    run with ``--channel-tls-cert``/``--channel-tls-key`` (registry ``"tls": true``); the chain and
    the host name (the registry's ``host``) are verified, and the token still goes in HELLO, inside
    TLS. ``ssl_context``: a ready ``ssl.SSLContext`` instead. A TLS endpoint without either, a
    certificate that does not verify, or an endpoint that is plain although a CA was given raises
    ``ChannelError`` naming the endpoint. With ``endpoints``, a CA means every endpoint serves TLS.

    ``rank``, ``world_size``: read as data-parallel trainer ``rank`` of ``world_size`` (the job's
    ``--trainers``): the endpoints send this client only the batches with ``batch_id % world_size ==
    rank``, its epochs end when that share is delivered, and a client that comes back with the same
    rank within the job's session timeout gets what it had not consumed. A world size other than the
    job's, or a rank outside ``0..world_size-1``, raises ``ChannelRankError`` (a ``ValueError``).
    Without them the client takes every message it is sent (clients share an endpoint's messages).
    """

    def __init__(self, registry=None, endpoints=None, prefetch: int = 4, connect_timeout: float = 30.0,
                 token: str = "", max_frame_bytes: int = DEFAULT_MAX_FRAME_BYTES, reconnect_timeout: float = 60.0,
                 log_every: int = 1000, prefetch_bytes: int = DEFAULT_PREFETCH_BYTES,
                 stall_timeout: float | None = DEFAULT_STALL_TIMEOUT, tls_ca=None,
                 ssl_context: ssl.SSLContext | None = None, rank: int | None = None,
                 world_size: int | None = None, handshake_timeout: float = 10.0, transform=None, **removed):
        self.transform = check_transform(transform, removed, "ChannelClient")
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
        if handshake_timeout <= 0:
            raise ValueError(f"handshake_timeout must be positive, got {handshake_timeout}")
        if (rank is None) != (world_size is None):
            raise ValueError("give both rank and world_size (a data-parallel trainer) or neither")
        if world_size is not None and (int(world_size) < 1 or not 0 <= int(rank) < int(world_size)):
            raise ValueError(f"rank {rank} of world_size {world_size}: expected world_size >= 1 and "
                             f"0 <= rank < world_size")
        self.rank = int(rank) if rank is not None else None
        self.world_size = int(world_size) if world_size is not None else None
        self._tls_context = _client_context(tls_ca, ssl_context)
        self.tls_ca = Path(tls_ca) if tls_ca is not None else None
        self.registry = Path(registry) if registry is not None else None
        self.prefetch = int(prefetch)
        self.prefetch_bytes = int(prefetch_bytes)
        self.connect_timeout = float(connect_timeout)
        self.reconnect_timeout = float(reconnect_timeout)
        self.handshake_timeout = float(handshake_timeout)
        self.token = token or ""
        self.max_frame_bytes = int(max_frame_bytes)
        self.log_every = int(log_every)
        self.stall_timeout = float(stall_timeout or 0)
        self._addresses = list(endpoints) if endpoints is not None else None
        if self._addresses is not None:
            for address in self._addresses:
                _parse_address(address)
        self._settings = _Settings(token=self.token, tls_context=self._tls_context, prefetch=self.prefetch,
                                   prefetch_bytes=self.prefetch_bytes, max_frame_bytes=self.max_frame_bytes,
                                   stall_timeout=self.stall_timeout, reconnect_timeout=self.reconnect_timeout,
                                   handshake_timeout=self.handshake_timeout, rank=self.rank,
                                   world_size=self.world_size)
        self._shared = _Shared()
        self._endpoints: list[_Endpoint] = []
        self._order = _EpochOrder()
        self._connected = False
        self.received = 0                      # messages handed out
        self._wait_seconds = 0.0

    @property
    def held_bytes(self) -> int:
        """Bytes received and not yet handed out or dropped."""
        return self._shared.held_bytes

    @property
    def peak_held_bytes(self) -> int:
        return self._shared.peak_held_bytes

    @property
    def duplicates(self) -> int:
        """Copies of messages already handed out, dropped (after a reconnect or a job restart)."""
        return self._order.duplicates

    # ---- connecting ---------------------------------------------------------------------------

    def connect(self) -> "ChannelClient":
        """Find and connect every endpoint, handshake and send the initial credits. Iterating
        calls this on first use; calling it yourself surfaces connection errors early."""
        if self._shared.closed:
            raise RuntimeError("ChannelClient is closed")
        if self._connected:
            return self
        deadline = time.monotonic() + self.connect_timeout
        try:
            if self.registry is not None:
                infos = _wait_for_registry(self.registry, deadline, self.connect_timeout)
                self._endpoints = [_Endpoint.from_registry(self._settings, self._shared,
                                                           self.registry / f"endpoint-{i}.json", i, info)
                                   for i, info in enumerate(infos)]
            else:
                tls = self._tls_context is not None  # a host:port list is as the caller says
                self._endpoints = [_Endpoint(self._settings, self._shared, index=None, address=a, token=self.token,
                                             tls=tls, channel_size=len(self._addresses)) for a in self._addresses]
            _connect_all(self._endpoints, deadline, self.connect_timeout)
        except BaseException:
            for ep in self._endpoints:
                ep.close_socket()
            raise
        self._connected = True
        for ep in self._endpoints:
            if not ep.done:
                ep.start()
        return self

    # ---- credits across endpoints -------------------------------------------------------------

    def _limit_epochs(self, epoch: int) -> None:
        """Tell every endpoint the epoch now read (FETCH max_epoch), if it changed."""
        if epoch != self._shared.epoch_limit:
            self._shared.epoch_limit = epoch
            for ep in self._endpoints:
                if ep.stream is not None:
                    ep.send_epoch_limit()

    def _send_all_acks(self) -> None:
        for ep in self._endpoints:
            ep.send_acks()

    def credits(self) -> dict[int, tuple[int, int]]:
        """Per endpoint index: (credits granted, MESSAGE frames received) on its current connection."""
        return {ep.index: (ep.credits.granted, ep.credits.received) for ep in self._endpoints}

    # ---- waiting on the endpoints -------------------------------------------------------------

    def _take(self):
        """The next event of any endpoint, blocking; counts the time waited. A frame already in a
        read-ahead buffer or in a socket comes first, then events of reconnecting threads; only when
        neither has anything are the acks flushed and the sockets waited on (``select``), so a slow
        endpoint never holds up the others and no thread hand-off sits on the per-message path."""
        events = self._shared.events
        while True:
            reading = []
            for ep in self._endpoints:
                if ep.pending:
                    return ep.pending.popleft()
                frames = ep.stream
                if frames is None:
                    continue
                if frames.end > frames.start or frames.fill_now():  # the rest of the frame is in flight
                    ep.read_events()
                    if ep.pending:
                        return ep.pending.popleft()
                    continue
                reading.append(ep)
            if not events.empty():
                kind, ep, meta, payload = events.get_nowait()
                if kind != "reconnected":
                    return kind, ep, meta, payload
                ep.resumed(payload)
                continue
            self._send_all_acks()  # about to wait: the endpoints must have every ack and credit
            started = time.monotonic()
            stalled = _stalled(reading, started, self.stall_timeout)
            if stalled is not None:
                stalled.stream = None
                return "error", stalled, None, _stall_error(stalled, self.stall_timeout)
            try:
                if len(reading) == 1 and not any(ep.is_reconnecting() for ep in self._endpoints):
                    reading[0].read_events()  # the only source of events: wait in recv itself
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
                    ep.read_events()

    # ---- handing out --------------------------------------------------------------------------

    def _all_done(self) -> bool:
        for ep in self._endpoints:  # a loop, not all() of a generator: this runs for every message
            if not ep.done:
                return False
        return True

    def _handle_control(self, kind, ep, payload) -> None:
        if kind == "epoch_end":
            if payload > ep.ended_epoch:
                ep.ended_epoch = payload
                log.info("%s: end of epoch %d", ep.label(), payload)
                self._order.update_closed(self._endpoints)
        elif kind == "end":
            ep.done = True
            ep.close_socket()
            self._order.update_closed(self._endpoints)
        else:
            self.close()
            raise payload

    def _accept(self, ep: _Endpoint, meta, msg: Message) -> bool:
        """False for a message of a dropped connection (the endpoint sends it again on the new one,
        unacknowledged) and for a copy of one already handed out (acknowledged again, and dropped)."""
        if meta[0] != ep.generation:
            self._shared.release(len(msg.blob))
            return False
        if self._order.is_copy(msg):
            log.debug("dropped a copy of epoch %d batch %d from %s", msg.epoch, msg.batch_id, ep.label())
            self._shared.release(len(msg.blob))
            ep.ack(meta)
            return False
        return True

    def _hand_out(self, ep: _Endpoint, meta, msg: Message) -> Message:
        if self.world_size is not None and msg.batch_id % self.world_size != self.rank:
            self.close()
            raise ChannelError(ep.label(), f"sent batch {msg.batch_id} of epoch {msg.epoch}, which belongs to rank "
                                           f"{msg.batch_id % self.world_size}, not this client's rank {self.rank}")
        self._order.handed_out(msg)
        self.received += 1
        self._shared.release(len(msg.blob))
        ep.fit_window(len(msg.blob))
        ep.ack(meta)
        if self.log_every and self.received % self.log_every == 0:
            log.info("channel: %d messages received (%d copies dropped), waited %.3fs in total, queue depth %d "
                     "(+%d held for later epochs), %d bytes held (peak %d)", self.received, self.duplicates,
                     self._wait_seconds, sum(len(e.pending) for e in self._endpoints), self._order.parked_count(),
                     self.held_bytes, self.peak_held_bytes)
        if SAMPLING_ERROR_KEY in msg:
            text = bytes(msg[SAMPLING_ERROR_KEY]).decode("utf-8", "replace")
            raise SamplingError(ep.label(), msg.epoch, msg.batch_id, text)
        return msg if self.transform is None else self.transform(msg)

    def __iter__(self):
        if not self._shared.closed:
            self.connect()
        return self

    def __next__(self) -> Message:
        """The next message of any epoch, in arrival order."""
        shared = self._shared
        if shared.closed:
            raise StopIteration
        if not self._connected:
            self.connect()
        if shared.epoch_limit != ANY_EPOCH:
            self._limit_epochs(ANY_EPOCH)
        while self._order.parked and (event := self._order.unpark()) is not None:
            _, ep, meta, msg = event
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

    def _next_of_epoch(self, epoch: int) -> Message:
        """The next message of ``epoch`` (``Epoch.__next__``); StopIteration once every endpoint ended it."""
        if self._shared.closed:
            raise StopIteration
        if self._shared.epoch_limit != epoch:
            self._limit_epochs(epoch)
        while self._order.parked and (event := self._order.unpark(epoch)) is not None:
            _, ep, meta, msg = event
            if self._accept(ep, meta, msg):
                return self._hand_out(ep, meta, msg)
        while not self._order.over(self._endpoints, epoch):
            event = self._take()
            kind, ep, meta, payload = event
            if kind != "message":
                self._handle_control(kind, ep, payload)
                continue
            if not self._accept(ep, meta, payload):
                continue
            if payload.epoch > epoch:
                # Sent before its endpoint learned the epoch being read: held back until its epoch.
                self._order.park(event)
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
            if self._shared.closed or (self._all_done() and not self._order.parked and self._shared.events.empty()):
                return
            number += 1

    @property
    def num_endpoints(self) -> int:
        """Endpoints of the channel (known after connect())."""
        return len(self._endpoints)

    def close(self) -> None:
        """Close every connection. Messages not yet handed out are not acknowledged, so the
        endpoints give them to other clients (after the session timeout)."""
        if self._shared.closed:
            return
        self._send_all_acks()  # what was handed out is consumed: not to be sent to anyone again
        self._shared.closed = True
        for ep in self._endpoints:
            ep.close_socket()
        for ep in self._endpoints:
            thread = ep.reconnecting
            if thread is not None and thread is not threading.current_thread():
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
