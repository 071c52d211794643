"""Reconnecting and session resume (docs/channel-protocol.md, "Lost connection"): a connection that
breaks is re-established by a background thread (re-reading the registry, where a restarted endpoint
writes its new port) while the other endpoints keep being read; the HELLO carries the session id, so
a resumed session sends its unacknowledged messages again. Messages of the dropped connection still
queued are stale (``_Endpoint.generation``)."""

from __future__ import annotations

import logging
import threading
import time

from .endpoint import _Endpoint
from ..errors import ChannelError, _ServerRefused
from .frames import _FrameStream

log = logging.getLogger("fanout_client.channel")


class _Resuming:
    """Reconnecting part of ``ChannelClient``."""

    def _lost(self, ep: _Endpoint, problem) -> None:
        """The connection of ``ep`` broke: stop reading it and re-establish it in the background."""
        log.warning("%s: connection lost (%s); reconnecting for up to %gs", ep.label(), problem,
                    self.reconnect_timeout)
        ep.stream = None
        with ep.lock:
            ep.generation += 1
        self._close_endpoint(ep)
        thread = threading.Thread(target=self._reconnector, args=(ep,), daemon=True,
                                  name=f"fanout-channel-reconnect-{ep.label()}")
        self._threads = [t for t in self._threads if t.is_alive()]
        self._threads.append(thread)
        thread.start()

    def _reconnector(self, ep: _Endpoint) -> None:
        put = self._queue.put
        outcome = self._reconnect(ep)
        if self._closed:
            return
        if outcome == "finished":
            put(("end", ep, None, None))
        elif outcome is not None:
            put(("error", ep, None, outcome))
        else:
            self._grant(ep, ep.window)
            put(("reconnected", ep, None, _FrameStream(ep.sock, self.max_frame_bytes)))

    def _reconnect(self, ep: _Endpoint):
        """None when reconnected, "finished" when the registry says so, else a ChannelError."""
        deadline = time.monotonic() + self.reconnect_timeout
        while not self._closed:
            if ep.registry_file is not None:
                self._refresh_from_registry(ep)
                if ep.done:
                    return "finished"
            try:
                if self._try_connect(ep, deadline):
                    return None
            except _ServerRefused as e:
                return e.args[0]
            if time.monotonic() >= deadline:
                return ChannelError(ep.label(), f"connection lost and not re-established within "
                                                f"{self.reconnect_timeout:g}s: {ep.last_error}")
            time.sleep(0.1)
        return None

