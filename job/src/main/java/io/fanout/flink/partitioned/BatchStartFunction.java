package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
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

    public BatchStartFunction(long[] nodeIds) {
        this.nodeIds = nodeIds;
    }

    @Override
    public void processElement(SeedBatch batch, Context ctx, Collector<PartialBatch> out) {
        OutputTag<RequestGroup> tag = HopStageFunction.requests(1);
        out.collect(start(batch, nodeIds, 0, getRuntimeContext().getTaskInfo(), r -> ctx.output(tag, r)));
    }

    /**
     * The batch's hop-0 state, sampled at graph version {@code version}; its hop-1 requests go to {@code requests},
     * grouped for the lookups of a job whose tasks run as {@code task} does ({@link RequestRouting}).
     */
    static PartialBatch start(SeedBatch batch, long[] nodeIds, long version, org.apache.flink.api.common.TaskInfo task,
            java.util.function.Consumer<RequestGroup> requests) {
        long[] seeds = new long[batch.size()];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = batch.seedId(i, nodeIds);
        }
        BatchAssembly assembly = new BatchAssembly(seeds);
        PartialBatch start = PartialBatch.of(batch.key(), batch.epoch, batch.batchId, batch.numBatches, batch.inputIds,
                assembly);
        start.graphVersion = version;
        RequestRouting.groups(start, 1, assembly.frontier(), task, requests);
        return start;
    }
}
