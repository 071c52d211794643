"""Epoch order and parking: ``client.epochs()`` hands out epoch by epoch; an ``Epoch`` ends when
every endpoint sent END_OF_EPOCH for it (or ended its stream). A message of a later epoch that an
endpoint sent before it learned the epoch being read is parked (held back, unacknowledged) until its
epoch. Copies of messages already handed out (after a reconnect or a job restart) are dropped by
(epoch, batch_id)."""

from __future__ import annotations

import logging
import warnings

from ..message import Message
from .endpoint import _Endpoint
from ..errors import SamplingError

log = logging.getLogger("fanout_client.channel")


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


class _EpochOrder:
    """Epoch-order part of ``ChannelClient``."""

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


def _drain(epoch: Epoch):
    try:
        while True:
            yield next(epoch)
    except StopIteration:
        return
    except SamplingError:
        yield None
        yield from _drain(epoch)
