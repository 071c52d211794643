package io.fanout.flink.partitioned;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The typed node-data stage, keyed by batch: input 1 is a typed batch after its last hop, input 2 the node-file rows
 * of its nodes of every node type that has a labelled node file; once every such node answered, each type's rows
 * are laid out in its {@code ids} order, the in-memory typed store's gather.
 */
public class TypedNodeDataStageFunction extends KeyedCoProcessFunction<Long, TypedPartialBatch, TypedNodeDataAnswer,
        TypedPartialBatch> {
    private static final long serialVersionUID = 1L;

    private final boolean[] nodeData;

    private transient ValueState<TypedPartialBatch> batch;
    private transient ListState<TypedNodeDataAnswer> answers;
    private transient AnswerTally tally;

    TypedNodeDataStageFunction(boolean[] nodeData) {
        this.nodeData = nodeData.clone();
    }

    @Override
    public void open(OpenContext openContext) {
        batch = getRuntimeContext().getState(new ValueStateDescriptor<>("batch",
                TypeInformation.of(TypedPartialBatch.class)));
        answers = getRuntimeContext().getListState(new ListStateDescriptor<>("node-answers",
                TypeInformation.of(TypedNodeDataAnswer.class)));
        tally = new AnswerTally(getRuntimeContext());
    }

    @Override
    public void processElement1(TypedPartialBatch partial, Context ctx, Collector<TypedPartialBatch> out)
            throws Exception {
        batch.update(partial);
        int expected = 0;
        for (int t = 0; t < nodeData.length; t++) {
            expected += nodeData[t] ? partial.ids[t].length : 0;
        }
        if (tally.expect(expected)) {
            complete(out);
        }
    }

    @Override
    public void processElement2(TypedNodeDataAnswer answer, Context ctx, Collector<TypedPartialBatch> out)
            throws Exception {
        answers.add(answer);
        if (tally.answer()) {
            complete(out);
        }
    }

    private void complete(Collector<TypedPartialBatch> out) throws Exception {
        TypedPartialBatch partial = batch.value();
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
        Iterable<TypedNodeDataAnswer> stored = answers.get();
        if (stored != null) {
            for (TypedNodeDataAnswer typed : stored) {
                NodeDataAnswer a = typed.answer;
                int t = typed.nodeType;
                if (rows[t] == null) {
                    rowBytes[t] = a.row.length;
                    rows[t] = new byte[Math.multiplyExact(partial.ids[t].length, rowBytes[t])];
                }
                System.arraycopy(a.row, 0, rows[t], a.position * rowBytes[t], rowBytes[t]);
                labels[t][a.position] = a.label;
            }
        }
        for (int t = 0; t < types; t++) {
            if (nodeData[t] && rows[t] == null) {
                rows[t] = new byte[0]; // no node of this type in the batch
            }
        }
        partial.nfeats = rows;
        partial.nlabels = labels;
        batch.clear();
        answers.clear();
        tally.clear();
        out.collect(partial);
    }
}
