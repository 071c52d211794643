package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedTimes;
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

    @Override
    public void processElement(SeedBatch batch, Context ctx, Collector<PartialBatch> out) {
        OutputTag<RequestGroup> tag = HopStageFunction.requests(1);
        long[] seeds = seedIds(batch, nodeIds);
        long[] times = temporal ? seedTimes(batch, seedTimes) : null;
        out.collect(start(batch, disjoint ? BatchAssembly.disjoint(seeds) : new BatchAssembly(seeds), times, 0,
                getRuntimeContext().getTaskInfo(), r -> ctx.output(tag, r)));
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
