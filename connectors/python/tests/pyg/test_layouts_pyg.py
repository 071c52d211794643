"""to_pyg on one message of every k-hop layout the real job writes (deploy/bin/fanout-local on cora and
college_msg: directional, bidirectional, induced, disjoint, disjoint + bidirectional, temporal, weighted) and
on a PPR message, each compared with the Data PyG's own NodeLoader builds from the same sampled subgraph, and
each trained one step with a two-layer PyG model. Runs with /usr/bin/python3 (torch and PyG installed)."""

import subprocess
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch_geometric.data import Data
from torch_geometric.loader import NodeLoader
from torch_geometric.nn import GraphConv, SAGEConv
from torch_geometric.sampler import BaseSampler, SamplerOutput
from torch_geometric.utils import trim_to_layer

from fanout_client import read_samples, to_pyg

ROOT = Path(__file__).resolve().parents[4]
LOCAL = ROOT / "deploy" / "bin" / "fanout-local"
DATA = ROOT.parent / "shared" / "data"
CORA, COLLEGE = DATA / "cora", DATA / "college_msg"
BATCH = 64
CORA_SEEDS = list(range(0, 2708, 42))[:BATCH]      # spread over the graph, one batch: one message
COLLEGE_SEEDS = list(range(0, 1899, 29))[:BATCH]

pytestmark = pytest.mark.skipif(not (CORA.exists() and COLLEGE.exists()),
                                reason="../shared/data/cora or college_msg is missing")


@cache
def college_edges():
    """college_msg's edge file: src, dst, weight, timestamp per row (row = the job's edge id)."""
    return np.loadtxt(COLLEGE / "edges.tsv", dtype=np.int64, comments="#", ndmin=2)


def seed_time():
    """The median message time of college_msg: about half of each seed's edges are in its past."""
    return int(np.median(college_edges()[:, 3]))


def cora_args():
    return ["--graph", str(CORA), "--node-features", str(CORA / "nodes.tsv.gz"),
            "--seeds", ",".join(map(str, CORA_SEEDS))]


def college_args():
    return ["--graph", str(COLLEGE), "--seeds", ",".join(map(str, COLLEGE_SEEDS))]


# layout -> (graph, job options); the k-hop ones also name the PyG subgraph type they stand for.
LAYOUTS = {
    "directional": (cora_args, ["--subgraph-type", "directional"]),
    "bidirectional": (cora_args, ["--subgraph-type", "bidirectional"]),
    "induced": (cora_args, ["--subgraph-type", "induced"]),
    "disjoint": (cora_args, ["--disjoint"]),
    "disjoint_bidirectional": (cora_args, ["--disjoint", "--subgraph-type", "bidirectional"]),
    "temporal": (college_args, ["--time-column", "timestamp", "--seed-time", str(seed_time()), "--with-edge"]),
    "weighted": (college_args, ["--weight-column", "weight", "--with-edge"]),
    "ppr": (cora_args, ["--sampler", "ppr", "--max-ppr-nodes", "10"]),
}
KHOP = [name for name in LAYOUTS if name != "ppr"]


