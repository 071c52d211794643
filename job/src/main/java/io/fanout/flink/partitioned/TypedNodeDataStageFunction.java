package io.fanout.flink.partitioned;

import java.util.List;
import org.apache.flink.util.Collector;

/**
 * The typed node-data stage, keyed by batch: input 1 is a typed batch after its last hop, input 2 the node-file rows
 * of its nodes of every node type that has a labelled node file; once every such node answered
 * ({@link GatherStageFunction}), each type's rows are laid out in its {@code ids} order, the in-memory typed store's
 * gather.
 */
public class TypedNodeDataStageFunction extends GatherStageFunction<TypedPartialBatch, TypedNodeDataAnswer> {
    private static final long serialVersionUID = 1L;

    private final boolean[] nodeData;

    TypedNodeDataStageFunction(boolean[] nodeData) {
        super("batch", TypedPartialBatch.class, "node-answer-groups", TypedNodeDataAnswer.class);
        this.nodeData = nodeData.clone();
    }

    @Override
    protected int expected(TypedPartialBatch partial) {
        int expected = 0;
        for (int t = 0; t < nodeData.length; t++) {
            expected += nodeData[t] ? partial.ids[t].length : 0;
        }
        return expected;
    }

    @Override
    protected int counted(TypedNodeDataAnswer answer) {
        return answer.answer.size();
    }

    @Override
    protected void complete(TypedPartialBatch partial, List<TypedNodeDataAnswer> answers, Context ctx,
            Collector<TypedPartialBatch> out) {
        int types = nodeData.length;
        byte[][] rows = new byte[types][];
        long[][] labels = new long[types][];
        int[] rowBytes = new int[types];
        for (int t = 0; t < types; t++) {
            if (nodeData[t]) {
                labels[t] = new long[partial.ids[t].length];
                rowBytes[t] = -1;
            }
        }
        for (TypedNodeDataAnswer typed : answers) {
            NodeDataAnswer a = typed.answer;
            int t = typed.nodeType;
            if (rows[t] == null) {
                rowBytes[t] = a.rowBytes;
                rows[t] = new byte[Math.multiplyExact(partial.ids[t].length, rowBytes[t])];
            }
            a.placeInto(rows[t], labels[t]);
        }
        for (int t = 0; t < types; t++) {
            if (nodeData[t] && rows[t] == null) {
                rows[t] = new byte[0]; // no node of this type in the batch
            }
        }
        partial.nfeats = rows;
        partial.nlabels = labels;
        out.collect(partial);
    }
}
