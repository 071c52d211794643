package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.sampling.ppr.PprBatchPush;
import java.util.function.Consumer;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Starts every seed batch of the partitioned PPR: one push per distinct seed, none able to move before its
 * seed's list is known, so fetch round 1 asks for the seeds' lists ({@link PprRoundFunction#requests(int)}).
 */
public class PprStartFunction extends ProcessFunction<SeedBatch, PprPartial> {
    private static final long serialVersionUID = 1L;

    /** The seed list's node ids by index (the client's id map), or null when ids equal indices. */
    private final long[] nodeIds;
    private final double alpha;
    private final double eps;
    /** The selection's options: each push is settled to its selection as it finishes. */
    private final int maxPprNodes;
    private final boolean residualTopUp;

    public PprStartFunction(long[] nodeIds, double alpha, double eps, int maxPprNodes, boolean residualTopUp) {
        this.nodeIds = nodeIds;
        this.alpha = alpha;
        this.eps = eps;
        this.maxPprNodes = maxPprNodes;
        this.residualTopUp = residualTopUp;
    }

    @Override
    public void processElement(SeedBatch batch, Context ctx, Collector<PprPartial> out) {
        out.collect(start(batch, 0, getRuntimeContext().getTaskInfo(),
                r -> ctx.output(PprRoundFunction.requests(1), r)));
    }

    /** {@code batch}'s pushes at graph version {@code version}; round 1's requests go to {@code requests}. */
    PprPartial start(SeedBatch batch, long version, TaskInfo task, Consumer<PprFetchRequest> requests) {
        long[] seeds = new long[batch.size()];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = batch.seedId(i, nodeIds);
        }
        PprBatchPush push = new PprBatchPush(seeds, alpha, eps, maxPprNodes, residualTopUp);
        long[] missing = PprPartial.advance(push, true);
        PprPartial start = new PprPartial();
        start.batchKey = batch.key();
        start.epoch = batch.epoch;
        start.batchId = batch.batchId;
        start.numBatches = batch.numBatches;
        start.seeds = seeds;
        start.inputIds = batch.inputIds;
        start.state = PprPartial.stateOf(push);
        start.pending = missing.length;
        start.graphVersion = version;
        PprFetchRequest.send(start.batchKey, version, missing, task, requests);
        return start;
    }
}
