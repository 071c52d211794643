package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.HeteroBatchAssembly;

/**
 * A typed batch's subgraph between two hops (a Flink POJO keyed by {@link #batchKey}): a
 * {@link HeteroBatchAssembly}'s state, per node type and per edge type in name order ({@link TypedLayout}).
 */
public class TypedPartialBatch {
    public long batchKey;
    public int epoch;
    public int batchId;
    public int numBatches;
    /** Seed ids as the batch gave them (of the seed type). */
    public long[] seeds;
    /** Positions of the seeds in the job's seed list (PyG input_id). */
    public int[] inputIds;
    /** Temporal sampling: each seed's time (tree {@code t}'s is {@code seedTimes[t]}); else null. */
    public long[] seedTimes;
    /**
     * A link batch ({@code --link-seeds}): its P seed edges' and N binary negatives' sources' local indices (in the
     * link type's source type's {@link #ids}), then their destinations' (in the destination type's); with triplet
     * negatives the P sources, the P destinations, then the P x k negative destinations row-major. Else null.
     */
    public int[] linkLabelIndex;
    /** A link batch's triplet negatives per positive (k), or 0. */
    public int tripletAmount;
    /**
     * ABLP ({@code --ablp-positive-type}): each anchor's positive label node ids, row-major [anchors,
     * {@link #positiveWidth}] padded with -1 (GiGL's layout); its {@link #seeds} are the anchors. Else null.
     */
    public long[] positiveLabels;
    public int positiveWidth;
    /** ABLP with {@code --ablp-negative-type}: each anchor's negative label node ids, as above; else null. */
    public long[] negativeLabels;
    public int negativeWidth;
    /** [node type]: node ids, seeds first, then each hop's new nodes. */
    public long[][] ids;
    public int[][] numSampledNodes;
    /** Disjoint ({@code --disjoint}): [node type] each node's tree, the index of its seed; else null. */
    public int[][] trees;
    /** [edge type]: local indices of the sampled neighbours / the expanded nodes, and edges per hop. */
    public int[][] rows;
    public int[][] cols;
    public int[][] numSampledEdges;
    /**
     * {@code --with-edge}: [edge type] each edge's input row in its type's file, weight (a type with a weight column)
     * and time (temporal, a timed type), aligned with {@link #rows}; null without it (an inner array null: none).
     */
    public long[][] edgeIds;
    public float[][] edgeWeights;
    public long[][] edgeTimes;
    /** With node files, after the node-data stage: [node type] the {@code nfeats} body (null for a type without a file). */
    public byte[][] nfeats;
    /** With node files: [node type] the labels (null for a type without a file). */
    public long[][] nlabels;
    /**
     * Typed PPR only ({@link TypedPprFunctions.Finish}): [node type] the PPR edges {@code [seed locals..., node
     * locals...]} and their weight rows of {@link #pprColumns} each; {@link #rows}/{@link #cols} then hold the sampled
     * edges per edge type (name order). Null in a k-hop batch.
     */
    public int[][] pprEdgeIndex;
    public double[][] pprWeights;
    public int pprColumns;

    public TypedPartialBatch() {}

    static TypedPartialBatch of(long batchKey, int epoch, int batchId, int numBatches, int[] inputIds,
            HeteroBatchAssembly assembly) {
        TypedPartialBatch p = new TypedPartialBatch();
        p.batchKey = batchKey;
        p.epoch = epoch;
        p.batchId = batchId;
        p.numBatches = numBatches;
        p.inputIds = inputIds;
        p.seeds = assembly.batch();
        p.ids = assembly.ids();
        p.numSampledNodes = assembly.numSampledNodes();
        p.trees = assembly.trees();
        p.rows = assembly.rows();
        p.cols = assembly.cols();
        p.numSampledEdges = assembly.numSampledEdges();
        return p;
    }

    /** Where this batch goes next: {@link #of} with the assembly after one more hop. */
    TypedPartialBatch next(HeteroBatchAssembly assembly) {
        TypedPartialBatch next = of(batchKey, epoch, batchId, numBatches, inputIds, assembly);
        next.seedTimes = seedTimes;
        next.linkLabelIndex = linkLabelIndex;
        next.tripletAmount = tripletAmount;
        next.positiveLabels = positiveLabels;
        next.positiveWidth = positiveWidth;
        next.negativeLabels = negativeLabels;
        next.negativeWidth = negativeWidth;
        next.edgeIds = edgeIds;
        next.edgeWeights = edgeWeights;
        next.edgeTimes = edgeTimes;
        return next;
    }

    /** {@code --with-edge}: edge type {@code t}'s edge data so far, or null without it. */
    io.fanout.sampling.partitioned.SampledEdgeData edgeData(int t) {
        return edgeIds == null ? null
                : new io.fanout.sampling.partitioned.SampledEdgeData(edgeIds[t], edgeWeights[t], edgeTimes[t]);
    }

    /** {@code --with-edge}: appends one hop's edge data, per edge type, to the batch's. */
    void appendEdgeData(io.fanout.sampling.partitioned.SampledEdgeData[] hop) {
        long[][] ids = new long[hop.length][];
        float[][] weights = new float[hop.length][];
        long[][] times = new long[hop.length][];
        for (int t = 0; t < hop.length; t++) {
            io.fanout.sampling.partitioned.SampledEdgeData all = edgeIds == null ? hop[t] : edgeData(t).append(hop[t]);
            ids[t] = all.eids();
            weights[t] = all.weights();
            times[t] = all.times();
        }
        edgeIds = ids;
        edgeWeights = weights;
        edgeTimes = times;
    }
}
