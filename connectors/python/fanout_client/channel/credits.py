"""Credit windows and acknowledgements (docs/channel-protocol.md, "Credits" and "Acknowledgements"):
every FETCH frame grants credits (MESSAGE frames the endpoint may send ahead), acknowledges one
consumed message and tells the epoch being read (max_epoch). An endpoint's window is ``prefetch``
messages, widened for small messages to what fits in ``prefetch_bytes``; acks are batched."""

from __future__ import annotations

from .endpoint import _Endpoint
from .frames import FETCH, _FETCH, _FETCH_FRAME, _send_frame

# Small messages are prefetched beyond ``prefetch`` while they fit in this many bytes per endpoint.
DEFAULT_PREFETCH_BYTES = 8 << 20
# Upper bound of an endpoint's credit window, however small its messages.
MAX_PREFETCH_WINDOW = 1024


class _Credits:
    """Credit and acknowledgement part of ``ChannelClient``."""

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
            with ep.send_lock:
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
            with ep.send_lock:
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
                with ep.send_lock:
                    sock.sendall(b"".join(frames))
            except (OSError, AttributeError):
                pass  # the endpoint went away; the next read of it reconnects or reports how

    def _send_all_acks(self) -> None:
        for ep in self._endpoints:
            if ep.acks or ep.extra:
                self._send_acks(ep)

    def credits(self) -> dict[int, tuple[int, int]]:
        """Per endpoint index: (credits granted, MESSAGE frames received) on its current connection."""
        return {ep.index: (ep.granted, ep.received) for ep in self._endpoints}

