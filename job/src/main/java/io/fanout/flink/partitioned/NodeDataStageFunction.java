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
 * The node-data stage, keyed by batch: input 1 is a batch after its last hop, input 2 the rows of its nodes
 * ({@link KeyedLookups#nodeData}); once every node answered, the rows are laid out in {@code ids} order as the
 * batch's {@code nfeats} body and {@code nlabels}, the in-memory store's gather.
 */
public class NodeDataStageFunction extends KeyedCoProcessFunction<Long, PartialBatch, NodeDataAnswer, PartialBatch> {
    private static final long serialVersionUID = 1L;

    private transient ValueState<PartialBatch> batch;
    private transient ListState<NodeDataAnswer> answers;
    /** Answers counted against the waiting batch's node count. */
    private transient AnswerTally tally;

    @Override
    public void open(OpenContext openContext) {
        batch = getRuntimeContext().getState(new ValueStateDescriptor<>("batch", TypeInformation.of(PartialBatch.class)));
        answers = getRuntimeContext().getListState(new ListStateDescriptor<>("node-answers",
                TypeInformation.of(NodeDataAnswer.class)));
        tally = new AnswerTally(getRuntimeContext());
    }

    @Override
    public void processElement1(PartialBatch partial, Context ctx, Collector<PartialBatch> out) throws Exception {
        batch.update(partial);
        if (tally.expect(partial.ids.length)) {
            complete(out);
        }
    }

    @Override
    public void processElement2(NodeDataAnswer answer, Context ctx, Collector<PartialBatch> out) throws Exception {
        answers.add(answer);
        if (tally.answer()) {
            complete(out);
        }
    }

    /** Every node of the stored batch answered: its rows and labels go in {@code ids} order. */
    private void complete(Collector<PartialBatch> out) throws Exception {
        PartialBatch partial = batch.value();
        int n = partial.ids.length;
        long[] labels = new long[n];
        byte[] rows = null;
        int rowBytes = -1;
        for (NodeDataAnswer a : answers.get()) {
            if (rows == null) {
                rowBytes = a.row.length;
                rows = new byte[Math.multiplyExact(n, rowBytes)];
            }
            System.arraycopy(a.row, 0, rows, a.position * rowBytes, rowBytes);
            labels[a.position] = a.label;
        }
        partial.nfeats = rows;
        partial.nlabels = labels;
        batch.clear();
        answers.clear();
        tally.clear();
        out.collect(partial);
    }
}
