package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.BatchAssembly;
import io.fanout.sampling.partitioned.SampledEdgeData;

/** A batch's subgraph between two hops (a Flink POJO keyed by {@link #batchKey}): a {@link BatchAssembly}'s state. */
public class PartialBatch {
    public long batchKey;
    public int epoch;
    public int batchId;
    public int numBatches;
    /** Seed ids as the batch gave them. */
    public long[] seeds;
    /** Positions of the seeds in the job's seed list (PyG input_id). */
    public int[] inputIds;
    /** Temporal sampling: each seed's time (tree {@code t}'s is {@code seedTimes[t]}); else null. */
    public long[] seedTimes;
    /**
     * A link batch ({@code --link-seeds}): its P seed edges' and N binary negatives' sources, then their destinations,
     * as local indices into {@link #ids} (PyG's {@code edge_label_index} [2, P+N]); with triplet negatives, the P
     * sources, the P destinations, then the P x k negative destinations row-major. Else null.
     */
    public int[] linkLabelIndex;
    /** A link batch's triplet negatives per positive (k), or 0. */
    public int tripletAmount;
    /**
     * ABLP on a plain graph ({@code --ablp-positive-edges}): each anchor's positive label node ids, row-major [anchors,
     * {@link #positiveWidth}] padded with -1 (GiGL's layout); its {@link #seeds} are the anchors. Else null.
     */
    public long[] positiveLabels;
    public int positiveWidth;
    /** ABLP with {@code --ablp-negative-edges}: each anchor's negative label node ids, as above; else null. */
    public long[] negativeLabels;
    public int negativeWidth;
    public long[] ids;
    public int[] rows;
    public int[] cols;
    public int[] numSampledNodes;
    public int[] numSampledEdges;
    /** {@code --disjoint}: each node's tree, the index of its seed (PyG's {@code batch}); else null. */
    public int[] trees;
    /** With a node file, after the node-data stage: the {@code nfeats} body ({@code ids} order) and labels; else null. */
    public byte[] nfeats;
    public long[] nlabels;
    /** PPR ({@link PprFinishFunction}): GiGL's {@code edge_index} [2, E] (seed positions, node positions); else null. */
    public int[] pprEdgeIndex;
    /** PPR: per edge {@code [value, 1/(1+hop)]}; else null. */
    public double[] pprEdgeAttr;
    /** The graph version the batch is sampled at (with graph updates; 0 = the loaded graph). */
    public long graphVersion;
    /**
     * {@code --with-edge}: each edge's input row, weight (weighted graphs) and time (temporal), aligned with
     * {@link #rows} ({@link SampledEdgeData}); else null.
     */
    public long[] edgeIds;
    public float[] edgeWeights;
    public long[] edgeTimes;

    public PartialBatch() {}

    /** The batch's state after {@code assembly}'s hops (with its trees when disjoint). */
    static PartialBatch of(long batchKey, int epoch, int batchId, int numBatches, int[] inputIds,
            BatchAssembly assembly) {
        PartialBatch p = new PartialBatch();
        p.batchKey = batchKey;
        p.epoch = epoch;
        p.batchId = batchId;
        p.numBatches = numBatches;
        p.inputIds = inputIds;
        p.seeds = assembly.batch();
        p.ids = assembly.ids();
        p.trees = assembly.trees();
        p.rows = assembly.rows();
        p.cols = assembly.cols();
        p.numSampledNodes = assembly.numSampledNodes();
        p.numSampledEdges = assembly.numSampledEdges();
        return p;
    }

    /** The assembly to continue from (disjoint when {@link #trees} is set), with room for {@code drawn} more. */
    BatchAssembly assembly(int drawn) {
        return new BatchAssembly(seeds, ids, trees, rows, cols, numSampledNodes, numSampledEdges, drawn);
    }

    /** Where this batch goes next: {@link #of} with the assembly after one more hop. */
    PartialBatch next(BatchAssembly assembly) {
        PartialBatch next = of(batchKey, epoch, batchId, numBatches, inputIds, assembly);
        next.graphVersion = graphVersion;
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

    /** {@code --with-edge}: the edges' data so far, or null without it. */
    SampledEdgeData edgeData() {
        return edgeIds == null ? null : new SampledEdgeData(edgeIds, edgeWeights, edgeTimes);
    }

    /** {@code --with-edge}: sets the edges' data (aligned with {@link #rows}). */
    void edgeData(SampledEdgeData data) {
        edgeIds = data.eids();
        edgeWeights = data.weights();
        edgeTimes = data.times();
    }
}
