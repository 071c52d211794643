package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.PprBatchPush;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * A batch after its last PPR round as its sampled subgraph: each seed's PPR neighbours ({@link PprBatchPush#select},
 * the memory store's selection) in a {@link PartialBatch} with {@code pprEdgeIndex}/{@code pprEdgeAttr}; with a node
 * file, one request per node for its features and label on {@link HopStageFunction#NODE_DATA_REQUESTS}.
 */
public class PprFinishFunction extends ProcessFunction<PprPartial, PartialBatch> {
    private static final long serialVersionUID = 1L;

    private final int maxPprNodes;
    private final boolean residualTopUp;
    private final boolean nodeData;

    public PprFinishFunction(int maxPprNodes, boolean residualTopUp, boolean nodeData) {
        this.maxPprNodes = maxPprNodes;
        this.residualTopUp = residualTopUp;
        this.nodeData = nodeData;
    }

    @Override
    public void processElement(PprPartial partial, Context ctx, Collector<PartialBatch> out) {
        PprBatchPush.Result result = PprBatchPush.fromBytes(partial.state).select(maxPprNodes, residualTopUp);
        PartialBatch batch = new PartialBatch();
        batch.batchKey = partial.batchKey;
        batch.epoch = partial.epoch;
        batch.batchId = partial.batchId;
        batch.numBatches = partial.numBatches;
        batch.graphVersion = partial.graphVersion;
        batch.seeds = partial.seeds;
        batch.inputIds = partial.inputIds;
        batch.ids = result.ids;
        batch.rows = new int[0];
        batch.cols = new int[0];
        batch.numSampledNodes = new int[0];
        batch.numSampledEdges = new int[0];
        batch.pprEdgeIndex = result.edgeIndex;
        batch.pprEdgeAttr = result.edgeAttr;
        if (nodeData) {
            NodeDataRequest.sendAll(batch.ids, batch.batchKey, getRuntimeContext().getTaskInfo(),
                    r -> ctx.output(HopStageFunction.NODE_DATA_REQUESTS, r));
        }
        out.collect(batch);
    }
}
