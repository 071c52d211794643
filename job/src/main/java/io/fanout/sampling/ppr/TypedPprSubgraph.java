package io.fanout.sampling.ppr;

import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import java.util.Map;

/**
 * One batch's typed PPR neighbourhoods in GiGL's heterogeneous form: per node type the sampled node indices
 * (the seeds first, in the seed type), per neighbour node type the virtual edges {@code (seed_type, "ppr",
 * ntype)} with their weight rows, and, with {@code include_sampled_edges}, the original edges read by the pushes
 * between selected nodes, in k-hop's reported orientation.
 */
public final class TypedPprSubgraph {
    /** The PPR edges from the seeds to the selected nodes of one node type. */
    public static final class PprEdges {
        /** int64 [2, N] row-major: seed local indices (into the seed type), then neighbour local indices. */
        public final int[] edgeIndex;
        /** float64 [N, columns] row-major weights (see {@link TypedPprSampler} for the columns). */
        public final double[] weights;
        /** Per edge the channel the neighbour is attributed to (0 without channels). */
        final int[] channel;

        PprEdges(int[] edgeIndex, double[] weights, int[] channel) {
            this.edgeIndex = edgeIndex;
            this.weights = weights;
            this.channel = channel;
        }

        public int numEdges() {
            return edgeIndex.length / 2;
        }
    }

    /** The original edges of one reported edge type whose two ends were both selected. */
    public static final class SampledEdges {
        /** The adjacency they were read from (edge ids and weights by position). */
        public final TypedAdjacency adjacency;
        /** Local indices into the reported type's source node type (the nodes reached). */
        public final int[] rows;
        /** Local indices into the reported type's destination node type (the nodes pushed). */
        public final int[] cols;
        /** Each edge's position in {@code adjacency.csr()}. */
        public final int[] positions;

        SampledEdges(TypedAdjacency adjacency, int[] rows, int[] cols, int[] positions) {
            this.adjacency = adjacency;
            this.rows = rows;
            this.cols = cols;
            this.positions = positions;
        }
    }

    /** The seeds' node type. */
    public final String seedType;
    /** Number of unique seeds: the first entries of {@code nodes.get(seedType)}. */
    public final int numSeeds;
    /** Every node type of the graph (name order) -> node indices within the type, seeds first. */
    public final Map<String, int[]> nodes;
    /** Every node type of the graph (name order) -> the PPR edges to it. */
    public final Map<String, PprEdges> pprEdges;
    /** Width of a weight row: 2, or 2 + 3 per channel. */
    public final int columns;
    /** Every reported edge type (name order) -> its sampled original edges; empty without include_sampled_edges. */
    public final Map<EdgeType, SampledEdges> sampledEdges;
    /** Forward-push operations the batch took (all seeds, all channels). */
    public final long pushes;

    TypedPprSubgraph(String seedType, int numSeeds, Map<String, int[]> nodes, Map<String, PprEdges> pprEdges,
            int columns, Map<EdgeType, SampledEdges> sampledEdges, long pushes) {
        this.seedType = seedType;
        this.numSeeds = numSeeds;
        this.nodes = nodes;
        this.pprEdges = pprEdges;
        this.columns = columns;
        this.sampledEdges = sampledEdges;
        this.pushes = pushes;
    }

    public int numNodes() {
        int n = 0;
        for (int[] v : nodes.values()) {
            n += v.length;
        }
        return n;
    }

    /** PPR edges plus sampled original edges. */
    public int numEdges() {
        int m = 0;
        for (PprEdges e : pprEdges.values()) {
            m += e.numEdges();
        }
        for (SampledEdges e : sampledEdges.values()) {
            m += e.rows.length;
        }
        return m;
    }

    /** GiGL's virtual PPR edge type from the seeds to {@code nodeType}. */
    public static String pprEdgeType(String seedType, String nodeType) {
        return "('" + seedType + "', 'ppr', '" + nodeType + "')";
    }
}
