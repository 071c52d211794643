"""PyTorch Geometric batches: one Fanout message as the ``Data`` PyG's ``NeighborLoader`` yields.

``to_pyg(msg)`` is the one conversion; pass it as any reader's ``transform`` (``ChannelClient``,
``read_samples``, ``ShmClient``, ``prefetch``, ``MessageDataset``) to get one ``Data`` per message. torch is required, torch_geometric optional: without it the same fields come
back as a dict (a ``Message``) of torch tensors.

Conventions (checked against PyG 2.8's ``NodeLoader.filter_fn`` and GLT's ``DistLoader._collate_fn``):

- k-hop: ``edge_index = [cols; rows]``, i.e. message flow from the sampled neighbour to the node it
  was sampled for (PyG ``flow="source_to_target"``), edges grouped by hop, so
  ``torch_geometric.utils.trim_to_layer`` works with ``num_sampled_nodes``/``num_sampled_edges``.
  With ``--edge-dir in`` these are the graph's own edges; with ``--edge-dir out`` they are the
  reversed edges, as GLT's loader gives them.
- ``--subgraph-type bidirectional``/``induced``: edges not grouped by hop, and PyG's sampler output has
  ``num_sampled_nodes = num_sampled_edges = None`` (``SamplerOutput.to_bidirectional``; the induced path),
  so its ``Data`` has neither attribute; neither has ours.
- ``--disjoint`` (and temporal): ``#META.batch``, each node's tree (seed position), is ``Data.batch``, as
  PyG's disjoint sampler sets it.
- ABLP on a plain graph (``--ablp-positive-edges``): GiGL's ``DistABLPLoader`` output on a homogeneous graph,
  ``y_positive`` (and ``y_negative``) = ``{anchor position: local indices of its label nodes}``, from
  ``#META.gigl_positive_labels.<GiGL's homogeneous label type>``; ``batch_size`` is the number of anchors.
- PPR: GiGL's ``DistNeighborLoader`` output: ``edge_index`` = ``#META.edge_index`` as is (row 0 the
  seed, row 1 its PPR neighbour, local indices) and ``edge_attr`` the PPR score per pair, 1-D.
"""

from __future__ import annotations

import importlib

import numpy as np

from .epochs import raise_if_error
from .message import Message
from .quantised import dequantise_uint8
from .torch_support import _import_torch, to_torch

__all__ = ["to_pyg", "dequantise"]

_SCALE, _OFFSET = "#META.nfeats_scale", "#META.nfeats_offset"
_PPR_EDGE_INDEX, _PPR_EDGE_ATTR = "#META.edge_index", "#META.edge_attr"
_TREE = "#META.batch"
_ABLP_POSITIVE, _ABLP_NEGATIVE = "#META.gigl_positive_labels.", "#META.gigl_negative_labels."
_ABLP_PREFIXES = (_ABLP_POSITIVE, _ABLP_NEGATIVE)
_SCALAR_META = {"#META.epoch": "epoch", "#META.batch_id": "batch_id", "#META.num_batches": "num_batches"}
# Keys that become a named field below; any other ``#META.<name>`` is passed on as ``<name>`` (GLT does).
_CONSUMED = {"ids", "rows", "cols", "eids", "batch", "nfeats", "nlabels", "efeats", "num_sampled_nodes",
             "num_sampled_edges", "#IS_HETERO", "#META.input_id", _SCALE, _OFFSET, _PPR_EDGE_INDEX,
             _PPR_EDGE_ATTR, _TREE, *_SCALAR_META}


def _data_class():
    """``torch_geometric.data.Data``, or None when PyG is not importable (then dicts are returned)."""
    try:
        return importlib.import_module("torch_geometric.data").Data
    except ImportError:
        return None


def _features(torch, msg: dict, t: dict, x_dtype, dequantise: bool, out: dict):
    """``nfeats`` as node features: uint8 dequantised per column (offset + scale * q, float32), or with
    ``dequantise=False`` kept as uint8 with ``x_scale``/``x_offset`` beside it (see ``dequantise``)."""
    if msg["nfeats"].dtype == np.uint8:
        q = np.asarray(msg["nfeats"])
        if _SCALE not in msg or _OFFSET not in msg:
            raise ValueError(f"uint8 nfeats need {_SCALE} and {_OFFSET} to be dequantised")
        scale = np.asarray(msg[_SCALE], dtype=np.float32)
        offset = np.asarray(msg[_OFFSET], dtype=np.float32)
        if scale.shape != (q.shape[1],) or offset.shape != (q.shape[1],):
            raise ValueError(f"nfeats is {list(q.shape)} but {_SCALE} is {list(scale.shape)} and "
                             f"{_OFFSET} {list(offset.shape)}: one entry per column expected")
        if not dequantise:
            # A quarter of float32's bytes to move to the device; dequantise(data) does the arithmetic there.
            out["x_scale"], out["x_offset"] = torch.from_numpy(scale.copy()), torch.from_numpy(offset.copy())
            return t["nfeats"]
        # numpy (quantised.py): a first torch elementwise call can take half a second.
        x = torch.from_numpy(dequantise_uint8(q, scale, offset))
    else:
        x = t["nfeats"]
    return x if x_dtype is None else x.to(x_dtype)


