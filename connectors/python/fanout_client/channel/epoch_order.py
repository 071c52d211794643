"""Epoch order across a client's endpoints: ``client.epochs()`` hands out epoch by epoch; an ``Epoch``
ends when every endpoint sent END_OF_EPOCH for it (or ended its stream). A message of a later epoch that
an endpoint sent before it learned the epoch being read is parked (held back, unacknowledged) until its
epoch. Copies of messages already handed out (after a reconnect or a job restart) are dropped by
(epoch, batch_id). ``_EpochOrder`` holds that state for the client; ``Epoch`` is one epoch's iterator."""

from __future__ import annotations

from ..errors import SamplingError
from ..message import Message


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
    """Which epochs every endpoint has ended, the batches handed out of the open ones, and the events parked
    for later epochs."""

    def __init__(self):
        self.parked: dict[int, list] = {}   # epoch -> queued events of a later epoch
        self.seen: dict[int, set] = {}      # epoch -> batch ids handed out
        self.closed_epoch = -1              # every endpoint ended epochs up to this one
        self.duplicates = 0

    def update_closed(self, endpoints) -> None:
        """After an END_OF_EPOCH or END_OF_STREAM: forget the batches of epochs every endpoint ended."""
        open_ends = [ep.ended_epoch for ep in endpoints if not ep.done]
        if not open_ends:
            return
        low = min(open_ends)
        if low > self.closed_epoch:
            self.closed_epoch = low
            for epoch in [e for e in self.seen if e <= low]:
                del self.seen[epoch]

    def is_copy(self, msg: Message) -> bool:
        """Whether ``msg`` was handed out already (counted in ``duplicates``). A held-back message is not
        acknowledged until it is handed out (protocol v3), so an endpoint cannot end its epoch before
        then: a message of an ended epoch is a copy."""
        if msg.epoch <= self.closed_epoch or msg.batch_id in self.seen.get(msg.epoch, ()):
            self.duplicates += 1
            return True
        return False

    def handed_out(self, msg: Message) -> None:
        self.seen.setdefault(msg.epoch, set()).add(msg.batch_id)

    @staticmethod
    def over(endpoints, epoch: int) -> bool:
        return all(ep.done or ep.ended_epoch >= epoch for ep in endpoints)

    def park(self, event) -> None:
        """Hold a message event back until its epoch, neither acknowledged nor credited, so it counts
        against its endpoint's window."""
        self.parked.setdefault(event[3].epoch, []).append(event)

    def unpark(self, epoch: int | None = None):
        """The next parked event of ``epoch`` (None: of the earliest epoch), or None."""
        if epoch is None:
            if not self.parked:
                return None
            epoch = min(self.parked)
        events = self.parked.get(epoch)
        if not events:
            self.parked.pop(epoch, None)
            return None
        event = events.pop(0)
        if not events:
            del self.parked[epoch]
        return event

    def parked_count(self) -> int:
        return sum(len(v) for v in self.parked.values())


def _drain(epoch: Epoch):
    try:
        while True:
            yield next(epoch)
    except StopIteration:
        return
    except SamplingError:
        yield None
        yield from _drain(epoch)
