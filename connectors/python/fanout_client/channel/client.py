"""``ChannelClient``: the public iterator, assembled from the parts (connection, resume, credits,
reading, epoch order); this module holds its options, the hand-out of each message and shutdown."""

from __future__ import annotations

import logging
import queue
import ssl
import threading
from pathlib import Path

from ..message import Message
from ..reader import check_transform
from .connection import _Connecting
from .credits import DEFAULT_PREFETCH_BYTES, _Credits
from .endpoint import _Endpoint, _parse_address
from .epoch_order import _EpochOrder
from ..errors import SAMPLING_ERROR_KEY, ChannelError, SamplingError
from .frames import ANY_EPOCH, DEFAULT_MAX_FRAME_BYTES
from .liveness import DEFAULT_STALL_TIMEOUT
from .reading import _Reading
from .resume import _Resuming
from .tls import _client_context

log = logging.getLogger("fanout_client.channel")


class ChannelClient(_Connecting, _Resuming, _Credits, _Reading, _EpochOrder):
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

    def _hand_out(self, ep: _Endpoint, meta, msg: Message) -> Message:
        if self.world_size is not None and msg.batch_id % self.world_size != self.rank:
            self.close()
            raise ChannelError(ep.label(), f"sent batch {msg.batch_id} of epoch {msg.epoch}, which belongs to rank "
                                           f"{msg.batch_id % self.world_size}, not this client's rank {self.rank}")
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
        return msg if self.transform is None else self.transform(msg)

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

    @property
    def num_endpoints(self) -> int:
        """Endpoints of the channel (known after connect())."""
        return len(self._endpoints)

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

