package io.fanout.sampling;

import java.util.Arrays;
import java.util.Objects;

/**
 * One batch's sampled k-hop subgraph in GLT message form: node ids, edges as local indices, per-hop counts.
 *
 * <p>{@code ids} lists the batch's unique nodes: the unique seeds first (first-occurrence order), then
 * each hop's newly discovered nodes in discovery order. Edge {@code i} is
 * {@code ids[rows[i]] -> ids[cols[i]]} in the graph's {@link io.fanout.graph.EdgeDirection}: {@code rows}
 * holds the frontier (expanded) node, {@code cols} the sampled neighbour (GLT's sampling-direction
 * convention). Edges are grouped by hop, hop 1 first.
 *
 * <p>A subgraph from {@link KHopSampler#sample} owns exact-length arrays. One from
 * {@link KHopSampler#sampleShared} is backed by the sampler's scratch buffers, which may be longer than
 * {@link #numNodes()} / {@link #numEdges()} (see the {@code *Buffer()} accessors) and are reused by the
 * sampler's next call: the operator's hot path encodes it at once instead of copying it.
 */
public final class SampledSubgraph {
    private final int[] ids;
    private final int[] rows;
    private final int[] cols;
    private final int[] edgePositions;
    private final int[] batch;
    private final int[] numSampledNodes;
    private final int[] numSampledEdges;
    /** Disjoint sampling: per node, the index of the seed whose tree it belongs to; else null. */
    private final int[] nodeBatch;
    /** The edges are the sampled ones grouped by hop ({@link #numSampledEdges()} counts them); false once induced. */
    private final boolean edgesByHop;
    private final int numNodes;
    private final int numEdges;

    /**
     * Wraps the given arrays without copying them.
     *
     * @param ids global ids of the batch's nodes, unique seeds first
     * @param rows local index of the expanded (frontier) node of each edge
     * @param cols local index of the sampled neighbour of each edge, same length as rows
     * @param batch the seed ids as the batch gave them
     * @param numSampledNodes per hop (length hops+1): [0] = unique seeds, [h] = new nodes at hop h
     * @param numSampledEdges per hop (length hops, as GLT and PyG): [h-1] = edges sampled at hop h
     */
    public SampledSubgraph(int[] ids, int[] rows, int[] cols, int[] batch, int[] numSampledNodes,
            int[] numSampledEdges) {
        this(ids, ids.length, rows, cols, null, rows.length, batch, numSampledNodes, numSampledEdges);
        if (rows.length != cols.length) {
            throw new IllegalArgumentException(
                    "rows and cols must have the same length, got " + rows.length + " and " + cols.length);
        }
    }

    /** Wraps buffers of which only the first numNodes ids and numEdges rows/cols are the subgraph. */
    SampledSubgraph(int[] ids, int numNodes, int[] rows, int[] cols, int[] edgePositions, int numEdges, int[] batch,
            int[] numSampledNodes, int[] numSampledEdges) {
        this(ids, numNodes, rows, cols, edgePositions, numEdges, batch, numSampledNodes, numSampledEdges, null, true);
    }

    /** As above, with the tree (seed index) of every node for disjoint sampling, or null. */
    SampledSubgraph(int[] ids, int numNodes, int[] rows, int[] cols, int[] edgePositions, int numEdges, int[] batch,
            int[] numSampledNodes, int[] numSampledEdges, int[] nodeBatch) {
        this(ids, numNodes, rows, cols, edgePositions, numEdges, batch, numSampledNodes, numSampledEdges, nodeBatch, true);
    }

    private SampledSubgraph(int[] ids, int numNodes, int[] rows, int[] cols, int[] edgePositions, int numEdges,
            int[] batch, int[] numSampledNodes, int[] numSampledEdges, int[] nodeBatch, boolean edgesByHop) {
        this.nodeBatch = nodeBatch;
        this.edgesByHop = edgesByHop;
        if (nodeBatch != null && numNodes > nodeBatch.length) {
            throw new IllegalArgumentException("node batch shorter than " + numNodes + " nodes");
        }
        this.numNodes = numNodes;
        this.numEdges = numEdges;
        this.ids = Objects.requireNonNull(ids, "ids");
        this.rows = Objects.requireNonNull(rows, "rows");
        this.cols = Objects.requireNonNull(cols, "cols");
        this.edgePositions = edgePositions;
        this.batch = Objects.requireNonNull(batch, "batch");
        this.numSampledNodes = Objects.requireNonNull(numSampledNodes, "numSampledNodes");
        this.numSampledEdges = Objects.requireNonNull(numSampledEdges, "numSampledEdges");
        if (numNodes > ids.length || numEdges > rows.length || numEdges > cols.length) {
            throw new IllegalArgumentException("buffers shorter than " + numNodes + " nodes / " + numEdges + " edges");
        }
        if (numSampledNodes.length != numSampledEdges.length + 1) {
            throw new IllegalArgumentException("numSampledNodes must have length hops+1 and numSampledEdges hops, got "
                    + numSampledNodes.length + " and " + numSampledEdges.length);
        }
        if (edgePositions != null && numEdges > edgePositions.length) {
            throw new IllegalArgumentException("edge positions shorter than " + numEdges + " edges");
        }
    }

