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

    /** {@code --disjoint}: every seed grows its own tree. */
    private final boolean disjoint;

    public BatchStartFunction(long[] nodeIds, boolean disjoint) {
        this.nodeIds = nodeIds;
        this.disjoint = disjoint;
    }

    @Override
    public void processElement(SeedBatch batch, Context ctx, Collector<PartialBatch> out) {
        OutputTag<RequestGroup> tag = HopStageFunction.requests(1);
        long[] seeds = seedIds(batch, nodeIds);
        out.collect(start(batch, disjoint ? BatchAssembly.disjoint(seeds) : new BatchAssembly(seeds), 0,
                getRuntimeContext().getTaskInfo(), r -> ctx.output(tag, r)));
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
        return start(batch, new BatchAssembly(seedIds(batch, nodeIds)), version, task, requests);
    }

    /** The batch's hop-0 state from {@code assembly} (its seeds), its hop-1 requests to {@code requests}. */
    private static PartialBatch start(SeedBatch batch, BatchAssembly assembly, long version,
            org.apache.flink.api.common.TaskInfo task, java.util.function.Consumer<RequestGroup> requests) {
        PartialBatch start = PartialBatch.of(batch.key(), batch.epoch, batch.batchId, batch.numBatches, batch.inputIds,
                assembly);
        start.graphVersion = version;
        RequestRouting.groups(start, 1, assembly.frontier(), assembly.frontierTrees(), task, requests);
        return start;
    }
}
