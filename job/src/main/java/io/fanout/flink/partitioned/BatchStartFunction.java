package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedTimes;
import io.fanout.sampling.link.AnchorLabels;
import io.fanout.sampling.link.LinkBatch;
import io.fanout.sampling.link.SupervisionEdges;
import io.fanout.sampling.partitioned.BatchAssembly;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Starts every seed batch of the partitioned k-hop: its seeds (as node ids) are hop 0, and their hop-1
 * requests go out on {@link HopStageFunction#requests(int) requests(1)}.
 */
public class BatchStartFunction extends ProcessFunction<SeedBatch, PartialBatch> {
    private static final long serialVersionUID = 1L;

    /** The seed list's node ids by index (the client's id map), or null when ids equal indices. */
    private final long[] nodeIds;

    /** {@code --disjoint}: every seed grows its own tree. */
    private final boolean disjoint;

    /** Temporal sampling: seeds take their times from their batch ({@link SeedBatch#seedTimes}) or these. */
    private boolean temporal;
    private SeedTimes seedTimes;

    /** Link seeds ({@code --link-seeds}): the seed edges' ends' ids by position; a batch's seeds are positions. */
    private long[][] linkEnds;

    /** ABLP on a plain graph: the anchors' positive (and negative, or null) label edges, by node index; else null. */
    private SupervisionEdges positives;
    private SupervisionEdges negatives;

    public BatchStartFunction(long[] nodeIds, boolean disjoint) {
        this.nodeIds = nodeIds;
        this.disjoint = disjoint;
    }

    /**
     * Temporal sampling ({@code fanout.time-column}, disjoint): each seed at its time in {@code seedTimes}, or when
     * null at its time from the seed file, which every batch must then carry ({@link #seedTimes(SeedBatch, SeedTimes)}).
     */
    public BatchStartFunction temporal(boolean temporal, SeedTimes seedTimes) {
        this.temporal = temporal;
        this.seedTimes = seedTimes;
        return this;
    }

    /**
     * Link prediction ({@code --link-seeds}, PyG's {@code LinkNeighborLoader} without negatives): a batch's seeds are
     * positions of seed edges, {@code ends} their sources' and destinations' ids; each batch samples around its
     * edges' sources then destinations, as the memory store's link batches do.
     */
    public BatchStartFunction links(long[][] ends) {
        this.linkEnds = ends;
        return this;
    }

    /**
     * ABLP on a plain graph ({@code --ablp-positive-edges}, GiGL's {@code DistABLPLoader}): a batch's seeds are
     * anchors, sampled around together with their label nodes; {@code negatives} may be null.
     */
    public BatchStartFunction anchors(SupervisionEdges positives, SupervisionEdges negatives) {
        this.positives = positives;
        this.negatives = negatives;
        return this;
    }

    @Override
    public void processElement(SeedBatch batch, Context ctx, Collector<PartialBatch> out) {
        OutputTag<RequestGroup> tag = HopStageFunction.requests(1);
        if (linkEnds != null) {
            out.collect(startLinks(batch, linkEnds, null, null, 0, disjoint, temporal, seedTimes,
                    getRuntimeContext().getTaskInfo(), r -> ctx.output(tag, r)));
            return;
        }
        if (positives != null) {
            out.collect(startAnchors(batch, r -> ctx.output(tag, r)));
            return;
        }
        long[] seeds = seedIds(batch, nodeIds);
        long[] times = temporal ? seedTimes(batch, seedTimes) : null;
        out.collect(start(batch, disjoint ? BatchAssembly.disjoint(seeds) : new BatchAssembly(seeds), times, 0,
                getRuntimeContext().getTaskInfo(), r -> ctx.output(tag, r)));
    }

    /**
     * A link batch, laid out as PyG's {@code edge_sample} and the memory store's {@code KHopSamplingFunction} lay it
     * out. Binary or no negatives ({@code tripletAmount} 0): the P seed edges' sources and the N negatives' sources
     * ({@code negativeSrc}, or none), then their destinations, are its seeds, each tree's time its positive's ({@code j
     * mod P} within each half). Triplet: the sources, the destinations, then the P x k negative destinations
     * ({@code negativeDst} row-major [P, k]; disjoint, negative-major, so that tree mod P is the positive's index),
     * tree {@code j}'s time positive {@code j mod P}'s. De-duplicated, or disjoint (each end its own tree); its labels
     * are each end's local index (the trees' roots when disjoint), triplet negatives row-major.
     */
    static PartialBatch startLinks(SeedBatch batch, long[][] linkEnds, long[] negativeSrc, long[] negativeDst,
            int tripletAmount, boolean disjoint, boolean temporal, SeedTimes seedTimes,
            org.apache.flink.api.common.TaskInfo task, java.util.function.Consumer<RequestGroup> requests) {
        int p = batch.size();
        boolean triplet = tripletAmount > 0;
        int n = negativeDst == null ? 0 : negativeDst.length;
        int half = triplet ? p : p + n; // where the destinations start
        long[] ends = new long[triplet ? 2 * p + n : 2 * half];
        for (int i = 0; i < p; i++) {
            ends[i] = linkEnds[0][batch.seeds[i]];
            ends[half + i] = linkEnds[1][batch.seeds[i]];
        }
        if (triplet) {
            for (int j = 0; j < n; j++) { // row-major [P, k]; disjoint trees negative-major
                ends[2 * p + (disjoint ? LinkBatch.negativeMajor(j, p, tripletAmount) : j)] = negativeDst[j];
            }
        } else if (n > 0) {
            System.arraycopy(negativeSrc, 0, ends, p, n);
            System.arraycopy(negativeDst, 0, ends, half + p, n);
        }
        BatchAssembly assembly = disjoint ? BatchAssembly.disjoint(ends) : new BatchAssembly(ends);
        long[] times = null;
        if (temporal) {
            long[] edgeTimes = seedTimes(batch, seedTimes); // by seed edge
            times = new long[ends.length];
            for (int j = 0; j < times.length; j++) {
                // Negatives repeat their positives' times, as PyG's.
                times[j] = edgeTimes[triplet ? j % p : (j % half) % p];
            }
        }
        PartialBatch start = start(batch, assembly, times, 0, task, requests);
        int[] labels = assembly.seedIndices();
        if (triplet && disjoint) { // the negatives' labels back to row-major
            int[] byTree = labels.clone();
            for (int j = 0; j < n; j++) {
                labels[2 * p + j] = byTree[2 * p + LinkBatch.negativeMajor(j, p, tripletAmount)];
            }
        }
        start.linkLabelIndex = labels;
        start.tripletAmount = tripletAmount;
        return start;
    }

    /**
     * An ABLP batch as the memory store's {@code KHopSamplingFunction} makes one: the anchors, then their label nodes
     * ({@link AnchorLabels}), are the seeds of one de-duplicated sample; the batch stays the anchors, and carries each
     * anchor's label node ids for {@code #META.gigl_positive_labels...} (and negative).
     */
    private PartialBatch startAnchors(SeedBatch batch, java.util.function.Consumer<RequestGroup> requests) {
        AnchorLabels labels = AnchorLabels.of(batch.seeds, positives, negatives);
        int[] seeds = labels.seeds.get(positives.type().src()); // one node type: anchors, then label nodes
        PartialBatch start = start(batch, new BatchAssembly(idsOf(seeds)), null, 0, getRuntimeContext().getTaskInfo(),
                requests);
        start.seeds = seedIds(batch, nodeIds);
        start.positiveLabels = idsOf(labels.positive);
        start.positiveWidth = labels.positiveWidth;
        if (labels.negative != null) {
            start.negativeLabels = idsOf(labels.negative);
            start.negativeWidth = labels.negativeWidth;
        }
        return start;
    }

    /** Node indices as ids. */
    private long[] idsOf(int[] indices) {
        return idsOf(indices, nodeIds);
    }

    /** Node indices as ids ({@code ids} by index; null: ids equal indices; {@link AnchorLabels#PADDING} stays -1). */
    static long[] idsOf(int[] indices, long[] ids) {
        long[] out = new long[indices.length];
        for (int i = 0; i < out.length; i++) {
            int v = indices[i];
            out[i] = v == AnchorLabels.PADDING ? -1L : ids == null ? v : ids[v];
        }
        return out;
    }

    /** The batch's seed times: its own (a seed file the TaskManagers read), else from {@code seedTimes}. */
    static long[] seedTimes(SeedBatch batch, SeedTimes seedTimes) {
        if (batch.seedTimes != null && batch.seedTimes.length == batch.size()) {
            return batch.seedTimes;
        }
        if (seedTimes == null) {
            throw new IllegalStateException(batch + " has no seed times, which temporal sampling needs");
        }
        return seedTimes.of(batch);
    }

    /** The batch's seeds as node ids. */
    private static long[] seedIds(SeedBatch batch, long[] nodeIds) {
        long[] seeds = new long[batch.size()];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = batch.seedId(i, nodeIds);
        }
        return seeds;
    }

    /**
     * The batch's hop-0 state, sampled at graph version {@code version}; its hop-1 requests go to {@code requests},
     * grouped for the lookups of a job whose tasks run as {@code task} does ({@link RequestRouting}).
     */
    static PartialBatch start(SeedBatch batch, long[] nodeIds, long version, org.apache.flink.api.common.TaskInfo task,
            java.util.function.Consumer<RequestGroup> requests) {
        return start(batch, new BatchAssembly(seedIds(batch, nodeIds)), null, version, task, requests);
    }

    /**
     * The batch's hop-0 state from {@code assembly} (its seeds), at {@code seedTimes} (temporal; else null), its hop-1
     * requests to {@code requests}.
     */
    private static PartialBatch start(SeedBatch batch, BatchAssembly assembly, long[] seedTimes, long version,
            org.apache.flink.api.common.TaskInfo task, java.util.function.Consumer<RequestGroup> requests) {
        PartialBatch start = PartialBatch.of(batch.key(), batch.epoch, batch.batchId, batch.numBatches, batch.inputIds,
                assembly);
        start.graphVersion = version;
        start.seedTimes = seedTimes;
        RequestRouting.groups(start, 1, assembly.frontier(), assembly.frontierTrees(), task, requests);
        return start;
    }
}
