"""What the readers raise, apart from any transport: ``SamplingError`` (a failed batch's record, from every
reader), and the channel client's ``ChannelError`` (an endpoint failed) with its kinds and ``ChannelTimeoutError``
(the channel did not come up)."""

from __future__ import annotations

# The key of the message the job sends for a batch whose sampling failed (GiGL's convention).
SAMPLING_ERROR_KEY = "#SAMPLING_ERROR"


class ChannelError(RuntimeError):
    """An endpoint failed: it sent ERROR (``server_text`` holds its text), broke the protocol, or
    could not be reached again. ``endpoint`` names it (``"endpoint 1 (host:port)"``)."""

    def __init__(self, endpoint: str, problem: str, server_text: str | None = None):
        super().__init__(f"{endpoint}: {problem}")
        self.endpoint = endpoint
        self.server_text = server_text


class SamplingError(ChannelError):
    """Sampling this batch failed in the job (GiGL's ``#SAMPLING_ERROR``): ``server_text`` is the
    job's traceback, ``epoch``/``batch_id`` the batch. The client stays usable: iterate on to skip it."""

    def __init__(self, endpoint: str, epoch: int, batch_id: int, text: str):
        super().__init__(endpoint, f"sampling failed for epoch {epoch} batch {batch_id}: {text}", server_text=text)
        self.epoch = epoch
        self.batch_id = batch_id


class ChannelStallError(ChannelError):
    """A connected endpoint sent nothing, not even HEARTBEAT, for ``stall_timeout`` seconds: its
    process is stopped or hung. ``last_frame`` names the last frame it sent (with epoch and batch
    for a MESSAGE), ``seconds`` how long ago."""

    def __init__(self, endpoint: str, last_frame: str, seconds: float, stall_timeout: float):
        super().__init__(endpoint, f"sent nothing for {seconds:.1f}s (stall_timeout {stall_timeout:g}s; a live "
                                   f"endpoint sends HEARTBEAT every fanout.channel.heartbeat-interval): the last "
                                   f"frame it sent was {last_frame}, {seconds:.1f}s ago")
        self.last_frame = last_frame
        self.seconds = seconds


class ChannelRankError(ChannelError, ValueError):
    """An endpoint refused this client's ``rank``/``world_size`` at the handshake: the world size is
    not the job's ``--trainers`` (the text names both), or the rank is outside ``0..world_size-1``."""


class ChannelTimeoutError(TimeoutError):
    """The channel did not come up within ``connect_timeout``; the text names every endpoint (or
    registry file) that was missing, and ``missing`` lists them."""

    def __init__(self, text: str, missing: list[str]):
        super().__init__(text)
        self.missing = missing


class _ServerRefused(Exception):
    """ERROR during the handshake, or a WELCOME that does not fit: no retry."""

