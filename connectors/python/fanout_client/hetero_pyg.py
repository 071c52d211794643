"""Typed-graph (heterogeneous) messages as PyG ``HeteroData``; torch and PyG are imported only when asked for.

A message with ``#IS_HETERO`` = [1] carries GLT's heterogeneous keys (docs/message-format.md):
``{ntype}.ids``, ``{ntype}.num_sampled_nodes``, ``{ntype}.nfeats``, ``{seed type}.batch`` and ``.nlabels``,
``{etype}.rows``/``.cols``/``.num_sampled_edges``/``.eids``/``.efeats`` with edge types joined by ``__``.
"""

from __future__ import annotations

import ast
import importlib

import numpy as np

from .quantised import dequantise_uint8

__all__ = ["is_hetero", "node_types", "edge_types", "ppr_edge_types", "to_hetero_data", "ablp_labels"]

_POSITIVE = "#META.gigl_positive_labels."
_NEGATIVE = "#META.gigl_negative_labels."


def is_hetero(msg) -> bool:
    """True for a typed-graph message (``#IS_HETERO`` = [1])."""
    flag = msg.get("#IS_HETERO")
    return flag is not None and int(np.asarray(flag).reshape(-1)[0]) == 1


def node_types(msg) -> list:
    """The node types of a typed message, in name order."""
    return sorted(k[:-len(".ids")] for k in msg if k.endswith(".ids") and not k.startswith("#"))


def edge_types(msg) -> list:
    """The reported edge types of a typed message as (src, rel, dst) tuples, in name order."""
    return sorted(tuple(k[:-len(".rows")].split("__")) for k in msg if k.endswith(".rows") and not k.startswith("#"))


_PPR_EDGE_INDEX = "#META.ppr_edge_index."
_PPR_WEIGHT = "#META.ppr_weight."


def ppr_edge_types(msg) -> list:
    """The virtual PPR edge types of a typed PPR message, ``(seed_type, "ppr", ntype)`` tuples in name order: its
    keys are GiGL's ``#META.ppr_edge_index.<repr of the edge type>`` and ``#META.ppr_weight.<...>``."""
    return sorted(ast.literal_eval(k[len(_PPR_EDGE_INDEX):]) for k in msg if k.startswith(_PPR_EDGE_INDEX))


def _numpy(value):
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def _features(msg, ntype):
    """``{ntype}.nfeats`` as float32 (uint8 dequantised with the type's scale and offset), or None."""
    x = msg.get(f"{ntype}.nfeats")
    if x is None:
        return None
    x = _numpy(x)
    scale = msg.get(f"#META.{ntype}.nfeats_scale")
    if x.dtype == np.uint8 and scale is not None:
        return dequantise_uint8(x, _numpy(scale), _numpy(msg[f"#META.{ntype}.nfeats_offset"]))
    return x.astype(np.float32)


def ablp_labels(msg, prefix=_POSITIVE):
    """ABLP labels of a typed message as GiGL's ``DistABLPLoader`` gives them: ``{anchor position: local
    indices}``, where the anchor position i is row i of the ``{anchor type}.batch`` anchors and the local indices
    are the positions in ``{supervision type}.ids`` of anchor i's label nodes (ascending), as numpy int64.
    ``prefix`` is ``#META.gigl_positive_labels.`` (default) or ``#META.gigl_negative_labels.``. With several label
    edge types the result is keyed by edge type tuple first; with none it is None."""
    out = {}
    for key in sorted(k for k in msg if k.startswith(prefix)):
        etype = tuple(key[len(prefix):].split("__"))
        n_id = _numpy(msg[f"{etype[2]}.ids"])
        labels = _numpy(msg[key])
        out[etype] = {i: np.flatnonzero(np.isin(n_id, row[row != -1])) for i, row in enumerate(labels)}
    if not out:
        return None
    return next(iter(out.values())) if len(out) == 1 else out


