package io.fanout.sampling.hetero;

import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import java.util.Map;

/**
 * One batch's heterogeneous k-hop sample, in GLT's {@code HeteroSamplerOutput} shape: per node type the sampled
 * node indices (seeds first, then each hop's new nodes) and per-hop counts; per reported edge type the edges as
 * local indices, {@code rows} into the edge type's source node type, {@code cols} into its destination type.
 */
public final class HeteroSubgraph {
    /** The sampled nodes of one node type. */
    public static final class Nodes {
        /** Node indices within the type; the first {@code numSampledNodes[0]} are the seeds. */
        public final int[] indices;
        /** New nodes per hop, entry 0 = seeds ([hops + 1]). */
        public final int[] numSampledNodes;

        /** Disjoint sampling: each node's tree (the index of its seed in the batch), else null. */
        public final int[] trees;

        Nodes(int[] indices, int[] numSampledNodes) {
            this(indices, numSampledNodes, null);
        }

        Nodes(int[] indices, int[] numSampledNodes, int[] trees) {
            this.indices = indices;
            this.numSampledNodes = numSampledNodes;
            this.trees = trees;
        }
    }

    /** The sampled edges of one reported edge type. */
    public static final class Edges {
        /** The adjacency they were sampled from (for edge ids and weights). */
        public final TypedAdjacency adjacency;
        /** Local indices into the reported type's source node type: the sampled neighbours. */
        public final int[] rows;
        /** Local indices into the reported type's destination node type: the nodes expanded. */
        public final int[] cols;
        /** Each edge's position in {@code adjacency.csr()}, or null when not tracked (or bidirectional). */
        public final int[] positions;
        /** Edges per hop ([hops]), or null for bidirectional edges (PyG: None). */
        public final int[] numSampledEdges;

        Edges(TypedAdjacency adjacency, int[] rows, int[] cols, int[] positions, int[] numSampledEdges) {
            this.adjacency = adjacency;
            this.rows = rows;
            this.cols = cols;
            this.positions = positions;
            this.numSampledEdges = numSampledEdges;
        }
    }

    /** The node types the batch's seeds were of, in name order. */
    public final java.util.SortedSet<String> seedTypes;
    /** Every node type of the graph, in name order. */
    public final Map<String, Nodes> nodes;
    /** Every reported edge type, in name order. */
    public final Map<EdgeType, Edges> edges;

    HeteroSubgraph(java.util.Set<String> seedTypes, Map<String, Nodes> nodes, Map<EdgeType, Edges> edges) {
        this.seedTypes = java.util.Collections.unmodifiableSortedSet(new java.util.TreeSet<>(seedTypes));
        this.nodes = nodes;
        this.edges = edges;
    }

    /**
     * The local index of each of {@code indices} (node indices of {@code type}) in this sample's nodes of that
     * type; every one must be in the sample.
     */
    public int[] localIndices(String type, int[] indices) {
        it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap local = new it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap();
        int[] all = nodes.get(type).indices;
        for (int i = 0; i < all.length; i++) {
            local.put(all[i], i);
        }
        int[] out = new int[indices.length];
        for (int i = 0; i < indices.length; i++) {
            if (!local.containsKey(indices[i])) {
                throw new IllegalArgumentException("node " + indices[i] + " of type " + type + " is not in the sample");
            }
            out[i] = local.get(indices[i]);
        }
        return out;
    }

    public int numNodes() {
        int n = 0;
        for (Nodes t : nodes.values()) {
            n += t.indices.length;
        }
        return n;
    }

    public int numEdges() {
        int m = 0;
        for (Edges t : edges.values()) {
            m += t.rows.length;
        }
        return m;
    }
}
