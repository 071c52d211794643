package io.fanout.flink.partitioned;

import java.util.List;
import org.apache.flink.util.Collector;

/**
 * The node-data stage, keyed by batch: input 1 is a batch after its last hop, input 2 the rows of its nodes
 * ({@link KeyedLookups#nodeData}); once every node answered ({@link GatherStageFunction}), the rows are laid out in
 * {@code ids} order as the batch's {@code nfeats} body and {@code nlabels}, the in-memory store's gather.
 */
public class NodeDataStageFunction extends GatherStageFunction<PartialBatch, NodeDataAnswer> {
    private static final long serialVersionUID = 1L;

    public NodeDataStageFunction() {
        super("batch", PartialBatch.class, "node-answer-groups", NodeDataAnswer.class);
    }

    @Override
    protected int expected(PartialBatch partial) {
        return partial.ids.length;
    }

    @Override
    protected int counted(NodeDataAnswer answer) {
        return answer.size();
    }

    /** Every node of the batch answered: its rows and labels go in {@code ids} order. */
    @Override
    protected void complete(PartialBatch partial, List<NodeDataAnswer> answers, Context ctx,
            Collector<PartialBatch> out) {
        int n = partial.ids.length;
        long[] labels = new long[n];
        byte[] rows = null;
        int rowBytes = -1;
        for (NodeDataAnswer a : answers) {
            if (rows == null) {
                rowBytes = a.rowBytes;
                rows = new byte[Math.multiplyExact(n, rowBytes)];
            }
            a.placeInto(rows, labels);
        }
        partial.nfeats = rows;
        partial.nlabels = labels;
        out.collect(partial);
    }
}
