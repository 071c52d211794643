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

A client owns one ``_Endpoint`` object per endpoint connection (its socket, session, credits,
resume and liveness) and the epoch order across them. One module per concern, each readable alone:

- ``frames``: frame types, writing a frame, reading frames through a read-ahead buffer.
- ``connection``: the registry files, opening TCP connections, connecting every endpoint by a deadline.
- ``endpoint``: ``_Endpoint``, one endpoint connection: the HELLO/WELCOME handshake, credits and acks
  sent, its frames turned into events, reconnecting and resuming its session in the background.
- ``credits``: an endpoint's credit window and pending acknowledgements (the FETCH frames' content).
- ``liveness``: heartbeats and the stall timeout.
- ``epoch_order``: ``Epoch``, parking early messages, dropping copies, across endpoints.
- ``tls``: the TLS context (``tls_ca``/``ssl_context``), the no-downgrade check, the handshake.
- ``client``: ``ChannelClient`` itself (options, waiting on the endpoints, hand-out, shutdown).

The error types (``ChannelError``, ``SamplingError``, ...) are in ``fanout_client.errors``.
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
