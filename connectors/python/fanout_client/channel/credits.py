"""Credit windows and acknowledgements (docs/channel-protocol.md, "Credits" and "Acknowledgements"):
every FETCH frame grants credits (MESSAGE frames the endpoint may send ahead), acknowledges one
consumed message and tells the epoch being read (max_epoch). An endpoint's window is ``prefetch``
messages, widened for small messages to what fits in ``prefetch_bytes``; acks are batched.
``_CreditWindow`` is one endpoint's bookkeeping; its ``_Endpoint`` sends the frames."""

from __future__ import annotations

from .frames import FETCH, _FETCH, _FETCH_FRAME

# Small messages are prefetched beyond ``prefetch`` while they fit in this many bytes per endpoint.
DEFAULT_PREFETCH_BYTES = 8 << 20
# Upper bound of an endpoint's credit window, however small its messages.
MAX_PREFETCH_WINDOW = 1024
# Acks are sent once this many are pending (or half the window, if less): an endpoint holds at most
# fanout.channel.capacity messages (64 by default) counting unacknowledged ones, so acks held back for
# half a wide window (64 of 128 for 64 KiB messages) stopped it until the client had drained its socket,
# and the two sides took turns instead of working at once.
ACK_BATCH = 16


class _CreditWindow:
    """One endpoint's credits: granted and received on the current connection, the window, and the
    acknowledgements and credits not sent yet. The endpoint holds its lock around every change that
    races with the reader (``granted``) or a reconnecting thread."""

    def __init__(self):
        self.granted = 0        # credits sent on the current connection
        self.received = 0       # MESSAGE frames received on the current connection
        self.window = 0         # messages the endpoint may have ahead of consumption
        self.avg_bytes = 0.0    # moving average of its message sizes
        self.extra = 0          # credits owed for a grown window, sent with the next acks
        self.withhold = 0       # credits not returned yet because the window shrank
        self.acks: list = []    # (generation, session, seq) not yet sent

    def new_connection(self) -> None:
        """A new connection is granted its whole window afresh; pending acks stay (they name their session)."""
        self.granted = self.received = 0
        self.extra = self.withhold = 0

    def add_ack(self, meta) -> bool:
        """Note a consumed message's ack; True once ``ACK_BATCH`` or half the window are pending (time to send)."""
        self.acks.append(meta)
        return len(self.acks) >= max(1, min(ACK_BATCH, self.window // 2))

    def owes(self) -> bool:
        return bool(self.acks or self.extra)

    def fit(self, nbytes: int, prefetch: int, prefetch_bytes: int) -> bool:
        """Size the window to the messages: ``prefetch_bytes`` worth of them by their moving average,
        at least ``prefetch``. Growing owes the difference with the next acks; shrinking keeps back that
        many returning credits. Changes under a quarter are ignored, so the window does not follow every
        wobble of the sizes. True when credits are owed (to be sent now)."""
        self.avg_bytes = float(nbytes) if self.avg_bytes == 0 else self.avg_bytes + (nbytes - self.avg_bytes) / 8
        fit = max(prefetch, min(MAX_PREFETCH_WINDOW, int(prefetch_bytes // max(self.avg_bytes, 1.0))))
        if 4 * abs(fit - self.window) < self.window:
            return False
        if fit > self.window:
            grow = fit - self.window
            paid = min(grow, self.withhold)  # first cancel credits still kept back
            self.withhold -= paid
            self.extra += grow - paid
        else:
            shrink = self.window - fit
            owed = min(shrink, self.extra)  # first drop credits not sent yet
            self.extra -= owed
            self.withhold += shrink - owed
        self.window = fit
        return self.extra > 0

    def take_frames(self, generation: int, session: int, epoch_limit: int) -> bytes:
        """The FETCH frames for the pending acks and owed credits (counted as granted), cleared."""
        frames = []
        for ack_generation, ack_session, seq in self.acks:
            # A credit belongs to the connection it was consumed from (a new one was granted its
            # window afresh); an ack to the session (a resumed session still holds the message).
            credit = 1 if ack_generation == generation else 0
            if credit and self.withhold:
                self.withhold -= 1  # the window shrank: this credit is not returned
                credit = 0
            ack = seq if ack_session == session else 0
            if credit or ack:
                self.granted += credit
                frames.append(_FETCH_FRAME.pack(1 + _FETCH.size, FETCH, credit, ack, epoch_limit))
        self.acks.clear()
        if self.extra:
            self.granted += self.extra
            frames.append(_FETCH_FRAME.pack(1 + _FETCH.size, FETCH, self.extra, 0, epoch_limit))
            self.extra = 0
        return b"".join(frames)
