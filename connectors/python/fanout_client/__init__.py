"""Fanout trainer client: read sampled-subgraph messages from a live Fanout job or from files.

- ``decode(blob)`` / ``encode(tensors)``: the safetensors codec of one message.
- ``read_samples(path)`` / ``SamplesReader(path).epochs()``: messages stored in ``.samples`` files (a file
  or a directory) by (epoch, batch_id), one per batch, ``SamplingError`` for a failed batch (the channel
  client's contract); ``read_records(path)``: every record as stored.
- ``ChannelClient(registry=DIR)``: messages pulled live from every channel endpoint (protocol v3,
  ``docs/channel-protocol.md``): ``for msg in client`` or ``for epoch in client.epochs(): for msg in
  epoch``; a failed batch raises ``SamplingError``.
- ``ShmRingReader(path)`` / ``ShmClient(dir, name)``: messages read in place (zero copy) from the
  shared-memory rings of a job on this host (``docs/shm-ring.md``).
- ``to_torch(msg)``: numpy arrays to torch tensors (torch is optional and imported lazily).
- ``to_pyg(msg)``: one message as the PyG ``Data`` a ``NeighborLoader`` yields (features, labels,
  ``edge_index``, ``n_id``, ``batch_size``, ...), a typed message as ``HeteroData``; ``transform=to_pyg`` on
  any reader does it for you.
- ``Reader``: the protocol of all three readers (``fanout_client.reader``): messages flat or by ``epochs()``,
  ``close()``/``with``, ``rank``/``world_size``, and one ``transform=`` callable applied to every message;
  ``fanout_client.dataset.MessageDataset`` wraps any of them as a torch ``IterableDataset``.
- ``prefetch(source)``: any of the readers iterated on a background thread, a few messages ahead, so
  receiving, decoding and ``to_pyg`` overlap with the training step; ``prefetch(open_source, process=True)``
  (``ProcessPrefetcher``) reads in a worker process and hands messages over in shared memory, dequantised.
- ``to_hetero_data(msg)``: a typed-graph message (``#IS_HETERO`` = [1]) as PyG ``HeteroData`` (torch and
  PyG imported lazily), with GiGL's ``y_positive``/``y_negative`` for ABLP messages; ``ablp_labels(msg)``
  gives those labels as numpy.

Messages use GLT key names (``ids``, ``rows``, ``cols``, ``batch``, ``num_sampled_nodes``, ...,
metadata as ``#META.<name>``). Command line: ``python3 -m fanout_client --help``.
"""

from .reader import Reader
from .errors import ChannelError, ChannelStallError, ChannelTimeoutError, SamplingError
from .shm import ShmClient, ShmMessage, ShmRingError, ShmRingReader
from .message import Message
from .safetensors import DTYPES, decode, dtype_name, encode
from .epochs import IncompleteEpochError
from .samples import (SamplesFormatError, SamplesReader, SamplesTruncatedWarning, SamplesWriter, read_records,
                      read_samples, samples_files)
from .torch_support import to_torch
from .pyg import dequantise, to_pyg
from .hetero_pyg import ablp_labels, is_hetero, to_hetero_data
from .prefetch import Prefetcher, prefetch
from .prefetch_process import ProcessPrefetcher

__version__ = "0.1.0"

# The TCP channel client is imported when first named, so the file and shared-memory readers do not load it.
_CHANNEL = {"ChannelClient", "Epoch", "PROTOCOL_VERSION"}


def __getattr__(name):
    if name in _CHANNEL:
        from . import channel
        return getattr(channel, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "decode", "encode", "DTYPES", "dtype_name", "Reader",
    "read_samples", "read_records", "SamplesReader", "samples_files", "SamplesWriter", "SamplesFormatError",
    "SamplesTruncatedWarning",
    "IncompleteEpochError",
    "ChannelClient", "ChannelError", "ChannelStallError", "ChannelTimeoutError", "SamplingError", "Epoch",
    "PROTOCOL_VERSION",
    "ShmRingReader", "ShmClient", "ShmMessage", "ShmRingError",
    "Message", "to_torch", "to_pyg", "dequantise", "is_hetero", "to_hetero_data", "ablp_labels", "prefetch", "Prefetcher", "ProcessPrefetcher",
]
