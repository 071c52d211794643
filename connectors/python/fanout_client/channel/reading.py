"""Reading (the consuming thread): frames of every connected endpoint, turned into events
("message", "epoch_end", "end", "error"). A frame already in a connection's read-ahead buffer is
taken at once, otherwise ``select`` waits for whichever endpoint has data, so a slow endpoint never
holds up the others and no thread hand-off sits on the per-message path. Events of reconnecting
threads come through a queue. A broken connection is handed to the reconnecting part."""

from __future__ import annotations

import logging
import queue
import select
import ssl
import time

from ..message import Message
from ..safetensors import decode
from .endpoint import _Endpoint
from ..errors import ChannelError
from .frames import END_OF_EPOCH, END_OF_STREAM, ERROR, FRAME_NAMES, HEARTBEAT, MESSAGE, _I32, _send_frame
from .liveness import _stall_error, _stalled

log = logging.getLogger("fanout_client.channel")

# What _read_event returns for a HEARTBEAT: the endpoint is alive, nothing to hand out.
_NOTHING = ()


class _Reading:
    """Reading part of ``ChannelClient``."""

    def _read_events(self, ep: _Endpoint) -> None:
        """Read the next frame of ``ep`` and every further one already whole in its read-ahead
        buffer into ``ep.pending`` (so a batch of small frames costs one system call, and a
        server sending beyond its credits is caught as soon as the frames are here)."""
        pending = ep.pending
        while True:
            event = self._read_event(ep)
            if event is None:
                return
            if event is not _NOTHING:
                pending.append(event)
            frames = ep.stream
            if frames is None or not frames.has_frame():
                return

    def _read_event(self, ep: _Endpoint):
        """Read one frame of ``ep`` (its bytes are buffered or arriving) -> an event, ``_NOTHING``
        for a HEARTBEAT, or None when the connection broke and is being re-established."""
        frames = ep.stream
        try:
            frame_type, body = frames.read()
            ep.heard = time.monotonic()
            if frame_type == HEARTBEAT:
                if body:
                    raise ValueError(f"HEARTBEAT body of {len(body)} bytes, expected 0")
                ep.last_frame = (HEARTBEAT,)
                return _NOTHING
            if frame_type == MESSAGE:
                seq, epoch, batch_id, num_batches, blob = body
                ep.last_frame = (MESSAGE, epoch, batch_id)  # formatted only for a stall error
                ep.received += 1
                if ep.received > ep.granted:
                    raise ValueError(f"sent MESSAGE {ep.received} but only {ep.granted} credits were granted")
                tensors = decode(blob)
                msg = Message(tensors, epoch=epoch, batch_id=batch_id, num_batches=num_batches,
                              endpoint=ep.index, blob=blob)
                self.held_bytes += len(blob)
                if self.held_bytes > self.peak_held_bytes:
                    self.peak_held_bytes = self.held_bytes
                return "message", ep, (ep.generation, ep.session, seq), msg
            ep.last_frame = (frame_type,)
            if frame_type == END_OF_EPOCH:
                if len(body) != 4:
                    raise ValueError(f"END_OF_EPOCH body of {len(body)} bytes, expected 4")
                ep.last_frame = (END_OF_EPOCH, _I32.unpack(body)[0])
                return "epoch_end", ep, None, _I32.unpack(body)[0]
            if frame_type == END_OF_STREAM:
                ep.stream = None
                return "end", ep, None, None
            if frame_type == ERROR:
                text = body.decode("utf-8", "replace")
                ep.stream = None
                return "error", ep, None, ChannelError(ep.label(), f"sent ERROR: {text}", server_text=text)
            raise ValueError(f"unexpected {FRAME_NAMES.get(frame_type, f'frame type {frame_type}')} frame")
        except ValueError as e:  # protocol violation: tell the server, then fail
            ep.stream = None
            try:
                with ep.send_lock:
                    _send_frame(ep.sock, ERROR, f"protocol error: {e}".encode("utf-8"))
            except OSError:
                pass
            return "error", ep, None, ChannelError(ep.label(), f"protocol error: {e}")
        except (BlockingIOError, TimeoutError):  # SO_RCVTIMEO (TLS: the socket timeout): not a byte for
            ep.stream = None                    # stall_timeout in the middle of a frame
            return "error", ep, None, _stall_error(ep, self.stall_timeout)
        except (EOFError, ssl.SSLEOFError) as e:  # a TLS endpoint closed without close_notify
            if ep.registry_file is not None:
                self._refresh_from_registry(ep)
                if ep.done:
                    log.warning("%s closed without END_OF_STREAM but is finished in the registry", ep.label())
                    ep.stream = None
                    return "end", ep, None, None
            self._lost(ep, e)
        except OSError as e:
            self._lost(ep, e)
        return None

    # ---- consuming ----------------------------------------------------------------------------

    def _take(self):
        """The next event, blocking; counts the time waited. A frame already in a read-ahead
        buffer or in a socket comes first, then events of reconnecting threads; only when neither
        has anything are the acks flushed and the sockets waited on."""
        while True:
            reading = []
            for ep in self._endpoints:
                if ep.pending:
                    return ep.pending.popleft()
                frames = ep.stream
                if frames is None:
                    continue
                if frames.end > frames.start or frames.fill_now():  # the rest of the frame is in flight
                    self._read_events(ep)
                    if ep.pending:
                        return ep.pending.popleft()
                    continue
                reading.append(ep)
            try:
                kind, ep, meta, payload = self._queue.get_nowait()
            except queue.Empty:
                pass
            else:
                if kind != "reconnected":
                    return kind, ep, meta, payload
                ep.stream = payload
                ep.heard = time.monotonic()
                self._send_epoch_limit(ep)  # in case it changed after the reconnecting thread's FETCH
                continue
            self._send_all_acks()  # about to wait: the endpoints must have every ack and credit
            started = time.monotonic()
            stalled = _stalled(reading, started, self.stall_timeout)
            if stalled is not None:
                stalled.stream = None
                return "error", stalled, None, _stall_error(stalled, self.stall_timeout)
            try:
                if len(reading) == 1 and not any(t.is_alive() for t in self._threads):
                    ep = reading[0]  # the only source of events: wait in recv itself
                    self._read_events(ep)
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
                    self._read_events(ep)

