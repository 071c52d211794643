package io.fanout.flink.partitioned;

import io.fanout.batch.SeedTimes;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Starts every typed link batch that drew negatives ({@link NegativeStageFunction}): its positives' and negatives'
 * ends are hop 0 ({@link TypedBatchStartFunction#startLinks}), and the hop-1 requests of every edge type walked from
 * them go out on {@link TypedLayout#requests(int, int)}.
 */
public class TypedLinkStartFunction extends ProcessFunction<LinkDraw, TypedPartialBatch> {
    private static final long serialVersionUID = 1L;

    private final TypedLayout layout;
    /** The seed edges' ends' ids by position, {@code [sources, destinations]}. */
    private final long[][] linkEnds;
    /** The node types (indices) of the link type's sources and destinations. */
    private final int srcType;
    private final int dstType;
    private final boolean disjoint;
    private final boolean temporal;
    /** Temporal: the seed edges' times by position (null: each batch's own). */
    private final SeedTimes seedTimes;

    TypedLinkStartFunction(TypedLayout layout, long[][] linkEnds, int srcType, int dstType, boolean disjoint,
            boolean temporal, SeedTimes seedTimes) {
        this.layout = layout;
        this.linkEnds = linkEnds;
        this.srcType = srcType;
        this.dstType = dstType;
        this.disjoint = disjoint;
        this.temporal = temporal;
        this.seedTimes = seedTimes;
    }

    @Override
    public void processElement(LinkDraw draw, Context ctx, Collector<TypedPartialBatch> out) {
        out.collect(TypedBatchStartFunction.startLinks(draw.batch, layout, linkEnds, srcType, dstType,
                draw.negativeSrc, draw.negativeDst, draw.tripletAmount, disjoint, temporal, seedTimes,
                getRuntimeContext().getTaskInfo(), (t, group) -> ctx.output(TypedLayout.requests(1, t), group)));
    }
}