def dequantise(data, dtype="float32"):
    """The features of ``to_pyg(msg, dequantise=False)`` as ``dtype`` (default float32), where ``data`` is now:
    ``x = x_offset + x_scale * x`` per column, the same values ``to_pyg`` computes on the CPU by default.

    Call it after ``data.to(device)``: a GPU trainer then moves uint8 features (a quarter of float32's bytes) and
    dequantises on the GPU, so the trainer's CPU only decodes and wraps. Removes ``x_scale`` and ``x_offset``;
    returns ``data`` (a ``Data`` or the dict ``to_pyg`` returns without PyG). ``data`` without ``x_scale`` (float
    features, or already dequantised) is returned as it is.
    """
    torch = _import_torch()
    dtype = getattr(torch, dtype) if isinstance(dtype, str) else dtype
    is_dict = isinstance(data, dict)
    get = data.get if is_dict else (lambda k: getattr(data, k, None))
    scale, offset = get("x_scale"), get("x_offset")
    if scale is None or offset is None:
        return data
    # Two separate operations (not a fused multiply-add), as numpy does in to_pyg: the same float32 values.
    x = get("x").to(dtype).mul_(scale.to(dtype)).add_(offset.to(dtype))
    if is_dict:
        data["x"] = x
        del data["x_scale"], data["x_offset"]
    else:
        data.x = x
        del data.x_scale, data.x_offset
    return data


def _hop_counts(t: dict):
    """``num_sampled_nodes`` [hops+1] and ``num_sampled_edges`` [hops] as python lists (PyG's form), or
    (None, None) for a message without ``num_sampled_edges`` (``--subgraph-type bidirectional``/``induced``)."""
    if "num_sampled_edges" not in t:
        # PyG sets both to None for these subgraph types: trim_to_layer cannot cut edges that are not
        # grouped by hop, and a trainer tells "do not trim" by num_sampled_nodes being None.
        return None, None
    nodes = t["num_sampled_nodes"].tolist()
    edges = t["num_sampled_edges"].tolist()
    if len(edges) != len(nodes) - 1:
        # A message of the earlier layout had hops+1 edge entries (a leading 0); trim_to_layer would
        # silently cut the wrong edges with it, so refuse instead of guessing.
        raise ValueError(f"num_sampled_edges has {len(edges)} entries for {len(nodes)} entries of "
                         "num_sampled_nodes; expected one per hop (hops = len(num_sampled_nodes) - 1)")
    return nodes, edges


