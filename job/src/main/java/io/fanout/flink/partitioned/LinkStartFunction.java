package io.fanout.flink.partitioned;

import io.fanout.batch.SeedTimes;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Starts every link batch that drew negatives ({@link NegativeStageFunction}): its positives' and negatives' ends are
 * hop 0 ({@link BatchStartFunction#startLinks}), and their hop-1 requests go out on
 * {@link HopStageFunction#requests(int) requests(1)}.
 */
public class LinkStartFunction extends ProcessFunction<LinkDraw, PartialBatch> {
    private static final long serialVersionUID = 1L;

    /** The seed edges' ends' ids by position, {@code [sources, destinations]}. */
    private final long[][] linkEnds;
    private final boolean disjoint;
    private final boolean temporal;
    /** Temporal: the seed edges' times by position (null: each batch's own). */
    private final SeedTimes seedTimes;

    public LinkStartFunction(long[][] linkEnds, boolean disjoint, boolean temporal, SeedTimes seedTimes) {
        this.linkEnds = linkEnds;
        this.disjoint = disjoint;
        this.temporal = temporal;
        this.seedTimes = seedTimes;
    }

    @Override
    public void processElement(LinkDraw draw, Context ctx, Collector<PartialBatch> out) {
        out.collect(BatchStartFunction.startLinks(draw.batch, linkEnds, draw.negativeSrc, draw.negativeDst,
                draw.tripletAmount, disjoint, temporal, seedTimes, getRuntimeContext().getTaskInfo(),
                r -> ctx.output(HopStageFunction.requests(1), r)));
    }
}
