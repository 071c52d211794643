"""Channel client: pulls sampled-subgraph messages from every endpoint of a running Fanout job.

Speaks the channel protocol v3 (``docs/channel-protocol.md``): HELLO (access token, session id) /
WELCOME handshake, FETCH frames carrying credits (``prefetch`` per endpoint up front, then one per
message handed to the caller) and the acknowledgement of each consumed message, MESSAGE,
END_OF_EPOCH, END_OF_STREAM, ERROR and HEARTBEAT frames. An endpoint that sends nothing, not even
HEARTBEAT, for ``stall_timeout`` seconds while the client waits on it raises ``ChannelStallError``.

Two ways to read::

    for msg in client: ...                  # every message, in arrival order
    for epoch in client.epochs():           # epoch by epoch, like a GLT/PyG loader
        for msg in epoch: ...               # ends when every endpoint ended epoch.epoch

With ``rank=r, world_size=N`` (the job's ``--trainers N``) the client is one data-parallel trainer:
it gets exactly rank r's share (the batches with ``batch_id % N == r``) and its epochs end when
that share is delivered.

One module per concern, each readable alone:

- ``frames``: frame types, writing a frame, reading frames through a read-ahead buffer.
- ``errors``: ``ChannelError``, ``SamplingError``, ``ChannelStallError``, ``ChannelTimeoutError``.
- ``endpoint``: what the client knows of one endpoint (connection, session, window, progress).
- ``connection``: finding the endpoints (registry or list), connecting, the HELLO/WELCOME handshake.
- ``resume``: re-establishing a lost connection in the background and resuming its session.
- ``credits``: credit windows, acknowledgements and the epoch limit sent in FETCH frames.
- ``liveness``: heartbeats and the stall timeout.
- ``reading``: the consuming thread's loop over every endpoint's frames.
- ``epoch_order``: ``Epoch``, parking early messages, dropping copies.
- ``tls``: the TLS context (``tls_ca``/``ssl_context``), the no-downgrade check, the handshake.
- ``client``: ``ChannelClient`` itself (options, hand-out, shutdown), made of the parts above.
"""

from .client import ChannelClient
from .credits import DEFAULT_PREFETCH_BYTES, MAX_PREFETCH_WINDOW
from .epoch_order import Epoch
from ..errors import SAMPLING_ERROR_KEY, ChannelError, ChannelRankError, ChannelStallError, ChannelTimeoutError, SamplingError
from .frames import (ANY_EPOCH, DEFAULT_MAX_FRAME_BYTES, END_OF_EPOCH, END_OF_STREAM, ERROR, FETCH, FRAME_NAMES,
                     HEARTBEAT, HELLO, MESSAGE, PROTOCOL_VERSION, WELCOME)
from .liveness import DEFAULT_STALL_TIMEOUT

__all__ = ["ChannelClient", "ChannelError", "ChannelRankError", "ChannelStallError", "ChannelTimeoutError", "SamplingError", "Epoch",
           "PROTOCOL_VERSION"]
