package io.fanout.message;

import io.fanout.connectors.message.Tensor;
import io.fanout.graph.typed.EdgeType;
import io.fanout.sampling.hetero.HeteroSubgraph;
import io.fanout.sampling.ppr.TypedPprSubgraph;
import io.fanout.store.TypedGraphStore;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A sample of a typed graph: per node type its ids, counts, node data and disjoint trees; per reported edge type its
 * local edges, counts and edge data; for PPR per node type GiGL's virtual edges from the seed type. Every type of
 * the graph is present, empty when nothing of it was sampled, so every message of a job has the same keys.
 */
public final class TypedSample implements Sample {
    /** One node type's part: {@code trees} (PyG's per-type batch vector) and {@code data} may be null. */
    public record Nodes(Tensor ids, Tensor numSampledNodes, NodeData data, Tensor trees) {}

    /** One edge type's part: {@code numSampledEdges} (null when not grouped by hop) and {@code data} may be null. */
    public record Edges(Tensor rows, Tensor cols, Tensor numSampledEdges, EdgeData data) {}

    /** GiGL's PPR edges from the seed type to one node type: {@code edgeIndex} [2, N], {@code weights} [N, columns]. */
    public record PprEdges(Tensor edgeIndex, Tensor weights) {}

    /** The seeds' node type (their key is {@code {seedType}.batch}); null when the batch has no seed nodes. */
    private final String seedType;
    private final Map<String, Nodes> nodes = new TreeMap<>();
    private final Map<String, Edges> edges = new TreeMap<>();
    /** By the PPR edge type's name ({@link TypedPprSubgraph#pprEdgeType}). */
    private final Map<String, PprEdges> pprEdges = new TreeMap<>();
    private final SampleMetadata metadata = new SampleMetadata();

    public TypedSample(String seedType) {
        this.seedType = seedType;
    }

    /**
     * A typed k-hop sample of the memory store: node data of every type with a node file (labels of the sample's
     * seed types), edge data with edge ids and, when the store has a time column, the times of the timed types.
     */
    public static TypedSample kHop(HeteroSubgraph sub, TypedGraphStore store, String seedType) {
        TypedSample sample = new TypedSample(seedType);
        for (Map.Entry<String, HeteroSubgraph.Nodes> e : sub.nodes.entrySet()) {
            HeteroSubgraph.Nodes n = e.getValue();
            int count = n.indices.length;
            sample.nodes(e.getKey(), new Nodes(HomogeneousSample.nodeIds(store.nodeIds(e.getKey()), n.indices, count),
                    Tensor.ofInt64(n.numSampledNodes),
                    NodeData.gather(store.features(e.getKey()), n.indices, count, sub.seedTypes.contains(e.getKey())),
                    n.trees == null ? null : Tensor.ofInt64(n.trees)));
        }
        String time = store.spec().timeColumn();
        for (Map.Entry<EdgeType, HeteroSubgraph.Edges> e : sub.edges.entrySet()) {
            HeteroSubgraph.Edges d = e.getValue();
            boolean times = time != null && !store.spec().timelessTypes().contains(d.adjacency.type().toString());
            sample.edges(e.getKey().toString(), new Edges(Tensor.ofInt64(d.rows), Tensor.ofInt64(d.cols),
                    d.numSampledEdges == null ? null : Tensor.ofInt64(d.numSampledEdges),
                    EdgeData.gather(d.adjacency.csr(), d.positions, d.rows.length, times)));
        }
        return sample;
    }