def to_pyg(msg: dict, x_dtype="float32", dequantise=True):
    """Convert one k-hop or PPR message to what PyG's ``NeighborLoader`` yields.

    A typed-graph message (``#IS_HETERO`` = [1]) becomes ``to_hetero_data(msg)`` (a ``HeteroData``, with
    ABLP's ``y_positive``/``y_negative``), or without PyG ``to_torch(msg)``; the rest of this describes
    homogeneous messages.

    Returns a ``torch_geometric.data.Data`` (or, when PyG is not importable, a ``Message`` dict of
    torch tensors under the same names) with:

    - ``x``: ``nfeats`` [n, d]; uint8 features are dequantised (``offset + scale * q`` per column);
      float16/uint8 features come back as ``x_dtype`` (default float32, what PyG layers expect);
      ``x_dtype=None`` keeps float16 as sent (e.g. to move half the bytes to a GPU and cast there).
      ``dequantise=False`` keeps uint8 features as sent, with ``x_scale`` and ``x_offset`` [d] float32 beside
      them: move the ``Data`` to the GPU, then ``fanout_client.dequantise(data)`` (a quarter of the bytes to
      copy, and the trainer's CPU does no per-feature work). A typed message refuses it (``ValueError``).
    - ``y``: ``nlabels`` [n] int64, aligned with ``n_id`` (-1 = unlabelled), as NeighborLoader
      gives labels for every sampled node; the seeds' labels are ``y[:batch_size]``.
    - ``n_id``: ``ids`` (global node ids, the unique seeds first); ``e_id``: ``eids`` when present;
      ``edge_attr``: ``efeats`` when present.
    - ``edge_index``: k-hop ``[cols; rows]`` (neighbour -> the node it was sampled for);
      PPR ``#META.edge_index`` (seed -> PPR neighbour, GiGL) with ``edge_attr`` = the PPR scores
      [N] float32 and ``hop_proximity`` [N] float32.
    - ``batch_size``: the number of seed rows at the top of ``x`` (unique seeds; one per seed with disjoint
      trees); ``input_id``:
      ``#META.input_id`` (each seed's position in the job's seed list) when present.
    - ``num_sampled_nodes`` [hops+1], ``num_sampled_edges`` [hops]: python lists (k-hop only); absent for
      ``--subgraph-type bidirectional``/``induced`` messages (PyG's are None then: edges are not grouped
      by hop, so nothing can be trimmed), whose ``batch_size`` still comes from the message.
    - ``batch``: with ``--disjoint`` or temporal sampling, ``#META.batch`` (each node's tree, i.e. the
      position of its seed in the batch), PyG's disjoint ``Data.batch``.
    - ``y_positive``/``y_negative`` (plain-graph ABLP): ``{anchor position: local indices}`` as GiGL's
      ``DistABLPLoader`` sets them; then ``batch_size`` is the number of anchors (``batch``).
    - ``epoch``, ``batch_id``, ``num_batches`` as ints; any other ``#META.<name>`` as ``<name>`` (e.g. a
      link message's ``edge_label_index``, ``edge_label``, ``edge_label_time``, triplet ``seed_time``).

    The seed ids (the message's ``batch``) are not copied to ``Data.batch``, which in PyG means the graph
    (for disjoint sampling the tree) each node belongs to; they are ``n_id[:batch_size]``. Tensors share
    memory with ``msg`` where they can (``torch.from_numpy``); read-only arrays (e.g. shared-memory views)
    are copied. A message carrying ``#SAMPLING_ERROR`` raises ``SamplingError``.
    """
    torch = _import_torch()
    where = f"endpoint {msg.endpoint}" if getattr(msg, "endpoint", None) is not None else "message"
    raise_if_error(msg if isinstance(msg, Message) else Message(msg), where)
    if int(np.asarray(msg.get("#IS_HETERO", 0)).reshape(-1)[0]) != 0:
        # A typed message: PyG's HeteroData when PyG is importable, else the message's tensors as torch.
        if not dequantise:
            raise ValueError("to_pyg(dequantise=False) is for homogeneous messages; a typed message's features "
                             "are dequantised by to_hetero_data")
        if _data_class() is None:
            return to_torch(msg)
        from .hetero_pyg import to_hetero_data
        return to_hetero_data(msg)
    x_dtype = getattr(torch, x_dtype) if isinstance(x_dtype, str) else x_dtype
    t = to_torch(msg)
    out = {}
    if "nfeats" in t:
        out["x"] = _features(torch, msg, t, x_dtype, dequantise, out)
    if "nlabels" in t:
        out["y"] = t["nlabels"]
    if _PPR_EDGE_INDEX in t:
        out["edge_index"] = t[_PPR_EDGE_INDEX]
        attr = t[_PPR_EDGE_ATTR]
        out["edge_attr"] = attr[:, 0].to(torch.float32)
        out["hop_proximity"] = attr[:, 1].to(torch.float32)
    else:
        out["edge_index"] = torch.stack([t["cols"], t["rows"]])
        if "efeats" in t:
            out["edge_attr"] = t["efeats"]
    out["n_id"] = t["ids"]
    if "eids" in t:
        out["e_id"] = t["eids"]
    if "num_sampled_nodes" in t:
        nodes, edges = _hop_counts(t)
        if nodes is not None:
            out["num_sampled_nodes"], out["num_sampled_edges"] = nodes, edges
        out["batch_size"] = int(t["num_sampled_nodes"][0])
    else:  # PPR: the unique seeds come first in ids
        out["batch_size"] = int(np.unique(np.asarray(msg["batch"])).size)
    if "#META.input_id" in t:
        out["input_id"] = t["#META.input_id"]
    if _TREE in t:
        out["batch"] = t[_TREE]
    for key, name in _SCALAR_META.items():
        if key in msg:
            out[name] = int(np.asarray(msg[key]).reshape(-1)[0])
    for name, prefix in (("y_positive", _ABLP_POSITIVE), ("y_negative", _ABLP_NEGATIVE)):
        keys = [k for k in t if k.startswith(prefix)]
        if keys:
            # GiGL's _set_labels: each anchor's label node ids as positions in n_id (ascending).
            n_id = np.asarray(msg["ids"])
            labels = np.asarray(msg[keys[0]])
            out[name] = {i: torch.from_numpy(np.flatnonzero(np.isin(n_id, row[row != -1])))
                         for i, row in enumerate(labels)}
            out["batch_size"] = int(labels.shape[0])  # the anchors; their label nodes are seeds after them
    for key, value in t.items():
        if key.startswith("#META.") and key not in _CONSUMED and not key.startswith(_ABLP_PREFIXES):
            out[key[len("#META."):]] = value
    data_cls = _data_class()
    if data_cls is None:
        return t.with_tensors(out)
    data = data_cls(**out)
    data.num_nodes = int(out["n_id"].shape[0])  # explicit: PyG cannot infer it when x is absent
    return data