@pytest.fixture(scope="module")
def message(tmp_path_factory):
    """``message(layout)``: the one message of a real job run with that layout (each job run once)."""
    got = {}

    def run(layout):
        if layout not in got:
            graph_args, options = LAYOUTS[layout]
            out = tmp_path_factory.mktemp(layout)
            fanout = [] if layout == "ppr" else ["--fanout", "5,3"]  # PPR refuses k-hop's fanouts
            proc = subprocess.run([str(LOCAL), *graph_args(), *options, *fanout, "--batch-size", str(BATCH),
                                   "--parallelism", "1", "--output", str(out)],
                                  capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, f"fanout-local {layout} failed:\n{proc.stderr[-4000:]}"
            [got[layout]] = list(read_samples(out))
        return got[layout]

    return run


@cache
def cora_graph():
    """Cora as the Data a PyG user hands NeighborLoader: every node's features and label, the edge list."""
    rows = np.loadtxt(CORA / "nodes.tsv.gz", dtype=np.float32, comments="#", ndmin=2)
    order = np.argsort(rows[:, 0])
    edges = np.loadtxt(CORA / "edges.tsv", dtype=np.int64, comments="#", ndmin=2)
    return Data(x=torch.from_numpy(np.ascontiguousarray(rows[order, 2:])),
                y=torch.from_numpy(rows[order, 1].astype(np.int64)),
                edge_index=torch.from_numpy(np.ascontiguousarray(edges.T)), num_nodes=len(rows))


@cache
def college_graph(temporal):
    """college_msg as a PyG Data: edges in file order (the job's edge ids), weight per edge, and for temporal
    sampling each edge's time."""
    edges = college_edges()
    data = Data(edge_index=torch.from_numpy(np.ascontiguousarray(edges[:, :2].T)),
                edge_attr=torch.from_numpy(edges[:, 2:3].astype(np.float32)), num_nodes=1899)
    if temporal:
        data.edge_time = torch.from_numpy(np.ascontiguousarray(edges[:, 3]))
    return data


class Replay(BaseSampler):
    """A PyG sampler that answers with the subgraph Fanout sampled, shaped as PyG's NeighborSampler shapes its
    output for that subgraph type, so NodeLoader builds the Data NeighborLoader would give for it."""

    def __init__(self, msg, subgraph_type):
        self.msg = msg
        self.subgraph_type = subgraph_type

    def sample_from_nodes(self, inputs, **kwargs):
        m = self.msg
        assert inputs.node.tolist() == m["batch"].tolist()
        tensor = lambda key: torch.from_numpy(m[key]) if key in m else None  # noqa: E731
        out = SamplerOutput(
            node=tensor("ids"), row=tensor("cols"), col=tensor("rows"),  # PyG's row is the sampled neighbour
            edge=tensor("eids"), batch=tensor("#META.batch"),
            num_sampled_nodes=m["num_sampled_nodes"].tolist(),
            num_sampled_edges=m["num_sampled_edges"].tolist() if "num_sampled_edges" in m else None,
            metadata=(inputs.input_id, inputs.time))
        if self.subgraph_type == "bidirectional":
            out = out.to_bidirectional()  # what NeighborSampler.sample_from_nodes does for this type
        elif self.subgraph_type == "induced":
            # NeighborSampler samples induced subgraphs with torch-sparse, which reports no per-hop counts.
            out.num_sampled_nodes = out.num_sampled_edges = None
        return out

    def sample_from_edges(self, inputs, neg_sampling=None):
        raise NotImplementedError("node seeds only")

    @property
    def edge_permutation(self):
        return None


def pyg_reference(layout, msg):
    """The Data PyG's NodeLoader yields for this message's seeds and subgraph."""
    graph = college_graph(layout == "temporal") if LAYOUTS[layout][0] is college_args else cora_graph()
    subgraph_type = "bidirectional" if "bidirectional" in layout else "induced" if layout == "induced" else None
    seeds = torch.from_numpy(msg["batch"])
    times = torch.from_numpy(msg["#META.seed_time"]) if "#META.seed_time" in msg else None
    loader = NodeLoader(graph, Replay(msg, subgraph_type), input_nodes=seeds, input_time=times, batch_size=BATCH)
    [data] = list(loader)
    return data


@pytest.mark.parametrize("layout", KHOP)
def test_every_khop_layout_gives_what_pyg_node_loader_gives(layout, message):
    msg = message(layout)
    data, expected = to_pyg(msg), pyg_reference(layout, msg)
    fanout_only = {"epoch", "batch_id", "num_batches"}  # the batch's place in the epoch, not a PyG field
    assert set(data.keys()) - fanout_only == set(expected.keys())
    for key in expected.keys():
        ours, theirs = data[key], expected[key]
        if isinstance(theirs, torch.Tensor):
            assert ours.dtype == theirs.dtype and torch.equal(ours, theirs), key
        else:
            assert ours == theirs, key
    if layout in ("bidirectional", "induced", "disjoint_bidirectional"):
        # Edges not grouped by hop: PyG gives no per-hop counts, and neither does to_pyg (the old KeyError).
        assert "num_sampled_edges" not in msg and "num_sampled_nodes" in msg
        assert "num_sampled_nodes" not in data and "num_sampled_edges" not in data
        assert data.batch_size == int(msg["num_sampled_nodes"][0]) == BATCH
    else:
        assert data.num_sampled_edges == msg["num_sampled_edges"].tolist()


@pytest.mark.parametrize("layout", ["disjoint", "disjoint_bidirectional", "temporal"])
def test_disjoint_batch_is_each_nodes_tree(layout, message):
    data = to_pyg(message(layout))
    assert data.batch.dtype == torch.int64 and data.batch.shape == (data.num_nodes,)
    assert data.batch[:data.batch_size].tolist() == list(range(BATCH))  # each seed roots its own tree
    src, dst = data.edge_index
    assert torch.equal(data.batch[src], data.batch[dst])  # no edge between two trees
    if layout == "temporal":
        # Every sampled edge is no later than the time of the seed of its tree.
        assert bool((data.edge_time <= data.seed_time[data.batch[dst]]).all())
        assert data.num_edges > 0


class TwoLayerSage(torch.nn.Module):
    """GraphSAGE as the trainer example runs it: trimmed per layer when the batch has per-hop counts."""

    def __init__(self, dim_in, dim_out):
        super().__init__()
        self.convs = torch.nn.ModuleList([SAGEConv(dim_in, 16), SAGEConv(16, dim_out)])

    def forward(self, x, edge_index, num_sampled_nodes=None, num_sampled_edges=None):
        for layer, conv in enumerate(self.convs):
            if num_sampled_nodes is not None:
                x, edge_index, _ = trim_to_layer(layer, num_sampled_nodes, num_sampled_edges, x, edge_index)
            x = conv(x, edge_index)
            if layer == 0:
                x = F.relu(x)
        return x


class NodeInput(torch.nn.Module):
    """The batch's node features; college_msg has none, so a learned embedding of the global id stands in."""

    def __init__(self, data):
        super().__init__()
        self.embedding = None if "x" in data else torch.nn.Embedding(int(data.n_id.max()) + 1, 8)

    def forward(self, data):
        return data.x if self.embedding is None else self.embedding(data.n_id)


def targets(data):
    """Cora's class of each seed; for college_msg whether the seed has an even id (anything to fit)."""
    return data.y[:data.batch_size] if "y" in data else data.n_id[:data.batch_size] % 2


def check_dtypes(data):
    assert data.edge_index.dtype == torch.int64 and data.edge_index.shape[0] == 2
    assert data.n_id.dtype == torch.int64 and data.input_id.dtype == torch.int64
    if "x" in data:
        assert data.x.dtype == torch.float32 and data.x.shape == (data.num_nodes, 1433)
        assert data.y.dtype == torch.int64 and data.y.shape == (data.num_nodes,)
    if "edge_attr" in data:
        assert data.edge_attr.dtype == torch.float32 and data.edge_attr.shape[0] == data.num_edges
    if "e_id" in data:
        assert data.e_id.dtype == torch.int64 and data.e_id.shape == (data.num_edges,)


def train_one_step(model, params, loss_of):
    """One SGD step; returns the loss before and after it, after checking every parameter got a gradient."""
    optimizer = torch.optim.SGD(params, lr=0.05)
    loss = loss_of()
    optimizer.zero_grad()
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and bool(torch.isfinite(p.grad).all()) and bool(p.grad.abs().sum() > 0), name
    optimizer.step()
    return float(loss), float(loss_of())


@pytest.mark.parametrize("layout", KHOP)
def test_a_two_layer_sage_trains_on_every_khop_layout(layout, message):
    data = to_pyg(message(layout))
    check_dtypes(data)
    y = targets(data)
    classes = int(y.max()) + 1
    torch.manual_seed(0)
    model = torch.nn.ModuleDict({"input": NodeInput(data), "sage": TwoLayerSage(NodeInput(data)(data).shape[1]
                                                                                if "x" in data else 8, classes)})
    # As the trainer example: per-hop counts when the batch has them (PyG's are None for bidirectional/induced).
    counts = (getattr(data, "num_sampled_nodes", None), getattr(data, "num_sampled_edges", None))
    out = model["sage"](model["input"](data), data.edge_index, *counts)
    trimmed = 0 if counts[0] is None else counts[0][-1]  # the last hop's nodes feed no second layer
    assert out.shape == (data.num_nodes - trimmed, classes)
    if counts[0] is not None:
        # Trimming only drops what cannot reach the seeds: per-hop counts that fit the edges change nothing there.
        full = model["sage"](model["input"](data), data.edge_index)
        torch.testing.assert_close(out[:data.batch_size], full[:data.batch_size], rtol=1e-5, atol=1e-5)

    def loss_of():
        return F.cross_entropy(model["sage"](model["input"](data), data.edge_index, *counts)[:data.batch_size], y)

    before, after = train_one_step(model, list(model.parameters()), loss_of)
    assert after < before


def test_a_two_layer_model_trains_on_a_ppr_message(message):
    msg = message("ppr")
    data = to_pyg(msg)
    check_dtypes(data)
    assert data.edge_attr.shape == (msg["#META.edge_attr"].shape[0],)
    np.testing.assert_allclose(data.edge_attr.numpy(), msg["#META.edge_attr"][:, 0], rtol=1e-6)
    assert data.hop_proximity.dtype == torch.float32
    assert data.batch_size == BATCH and "num_sampled_nodes" not in data
    torch.manual_seed(0)
    convs = torch.nn.ModuleList([GraphConv(1433, 16), GraphConv(16, 7)])
    to_seed = data.edge_index.flip(0)  # row 0 is the seed: aggregate each seed's PPR neighbours into it

    def loss_of():
        h = F.relu(convs[0](data.x, to_seed, data.edge_attr))
        out = convs[1](h, to_seed, data.edge_attr)[:data.batch_size]
        assert out.shape == (BATCH, 7)
        return F.cross_entropy(out, data.y[:data.batch_size])

    before, after = train_one_step(convs, list(convs.parameters()), loss_of)
    assert after < before


# Typed temporal trees and plain link prediction: the layouts the sampling matrix added.
BITCOIN_TYPED, CORA_CITES = DATA / "bitcoin_alpha_typed", DATA / "cora_cites"


def run_job(tmp_path, *args):
    """Runs the real job into a fresh output directory and returns its messages."""
    out = tmp_path / "out"
    proc = subprocess.run([str(LOCAL), *args, "--parallelism", "1", "--output", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"fanout-local failed:\n{proc.stderr[-4000:]}"
    return list(read_samples(out))


def test_a_typed_temporal_message_converts_with_trees_and_seed_times_and_trains(tmp_path):
    from torch_geometric.nn import HeteroConv
    trusts = np.loadtxt(BITCOIN_TYPED / "edges.user__trusts__user.tsv", dtype=np.int64, comments="#", ndmin=2)
    rng = np.random.default_rng(5)
    picked = rng.choice(len(trusts), 24, replace=False)
    seeds = tmp_path / "seeds.tsv"
    seeds.write_text("".join(f"{trusts[i, 1]}\t{trusts[i, 3]}\n" for i in picked))
    messages = run_job(tmp_path, "--graph", str(BITCOIN_TYPED), "--seeds", str(seeds), "--time-column", "timestamp",
                       "--edge-dir", "in", "--fanout", "6,4", "--batch-size", "24", "--with-edge")
    assert len(messages) == 1
    data = to_pyg(messages[0])
    user = data["user"]
    assert user.batch.dtype == torch.int64 and user.batch.shape == user.n_id.shape
    assert torch.equal(user.batch[:24], torch.arange(24))
    assert user.seed_time.tolist() == [int(trusts[i, 3]) for i in picked]
    edges = 0
    for etype in data.edge_types:
        store = data[etype]
        src, dst = store.edge_index
        # A tree never mixes with another, and no edge is newer than its tree's seed time.
        assert torch.equal(user.batch[src], user.batch[dst])
        assert bool((store.edge_time <= user.seed_time[user.batch[dst]]).all())
        edges += store.edge_index.shape[1]
    assert edges > 24
    x = torch.nn.functional.one_hot(user.batch % 8, 8).float()  # bitcoin has no features: the tree as input
    conv1 = HeteroConv({e: SAGEConv(8, 16) for e in data.edge_types}, aggr="sum")
    conv2 = HeteroConv({e: SAGEConv(16, 2) for e in data.edge_types}, aggr="sum")
    edge_index = {e: data[e].edge_index for e in data.edge_types}
    params = list(conv1.parameters()) + list(conv2.parameters())

    def loss_of():
        h = {"user": conv1({"user": x}, edge_index)["user"].relu()}
        out = conv2(h, edge_index)["user"][:24]
        return F.cross_entropy(out, (user.seed_time % 2).long())
    before = loss_of()
    before.backward()
    assert all(p.grad is not None for p in params)


def test_a_plain_link_message_converts_as_link_neighbor_loader_gives_it(tmp_path):
    cites = np.loadtxt(CORA_CITES / "edges.tsv", dtype=np.int64, comments="#", ndmin=2)
    links = tmp_path / "links.tsv"
    links.write_text("".join(f"{a}\t{b}\n" for a, b in cites[::60][:32]))
    messages = run_job(tmp_path, "--graph", str(CORA_CITES), "--link-seeds", str(links), "--neg-sampling", "binary",
                       "--fanout", "5,5", "--batch-size", "32")
    assert len(messages) == 1
    data = to_pyg(messages[0])
    assert data.edge_label_index.dtype == torch.int64 and data.edge_label_index.shape == (2, 64)
    assert data.edge_label.dtype == torch.float32 and data.edge_label.tolist() == [1.0] * 32 + [0.0] * 32
    assert data.input_id.tolist() == list(range(32))
    pairs = data.n_id[data.edge_label_index]
    assert pairs[:, :32].t().tolist() == cites[::60][:32, :2].tolist()
    real = {(int(a), int(b)) for a, b in cites[:, :2]}
    assert not any((int(a), int(b)) in real for a, b in pairs[:, 32:].t())
    # A link-prediction model's step: embeddings from two SAGE layers, dot products on the label pairs.
    conv1, conv2 = SAGEConv(16, 16), SAGEConv(16, 16)
    x = torch.randn(data.num_nodes, 16, generator=torch.Generator().manual_seed(0))
    h = conv2(conv1(x, data.edge_index).relu(), data.edge_index)
    score = (h[data.edge_label_index[0]] * h[data.edge_label_index[1]]).sum(-1)
    loss = F.binary_cross_entropy_with_logits(score, data.edge_label)
    loss.backward()
    assert all(p.grad is not None for p in list(conv1.parameters()) + list(conv2.parameters()))


def test_typed_bidirectional_is_what_pyg_makes_of_the_directional_sample(tmp_path):
    """--subgraph-type bidirectional on a typed graph equals PyG's HeteroSamplerOutput.to_bidirectional() applied
    to the directional sample of the same batch, edge for edge and in order, through each of PyG's three cases: a
    type within one node type (paper cites paper), a type with its rev_ partner (has_word / rev_has_word), and a
    type with one other type going back (word in paper)."""
    from torch_geometric.sampler import HeteroSamplerOutput
    source = DATA / "cora_hetero"
    graph = tmp_path / "graph"
    graph.mkdir()
    (graph / "edges.paper__cites__paper.tsv").write_bytes((source / "edges.paper__cites__paper.tsv").read_bytes())
    has_word = np.loadtxt(source / "edges.paper__has_word__word.tsv", dtype=np.int64, comments="#", ndmin=2)
    (graph / "edges.paper__has_word__word.tsv").write_text(
        "# directed=true columns=src,dst\n" + "".join(f"{a}\t{b}\n" for a, b in has_word[:, :2]))
    for name in ("word__rev_has_word__paper", "word__in__paper"):
        (graph / f"edges.{name}.tsv").write_text(
            "# directed=true columns=src,dst\n" + "".join(f"{b}\t{a}\n" for a, b in has_word[::3, :2]))
    common = ["--graph", str(graph), "--seed-type", "paper", "--seeds", ",".join(map(str, range(0, 640, 10))),
              "--fanout", "3,2", "--edge-dir", "in", "--batch-size", "64"]
    (directional,) = run_job(tmp_path / "d", *common)
    (bidirectional,) = run_job(tmp_path / "b", *common, "--subgraph-type", "bidirectional")
    types = sorted(tuple(k[:-len(".rows")].split("__")) for k in directional if k.endswith(".rows"))
    assert len(types) == 4

    def t(msg, key):
        return torch.from_numpy(np.asarray(msg[key]).copy())
    node_types = sorted(k[:-len(".ids")] for k in directional if k.endswith(".ids") and not k.startswith("#"))
    out = HeteroSamplerOutput(
        node={n: t(directional, f"{n}.ids") for n in node_types},
        row={e: t(directional, "__".join(e) + ".rows") for e in types},
        col={e: t(directional, "__".join(e) + ".cols") for e in types},
        edge={e: None for e in types}).to_bidirectional()
    for e in types:
        key = "__".join(e)
        assert torch.equal(t(bidirectional, f"{key}.rows"), out.row[e]), key
        assert torch.equal(t(bidirectional, f"{key}.cols"), out.col[e]), key
        assert f"{key}.num_sampled_edges" not in bidirectional and f"{key}.eids" not in bidirectional
    changed = [e for e in types if len(out.row[e]) != len(np.asarray(directional["__".join(e) + ".rows"]))]
    assert len(changed) == 4  # every case added edges
    data = to_pyg(bidirectional)  # converts without per-hop counts, as PyG leaves them None
    assert all(data[e].edge_index.shape[0] == 2 for e in types)


TYPED_LAYOUTS = {
    "typed": lambda tmp: ["--graph", str(DATA / "cora_hetero"), "--seed-type", "paper", "--fanout", "4,2",
                          "--with-edge"],
    "typed_link_binary": lambda tmp: ["--graph", str(BITCOIN_TYPED), "--link-seeds", str(_trust_links(tmp)),
                                      "--link-type", "user__trusts__user", "--neg-sampling", "binary",
                                      "--fanout", "4,2"],
    "typed_link_triplet": lambda tmp: ["--graph", str(BITCOIN_TYPED), "--link-seeds", str(_trust_links(tmp)),
                                       "--link-type", "user__trusts__user", "--neg-sampling", "triplet",
                                       "--neg-amount", "2", "--fanout", "4,2"],
    "typed_ppr": lambda tmp: ["--graph", str(DATA / "cora_hetero"), "--seed-type", "paper", "--sampler", "ppr",
                              "--max-ppr-nodes", "10", "--include-sampled-edges"],
    "typed_disjoint_bidirectional": lambda tmp: ["--graph", str(BITCOIN_TYPED), "--disjoint", "--subgraph-type",
                                                 "bidirectional", "--fanout", "4,2"],
}


def _timed_trust_links(tmp):
    """Every 400th trust edge with its own time as the third column: temporal link seeds."""
    trusts = np.loadtxt(BITCOIN_TYPED / "edges.user__trusts__user.tsv", dtype=np.int64, comments="#", ndmin=2)
    path = tmp / "timed-trust-links.tsv"
    path.write_text("".join(f"{a}\t{b}\t{t}\n" for a, b, t in trusts[::400][:, [0, 1, 3]]))
    return path


def _word_links(tmp):
    has_word = np.loadtxt(DATA / "cora_hetero" / "edges.paper__has_word__word.tsv", dtype=np.int64, comments="#",
                          ndmin=2)
    path = tmp / "word-links.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in has_word[::500, :2]))
    return path


TYPED_LAYOUTS.update({
    "typed_link_temporal": lambda tmp: ["--graph", str(BITCOIN_TYPED), "--link-seeds", str(_timed_trust_links(tmp)),
                                        "--link-type", "user__trusts__user", "--time-column", "timestamp",
                                        "--neg-sampling", "binary", "--fanout", "4,2", "--with-edge"],
    "typed_link_disjoint_triplet": lambda tmp: ["--graph", str(DATA / "cora_hetero"), "--link-seeds",
                                                str(_word_links(tmp)), "--link-type", "paper__has_word__word",
                                                "--disjoint", "--neg-sampling", "triplet", "--neg-amount", "2",
                                                "--fanout", "4,2"],
    "typed_link_bidirectional": lambda tmp: ["--graph", str(BITCOIN_TYPED), "--link-seeds", str(_trust_links(tmp)),
                                             "--link-type", "user__trusts__user", "--subgraph-type", "bidirectional",
                                             "--neg-sampling", "binary", "--fanout", "4,2"],
})


def _trust_links(tmp):
    trusts = np.loadtxt(BITCOIN_TYPED / "edges.user__trusts__user.tsv", dtype=np.int64, comments="#", ndmin=2)
    path = tmp / "trust-links.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in trusts[::400, :2]))
    return path


@pytest.mark.parametrize("layout", sorted(TYPED_LAYOUTS))
def test_a_two_layer_hetero_model_trains_on_every_typed_layout(layout, tmp_path):
    """One message of each typed layout converts (ids and indices int64, scores and features float32) and a two-layer
    HeteroConv of SAGEConv runs forward and backward on it over every edge type it carries."""
    from torch_geometric.nn import HeteroConv
    args = TYPED_LAYOUTS[layout](tmp_path)
    if "--seed-type" in args or "--link-seeds" in args:
        args += ["--batch-size", "64"]
    else:
        args += ["--seeds", ",".join(map(str, range(0, 640, 10))), "--batch-size", "64"]
    messages = run_job(tmp_path, *args)
    data = to_pyg(messages[0])
    if layout == "typed_link_temporal":
        link = ("user", "trusts", "user")
        p = int(data[link].input_id.numel())
        assert data[link].edge_label_time.dtype == torch.int64 and data[link].edge_label_time.shape == (2 * p,)
        assert data["user"].batch.shape == data["user"].n_id.shape  # each node's pair
        for e in data.edge_types:  # no edge newer than its pair's seed edge
            if data[e].edge_index.numel():
                src, dst = data[e].edge_index
                assert torch.equal(data["user"].batch[src], data["user"].batch[dst])
                assert bool((data[e].edge_time <= data[link].edge_label_time[data["user"].batch[dst]]).all())
    if layout == "typed_link_disjoint_triplet":
        p = int(data["paper"].src_index.numel())
        assert data["word"].dst_neg_index.shape == (p, 2)
        assert torch.equal(data["paper"].batch[data["paper"].src_index], torch.arange(p))
        assert torch.equal(data["word"].batch[data["word"].dst_pos_index], torch.arange(p))
    for store in data.node_stores:
        assert store.n_id.dtype == torch.int64
        if "x" in store:
            assert store.x.dtype == torch.float32
    types = [e for e in data.edge_types if "edge_index" in data[e] and data[e].edge_index.numel() > 0]
    assert types, f"{layout}: no edges"
    for e in types:
        assert data[e].edge_index.dtype == torch.int64
        if "edge_attr" in data[e]:
            assert data[e].edge_attr.dtype == torch.float32
    x = {n: torch.nn.functional.one_hot(data[n].n_id % 8, 8).float() for n in data.node_types}
    conv1 = HeteroConv({e: SAGEConv(8, 16) for e in types}, aggr="sum")
    conv2 = HeteroConv({e: SAGEConv(16, 4) for e in types}, aggr="sum")
    edge_index = {e: data[e].edge_index for e in types}
    h = {k: v.relu() for k, v in conv1(x, edge_index).items()}
    h = {**{n: torch.zeros(data[n].num_nodes, 16) for n in data.node_types}, **h}
    out = conv2(h, edge_index)
    loss = sum(v.square().mean() for v in out.values())
    loss.backward()
    assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in conv1.parameters())


# Plain-graph link layouts of the sampling matrix: ABLP with label-edge files, link seeds with a subgraph type.
def _cora_ablp_files(tmp):
    """Cora with every fifth edge held out as positive label edges, and one non-edge per anchor as a negative."""
    edges = np.loadtxt(CORA / "edges.tsv", dtype=np.int64, comments="#", ndmin=2)
    graph = tmp / "cora-held-out"
    graph.mkdir()
    header = (CORA / "edges.tsv").read_text().splitlines()[0].split()
    header = " ".join(h for h in header if not h.startswith("num_edges="))
    held = edges[4::5]
    kept = np.delete(edges, np.s_[4::5], axis=0)
    (graph / "edges.tsv").write_text(header + "\n" + "".join(f"{a}\t{b}\n" for a, b in kept))
    positives = tmp / "positive-labels.tsv"
    positives.write_text("".join(f"{a}\t{b}\n" for a, b in held[:256]))
    real = {(int(a), int(b)) for a, b in edges} | {(int(b), int(a)) for a, b in edges}
    negatives, lines = tmp / "negative-labels.tsv", []
    for a in sorted({int(a) for a in held[:256, 0]}):
        n = (a * 7 + 13) % 2708
        while (a, n) in real or n == a:
            n = (n + 1) % 2708
        lines.append(f"{a}\t{n}\n")
    negatives.write_text("".join(lines))
    return graph, positives, negatives, held[:256]


def _cora_links(tmp):
    edges = np.loadtxt(CORA / "edges.tsv", dtype=np.int64, comments="#", ndmin=2)
    path = tmp / "cora-links.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in edges[::80][:64]))
    return path


@pytest.mark.parametrize("layout", ["plain_ablp", "plain_link_bidirectional", "plain_link_induced"])
def test_a_two_layer_model_trains_on_every_plain_link_layout(layout, tmp_path):
    """One message of each plain-graph link layout converts (GiGL's y_positive/y_negative for ABLP, PyG's link labels
    for link seeds; ids and indices int64) and a two-layer SAGE runs forward and backward on it."""
    if layout == "plain_ablp":
        graph, positives, negatives, held = _cora_ablp_files(tmp_path)
        messages = run_job(tmp_path, "--graph", str(graph), "--ablp-positive-edges", str(positives),
                           "--ablp-negative-edges", str(negatives), "--fanout", "5,3", "--batch-size", "512",
                           "--node-features", str(CORA / "nodes.tsv.gz"))
    else:
        messages = run_job(tmp_path, "--graph", str(CORA), "--link-seeds", str(_cora_links(tmp_path)),
                           "--neg-sampling", "binary", "--fanout", "5,3", "--batch-size", "64",
                           "--subgraph-type", layout.rsplit("_", 1)[1], "--node-features",
                           str(CORA / "nodes.tsv.gz"))
    assert len(messages) == 1
    data = to_pyg(messages[0])
    assert data.edge_index.dtype == torch.int64 and data.n_id.dtype == torch.int64
    assert "num_sampled_edges" not in data or layout == "plain_ablp"
    if layout == "plain_ablp":
        anchors = data.n_id[:data.batch_size]
        expected = {}
        for a, b in held:
            expected.setdefault(int(a), set()).add(int(b))
        assert sorted(anchors.tolist()) == sorted(expected)
        for i, a in enumerate(anchors.tolist()):
            assert data.y_positive[i].dtype == torch.int64
            assert set(data.n_id[data.y_positive[i]].tolist()) == expected[a]  # GiGL: local indices of its labels
            assert data.y_negative[i].numel() == 1
        # The label edges are never traversed: no sampled edge is a held-out edge that is not a graph edge.
        kept = {(int(a), int(b)) for a, b in np.loadtxt(CORA / "edges.tsv", dtype=np.int64, comments="#")}
        kept -= {(int(a), int(b)) for a, b in np.loadtxt(CORA / "edges.tsv", dtype=np.int64, comments="#")[4::5]}
        sampled = data.n_id[data.edge_index].t().tolist()
        assert all((a, b) in kept or (b, a) in kept for a, b in sampled)
        pairs = [(i, j) for i, js in data.y_positive.items() for j in js.tolist()]
        src = torch.tensor([p[0] for p in pairs])
        dst = torch.tensor([p[1] for p in pairs])
        neg = torch.cat([data.y_negative[i] for i in range(data.batch_size)])
        neg_src = torch.arange(data.batch_size)
    else:
        assert data.edge_label_index.shape == (2, 128) and data.edge_label.dtype == torch.float32
        src, dst = data.edge_label_index[:, :64]
        neg_src, neg = data.edge_label_index[:, 64:]
        if layout == "plain_link_bidirectional":  # every edge has its reverse
            fwd = set(map(tuple, data.edge_index.t().tolist()))
            assert all((b, a) in fwd for a, b in fwd)
    conv1, conv2 = SAGEConv(1433, 16), SAGEConv(16, 16)
    h = conv2(conv1(data.x, data.edge_index).relu(), data.edge_index)
    pos_score = (h[src] * h[dst]).sum(-1)
    neg_score = (h[neg_src] * h[neg]).sum(-1)
    loss = F.binary_cross_entropy_with_logits(torch.cat([pos_score, neg_score]),
                                              torch.cat([torch.ones_like(pos_score), torch.zeros_like(neg_score)]))
    loss.backward()
    assert all(p.grad is not None and bool(p.grad.abs().sum() > 0)
               for p in list(conv1.parameters()) + list(conv2.parameters()))