    /**
     * A typed PPR sample of the memory store: per node type ids, {@code num_sampled_nodes} ([n], as GiGL) and node
     * data (labels for the seed type); the PPR edges per node type; with sampled edges, per reported edge type the
     * edges as k-hop sends them (one count, no times).
     */
    public static TypedSample ppr(TypedPprSubgraph sub, TypedGraphStore store) {
        TypedSample sample = new TypedSample(sub.seedType);
        for (Map.Entry<String, int[]> e : sub.nodes.entrySet()) {
            int[] indices = e.getValue();
            sample.nodes(e.getKey(), new Nodes(HomogeneousSample.nodeIds(store.nodeIds(e.getKey()), indices,
                    indices.length), Tensor.ofInt64(new long[] {indices.length}), NodeData.gather(
                    store.features(e.getKey()), indices, indices.length, e.getKey().equals(sub.seedType)), null));
        }
        for (Map.Entry<String, TypedPprSubgraph.PprEdges> e : sub.pprEdges.entrySet()) {
            sample.pprEdges(TypedPprSubgraph.pprEdgeType(sub.seedType, e.getKey()), e.getValue().edgeIndex,
                    e.getValue().weights, sub.columns);
        }
        for (Map.Entry<EdgeType, TypedPprSubgraph.SampledEdges> e : sub.sampledEdges.entrySet()) {
            TypedPprSubgraph.SampledEdges d = e.getValue();
            sample.edges(e.getKey().toString(), new Edges(Tensor.ofInt64(d.rows), Tensor.ofInt64(d.cols),
                    Tensor.ofInt64(new long[] {d.rows.length}),
                    EdgeData.gather(d.adjacency.csr(), d.positions, d.rows.length, false)));
        }
        return sample;
    }

    /**
     * Adds (or replaces) node type {@code type}'s part, its ids known (the partitioned store's), with each node's
     * disjoint tree ({@code #META.<type>.batch}) or null.
     */
    public TypedSample nodes(String type, long[] ids, int[] numSampledNodes, NodeData data, int[] trees) {
        return nodes(type, new Nodes(Tensor.ofInt64(ids), Tensor.ofInt64(numSampledNodes), data,
                trees == null ? null : Tensor.ofInt64(trees)));
    }

    /** Adds (or replaces) edge type {@code type}'s local edges and per-hop counts (null: none); no edge data. */
    public TypedSample edges(String type, int[] rows, int[] cols, int[] numSampledEdges) {
        return edges(type, new Edges(Tensor.ofInt64(rows), Tensor.ofInt64(cols),
                numSampledEdges == null ? null : Tensor.ofInt64(numSampledEdges), null));
    }

    /**
     * As above, with the edges' data as a store that answers per node has it ({@code --with-edge}): each one's input
     * row, weight (or null: no {@code efeats}) and time (or null: no {@code edge_time}).
     */
    public TypedSample edges(String type, int[] rows, int[] cols, int[] numSampledEdges, long[] eids, float[] weights,
            long[] times) {
        return edges(type, new Edges(Tensor.ofInt64(rows), Tensor.ofInt64(cols),
                numSampledEdges == null ? null : Tensor.ofInt64(numSampledEdges), new EdgeData(Tensor.ofInt64(eids),
                        weights == null ? null : Tensor.ofFloat32(weights, new long[] {weights.length, 1}),
                        times == null ? null : Tensor.ofInt64(times))));
    }

    TypedSample nodes(String type, Nodes part) {
        nodes.put(type, part);
        return this;
    }

    /** Adds (or replaces) edge type {@code type}'s part ({@code type} as {@link EdgeType#toString} writes it). */
    TypedSample edges(String type, Edges part) {
        edges.put(type, part);
        return this;
    }

    /** Adds the PPR edges of PPR edge type {@code type}: {@code edgeIndex} [2, N], {@code weights} [N, columns]. */
    public TypedSample pprEdges(String type, int[] edgeIndex, double[] weights, int columns) {
        long n = edgeIndex.length / 2;
        return pprEdges(type, new PprEdges(Tensor.ofInt64(edgeIndex, new long[] {2, n}),
                Tensor.ofFloat64(weights, new long[] {n, columns})));
    }

    TypedSample pprEdges(String type, PprEdges part) {
        pprEdges.put(type, part);
        return this;
    }

    @Override
    public boolean hetero() {
        return true;
    }

    @Override
    public SampleMetadata metadata() {
        return metadata;
    }

    public String seedType() {
        return seedType;
    }

    /** Node type -> its part, in name order. */
    public Map<String, Nodes> nodes() {
        return Collections.unmodifiableMap(nodes);
    }

    /** Edge type -> its part, in name order. */
    public Map<String, Edges> edges() {
        return Collections.unmodifiableMap(edges);
    }

    /** PPR edge type -> its edges, in name order. */
    public Map<String, PprEdges> pprEdges() {
        return Collections.unmodifiableMap(pprEdges);
    }
}
