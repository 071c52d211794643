package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedTimes;
import io.fanout.sampling.link.AnchorLabels;
import io.fanout.sampling.link.LinkBatch;
import io.fanout.sampling.link.SupervisionEdges;
import io.fanout.sampling.partitioned.HeteroBatchAssembly;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Starts every seed batch of the typed partitioned k-hop: its seeds (node ids of the seed type) are hop 0, and
 * the hop-1 requests of every edge type walked from them go out on {@link TypedLayout#requests(int, int)}.
 */
public class TypedBatchStartFunction extends ProcessFunction<SeedBatch, TypedPartialBatch> {
    private static final long serialVersionUID = 1L;

    private final TypedLayout layout;
    /** The seed type's node ids by index (the client's id map), or null when ids equal indices. */
    private final long[] nodeIds;
    /** {@code --disjoint}: every seed grows its own tree. */
    private final boolean disjoint;
    /** Temporal sampling: the seeds' times ({@link BatchStartFunction#seedTimes(SeedBatch, SeedTimes)}); else null. */
    private boolean temporal;
    private SeedTimes seedTimes;
    /** Link seeds: the seed edges' ends' ids by position ({@code [sources, destinations]}); else null. */
    private long[][] linkEnds;
    /** Link seeds: the node types (indices) of the link type's sources and destinations. */
    private int linkSrcType;
    private int linkDstType;

    /** ABLP: the anchors' positive (and negative, or null) label edges, by anchor index; else null. */
    private SupervisionEdges positives;
    private SupervisionEdges negatives;
    /** ABLP: the label nodes' type (index) and its ids by index, or null when they equal indices. */
    private int labelType;
    private long[] labelIds;

    TypedBatchStartFunction(TypedLayout layout, long[] nodeIds, boolean disjoint) {
        this.layout = layout;
        this.nodeIds = nodeIds;
        this.disjoint = disjoint;
    }

    /** Temporal sampling (disjoint): each seed at its time in {@code seedTimes} or its batch's own. */
    TypedBatchStartFunction temporal(boolean temporal, SeedTimes seedTimes) {
        this.temporal = temporal;
        this.seedTimes = seedTimes;
        return this;
    }

    /**
     * Link prediction on a typed graph ({@code --link-seeds}, {@code --link-type}): a batch's seeds are positions of
     * seed edges, {@code ends} their sources' and destinations' ids, of node types {@code srcType} and {@code dstType}.
     */
    TypedBatchStartFunction links(long[][] ends, int srcType, int dstType) {
        this.linkEnds = ends;
        this.linkSrcType = srcType;
        this.linkDstType = dstType;
        return this;
    }

    /**
     * ABLP on a typed graph ({@code --ablp-positive-type}, GiGL's {@code DistABLPLoader}): a batch's seeds are anchors
     * (of the seed type), sampled around together with their label nodes, of node type {@code labelType} with ids
     * {@code labelIds} (null: ids equal indices); {@code negatives} may be null.
     */
    TypedBatchStartFunction anchors(SupervisionEdges positives, SupervisionEdges negatives, int labelType,
            long[] labelIds) {
        this.positives = positives;
        this.negatives = negatives;
        this.labelType = labelType;
        this.labelIds = labelIds;
        return this;
    }

    @Override
    public void processElement(SeedBatch batch, Context ctx, Collector<TypedPartialBatch> out) {
        if (linkEnds != null) {
            out.collect(startLinks(batch, ctx));
            return;
        }
        if (positives != null) {
            out.collect(startAnchors(batch, ctx));
            return;
        }
        long[] seeds = new long[batch.size()];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = batch.seedId(i, nodeIds);
        }
        HeteroBatchAssembly assembly = new HeteroBatchAssembly(layout.nodeTypes.size(), layout.relations(),
                layout.seedType, seeds, disjoint);
        TypedPartialBatch start = TypedPartialBatch.of(batch.key(), batch.epoch, batch.batchId, batch.numBatches,
                batch.inputIds, assembly);
        start.seedTimes = temporal ? BatchStartFunction.seedTimes(batch, seedTimes) : null;
        layout.sendRequests(start, 1, assembly, getRuntimeContext().getTaskInfo(),
                (t, group) -> ctx.output(TypedLayout.requests(1, t), group));
        out.collect(start);
    }

    /**
     * An ABLP batch as the memory store's {@code HeteroKHopSamplingFunction} makes one: the anchors and their label
     * nodes ({@link AnchorLabels}, one list when both are of one node type) are the seeds of one de-duplicated sample;
     * the batch stays the anchors, and carries each anchor's label node ids for GiGL's label metadata.
     */
    private TypedPartialBatch startAnchors(SeedBatch batch, Context ctx) {
        AnchorLabels labels = AnchorLabels.of(batch.seeds, positives, negatives);
        String anchorType = positives.type().src();
        String labelTypeName = positives.type().dst();
        // One node type: anchors, then label nodes.
        long[] anchors = BatchStartFunction.idsOf(labels.seeds.get(anchorType), nodeIds);
        HeteroBatchAssembly assembly = anchorType.equals(labelTypeName)
                ? new HeteroBatchAssembly(layout.nodeTypes.size(), layout.relations(), layout.seedType, anchors, false)
                : new HeteroBatchAssembly(layout.nodeTypes.size(), layout.relations(),
                        new int[] {layout.seedType, labelType},
                        new long[][] {anchors, BatchStartFunction.idsOf(labels.seeds.get(labelTypeName), labelIds)},
                        false);
        TypedPartialBatch start = TypedPartialBatch.of(batch.key(), batch.epoch, batch.batchId, batch.numBatches,
                batch.inputIds, assembly);
        start.seeds = BatchStartFunction.idsOf(batch.seeds, nodeIds);
        start.positiveLabels = BatchStartFunction.idsOf(labels.positive, labelIds);
        start.positiveWidth = labels.positiveWidth;
        if (labels.negative != null) {
            start.negativeLabels = BatchStartFunction.idsOf(labels.negative, labelIds);
            start.negativeWidth = labels.negativeWidth;
        }
        layout.sendRequests(start, 1, assembly, getRuntimeContext().getTaskInfo(),
                (t, group) -> ctx.output(TypedLayout.requests(1, t), group));
        return start;
    }

    private TypedPartialBatch startLinks(SeedBatch batch, Context ctx) {
        return startLinks(batch, layout, linkEnds, linkSrcType, linkDstType, null, null, 0, disjoint, temporal,
                seedTimes, getRuntimeContext().getTaskInfo(),
                (t, group) -> ctx.output(TypedLayout.requests(1, t), group));
    }

    /**
     * A typed link batch as the memory store's {@code HeteroKHopSamplingFunction} lays it out: the P sources and the
     * binary negatives' sources, then the P destinations and the negatives' destinations (triplet: P x k row-major;
     * disjoint, negative-major), are its seeds, one list when both ends are of one node type. De-duplicated per node
     * type, or disjoint, each end its own tree (the sources' trees, then the destinations'), tree {@code j} at its
     * positive's time. Its labels are each end's local index in its node type's list (the trees' roots when disjoint),
     * triplet negatives row-major.
     */
    static TypedPartialBatch startLinks(SeedBatch batch, TypedLayout layout, long[][] linkEnds, int srcType,
            int dstType, long[] negativeSrc, long[] negativeDst, int tripletAmount, boolean disjoint, boolean temporal,
            SeedTimes seedTimes, org.apache.flink.api.common.TaskInfo task,
            java.util.function.BiConsumer<Integer, RequestGroup> requests) {
        int p = batch.size();
        boolean triplet = tripletAmount > 0;
        int nSrc = negativeSrc == null ? 0 : negativeSrc.length;
        int nDst = negativeDst == null ? 0 : negativeDst.length;
        long[] src = new long[p + nSrc];
        long[] dst = new long[p + nDst];
        for (int i = 0; i < p; i++) {
            src[i] = linkEnds[0][batch.seeds[i]];
            dst[i] = linkEnds[1][batch.seeds[i]];
        }
        if (nSrc > 0) {
            System.arraycopy(negativeSrc, 0, src, p, nSrc);
        }
        long[] seedDst = dst;
        if (nDst > 0) {
            System.arraycopy(negativeDst, 0, dst, p, nDst);
            if (triplet && disjoint) { // PyG: negative-major, so that tree mod P is the positive's index
                seedDst = dst.clone();
                for (int j = 0; j < nDst; j++) {
                    seedDst[p + LinkBatch.negativeMajor(j, p, tripletAmount)] = dst[p + j];
                }
            }
        }
        HeteroBatchAssembly assembly = new HeteroBatchAssembly(layout.nodeTypes.size(), layout.relations(),
                new int[] {srcType, dstType}, new long[][] {src, seedDst}, disjoint);
        int[] labels = new int[src.length + dst.length];
        if (disjoint) {
            int dstOffset = srcType == dstType ? src.length : 0; // tree j is node j of its type's list
            for (int i = 0; i < src.length; i++) {
                labels[i] = i;
            }
            for (int j = 0; j < dst.length; j++) {
                int at = triplet && j >= p ? p + LinkBatch.negativeMajor(j - p, p, tripletAmount) : j;
                labels[src.length + j] = dstOffset + at;
            }
        } else {
            System.arraycopy(assembly.localIndices(srcType, src), 0, labels, 0, src.length);
            System.arraycopy(assembly.localIndices(dstType, dst), 0, labels, src.length, dst.length);
        }
        TypedPartialBatch start = TypedPartialBatch.of(batch.key(), batch.epoch, batch.batchId, batch.numBatches,
                batch.inputIds, assembly);
        start.linkLabelIndex = labels;
        start.tripletAmount = tripletAmount;
        if (temporal) {
            long[] edgeTimes = BatchStartFunction.seedTimes(batch, seedTimes); // by seed edge
            start.seedTimes = new long[src.length + dst.length];
            for (int j = 0; j < start.seedTimes.length; j++) {
                // Negatives repeat their positives' times, as PyG's.
                start.seedTimes[j] = edgeTimes[(j < src.length ? j : j - src.length) % p];
            }
        }
        layout.sendRequests(start, 1, assembly, task, requests::accept);
        return start;
    }
}