def to_hetero_data(msg):
    """A typed message as ``torch_geometric.data.HeteroData`` with PyG's ``NeighborLoader`` attribute names:
    per node type ``n_id`` (global ids), ``x`` (float32 features), ``y`` (the seed type's labels),
    ``num_sampled_nodes``, and on the seed type ``batch_size`` and ``input_id``; per edge type
    ``edge_index`` (``[rows, cols]``: messages flow from the sampled neighbours to the nodes expanded, as GLT
    and PyG give them), ``e_id``, ``edge_attr``, ``num_sampled_edges``; ``epoch``/``batch_id``/``num_batches``
    on the graph. Every node and edge type of the graph is present, empty when nothing of it was sampled.
    A link message (``#META.input_type``) adds ``edge_label_index``, ``edge_label`` and ``input_id`` on the seed
    edges' type, or triplet ``src_index`` / ``dst_pos_index`` / ``dst_neg_index`` on its node types. A typed PPR
    message adds ``edge_index`` and ``edge_attr`` (PPR weights, float32) on each ``(seed_type, "ppr", ntype)``.
    Temporal link seeds add ``edge_label_time`` on the seed edges' type (binary, none) or ``seed_time`` on both
    node types (triplet), and ``batch`` (each node's tree mod the positives: its pair) on every node type.
    A disjoint or temporal message adds ``batch`` (each node's tree, the index of its seed) on every node type,
    ``seed_time`` on the seed type and, with edge ids, ``edge_time`` on every timed edge type, as PyG's
    ``NeighborLoader(disjoint=True, time_attr=...)`` gives them on a ``HeteroData``.
    An ABLP message (``#META.gigl_positive_labels.<type>``) adds GiGL's ``y_positive`` (and ``y_negative``):
    ``{anchor position: local indices of its label nodes}`` as torch int64 (see ``ablp_labels``)."""
    try:
        torch = importlib.import_module("torch")
        HeteroData = importlib.import_module("torch_geometric.data").HeteroData
    except ImportError as e:
        raise ImportError(f"to_hetero_data needs torch and torch_geometric, which are not importable here ({e})") from e
    if not is_hetero(msg):
        raise ValueError("not a typed-graph message (#IS_HETERO is not [1]); use to_torch or to_pyg")

    def tensor(value):
        return torch.from_numpy(np.ascontiguousarray(_numpy(value)))

    data = HeteroData()
    # Bidirectional edges have no per-hop counts; PyG then leaves both num_sampled_nodes and _edges None.
    per_hop = all(f"{'__'.join(e)}.num_sampled_edges" in msg for e in edge_types(msg))
    for ntype in node_types(msg):
        store = data[ntype]
        store.n_id = tensor(msg[f"{ntype}.ids"])
        store.num_nodes = int(store.n_id.numel())
        x = _features(msg, ntype)
        if x is not None:
            store.x = tensor(x)
        if f"{ntype}.nlabels" in msg:
            store.y = tensor(msg[f"{ntype}.nlabels"])
        if per_hop:
            store.num_sampled_nodes = tensor(msg[f"{ntype}.num_sampled_nodes"])
        if f"#META.{ntype}.batch" in msg:
            # Disjoint (and temporal) trees: each node's seed position, PyG's per-node-type batch vector.
            store.batch = tensor(msg[f"#META.{ntype}.batch"])
        if f"{ntype}.batch" in msg:
            store.batch_size = int(_numpy(msg[f"{ntype}.batch"]).size)
            if "#META.input_id" in msg:
                store.input_id = tensor(msg["#META.input_id"])
            if "#META.seed_time" in msg:
                store.seed_time = tensor(msg["#META.seed_time"])
    for etype in edge_types(msg):
        key = "__".join(etype)
        store = data[etype]
        store.edge_index = torch.stack([tensor(msg[f"{key}.rows"]), tensor(msg[f"{key}.cols"])])
        if per_hop:
            store.num_sampled_edges = tensor(msg[f"{key}.num_sampled_edges"])
        if f"{key}.eids" in msg:
            store.e_id = tensor(msg[f"{key}.eids"])
        if f"{key}.efeats" in msg:
            store.edge_attr = tensor(msg[f"{key}.efeats"])
        if f"#META.{key}.edge_time" in msg:
            store.edge_time = tensor(msg[f"#META.{key}.edge_time"])
    if "#META.input_type" in msg:
        # Link seeds: PyG's LinkNeighborLoader puts the labels on the seed edges' type, triplet indices on the
        # source and destination node types.
        link = tuple(bytes(_numpy(msg["#META.input_type"]).astype(np.uint8)).decode("utf-8").split("__"))
        if "#META.edge_label_index" in msg:
            data[link].edge_label_index = tensor(msg["#META.edge_label_index"])
            if "#META.edge_label" in msg:
                data[link].edge_label = tensor(msg["#META.edge_label"])
            if "#META.edge_label_time" in msg:  # temporal link seeds: each pair's time, as PyG puts it
                data[link].edge_label_time = tensor(msg["#META.edge_label_time"])
        if "#META.src_index" in msg:
            data[link[0]].src_index = tensor(msg["#META.src_index"])
            data[link[2]].dst_pos_index = tensor(msg["#META.dst_pos_index"])
            data[link[2]].dst_neg_index = tensor(msg["#META.dst_neg_index"])
            if "#META.seed_time" in msg:  # temporal triplets: PyG's seed_time on both node types
                data[link[0]].seed_time = tensor(msg["#META.seed_time"])
                data[link[2]].seed_time = tensor(msg["#META.seed_time"])
        if "#META.input_id" in msg:
            data[link].input_id = tensor(msg["#META.input_id"])
    for etype in ppr_edge_types(msg):
        # Typed PPR, as GiGL's loader attaches its metadata: edge_index [2, N] (row 0 local seed indices, row 1
        # local neighbour indices) and edge_attr [N, 2] or [N, 2 + 3 * channels] on (seed_type, "ppr", ntype).
        data[etype].edge_index = tensor(msg[_PPR_EDGE_INDEX + repr(etype)])
        # Sent as F64; float32 as the homogeneous PPR edge_attr and the features (PyG layers are float32).
        data[etype].edge_attr = tensor(_numpy(msg[_PPR_WEIGHT + repr(etype)]).astype(np.float32))
    for name, prefix in (("y_positive", _POSITIVE), ("y_negative", _NEGATIVE)):
        labels = ablp_labels(msg, prefix)
        if labels is not None:
            def torchify(d):
                return {k: torchify(v) if isinstance(v, dict) else torch.from_numpy(v) for k, v in d.items()}
            data[name] = torchify(labels)
    for name in ("epoch", "batch_id", "num_batches"):
        if f"#META.{name}" in msg:
            data[name] = int(_numpy(msg[f"#META.{name}"]).reshape(-1)[0])
    return data
