package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedTimes;
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

    @Override
    public void processElement(SeedBatch batch, Context ctx, Collector<TypedPartialBatch> out) {
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
}