    /** Node indices (the store's; its NodeIdMap gives the ids) of the batch's nodes: unique seeds first, then each hop's new nodes. */
    public int[] ids() {
        return ids.length == numNodes ? ids : Arrays.copyOf(ids, numNodes);
    }

    /** Local index (into {@link #ids()}) of the frontier node of each sampled edge. */
    public int[] rows() {
        return rows.length == numEdges ? rows : Arrays.copyOf(rows, numEdges);
    }

    /** Local index (into {@link #ids()}) of the sampled neighbour of each sampled edge. */
    public int[] cols() {
        return cols.length == numEdges ? cols : Arrays.copyOf(cols, numEdges);
    }

    /** Number of nodes in the subgraph (unique seeds included). */
    public int numNodes() {
        return numNodes;
    }

    /** Number of sampled edges. */
    public int numEdges() {
        return numEdges;
    }

    /** The ids without a copy: only the first {@link #numNodes()} entries belong to this subgraph. */
    public int[] idsBuffer() {
        return ids;
    }

    /** The rows without a copy: only the first {@link #numEdges()} entries belong to this subgraph. */
    public int[] rowsBuffer() {
        return rows;
    }

    /** The cols without a copy: only the first {@link #numEdges()} entries belong to this subgraph. */
    public int[] colsBuffer() {
        return cols;
    }

    /**
     * The CSR position ({@link io.fanout.graph.CsrGraph#targets()} index) of each sampled edge without a copy,
     * or null when the sampler did not track edges: only the first {@link #numEdges()} entries belong here.
     */
    public int[] edgePositionsBuffer() {
        return edgePositions;
    }

    /** A copy that owns exact-length arrays (detached from any sampler buffers). */
    public SampledSubgraph detached() {
        return new SampledSubgraph(Arrays.copyOf(ids, numNodes), numNodes, Arrays.copyOf(rows, numEdges),
                Arrays.copyOf(cols, numEdges), edgePositions == null ? null : Arrays.copyOf(edgePositions, numEdges),
                numEdges, batch.clone(), numSampledNodes.clone(), numSampledEdges.clone(),
                nodeBatch == null ? null : Arrays.copyOf(nodeBatch, numNodes), edgesByHop);
    }

    /**
     * Disjoint sampling only (else null): per node, the index in {@link #batch()} of the seed whose tree holds
     * it (PyG's disjoint {@code batch} vector), without a copy: the first {@link #numNodes()} entries belong here.
     */
    public int[] nodeBatchBuffer() {
        return nodeBatch;
    }

    /**
     * The same nodes with other edges ({@link SubgraphInducer}): owned copies of the nodes, the given edge arrays
     * (first {@code numEdges} entries), no longer grouped by hop.
     */
    SampledSubgraph withEdges(int[] rows, int[] cols, int[] edgePositions, int numEdges) {
        return new SampledSubgraph(Arrays.copyOf(ids, numNodes), numNodes, rows, cols, edgePositions, numEdges,
                batch.clone(), numSampledNodes.clone(), numSampledEdges.clone(),
                nodeBatch == null ? null : Arrays.copyOf(nodeBatch, numNodes), false);
    }

    /**
     * True when the edges are the sampled ones grouped by hop, as {@link #numSampledEdges()} counts them; false
     * for induced and bidirectional subgraphs, whose messages carry no {@code num_sampled_edges} (PyG: None).
     */
    public boolean edgesByHop() {
        return edgesByHop;
    }

    /** The seed ids as given to the sampler (duplicates included). */
    public int[] batch() {
        return batch;
    }

    /** Per hop, length hops+1: [0] = unique seeds, [h] = nodes first found at hop h. */
    public int[] numSampledNodes() {
        return numSampledNodes;
    }

    /** Per hop, length hops (GLT/PyG): [h-1] = edges sampled at hop h. */
    public int[] numSampledEdges() {
        return numSampledEdges;
    }

    /** Number of hops sampled (the length of the fanout list). */
    public int numHops() {
        return numSampledEdges.length;
    }

    @Override
    public String toString() {
        return "SampledSubgraph{nodes=" + numNodes + ", edges=" + numEdges + ", seeds=" + batch.length
                + ", numSampledNodes=" + Arrays.toString(numSampledNodes)
                + ", numSampledEdges=" + Arrays.toString(numSampledEdges) + "}";
    }
}
