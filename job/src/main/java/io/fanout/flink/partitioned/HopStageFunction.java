package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.BatchAssembly;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Hop {@code h} of the batches, keyed by batch: input 1 is a batch after hop {@code h-1}, input 2 the answers
 * of its frontier nodes at hop {@code h}, grouped per lookup subtask ({@link RequestRouting}). Both wait in keyed state until every frontier node answered; then
 * the answers are applied in frontier order ({@link BatchAssembly}), the batch goes on to hop {@code h+1} and
 * the new frontier's requests go out on {@link #requests} (after the last hop, with a node file, the requests
 * for every node's features and label on {@link #NODE_DATA_REQUESTS}).
 */
public class HopStageFunction extends KeyedCoProcessFunction<Long, PartialBatch, AnswerGroup, PartialBatch> {
    private static final long serialVersionUID = 1L;

    /** Side output of the next hop's requests. */
    public static OutputTag<RequestGroup> requests(int hop) {
        return new OutputTag<>("hop-" + hop + "-requests", TypeInformation.of(RequestGroup.class));
    }

    /** Side output of the last hop: one request per node of the batch for its features and label. */
    public static final OutputTag<NodeDataRequest> NODE_DATA_REQUESTS = new OutputTag<>("node-data-requests",
            TypeInformation.of(NodeDataRequest.class));

    private final int hop;
    private final boolean last;
    private final boolean nodeData;

    private transient ValueState<PartialBatch> batch;
    private transient ListState<AnswerGroup> answers;
    /** Answers counted against the waiting batch's frontier size. */
    private transient AnswerTally tally;

    /**
     * @param hop the hop this stage applies (1 = the hop from the seeds)
     * @param last whether it is the last hop (no requests after it)
     * @param nodeData whether the last hop asks for its nodes' features and labels ({@link #NODE_DATA_REQUESTS})
     */
    public HopStageFunction(int hop, boolean last, boolean nodeData) {
        this.hop = hop;
        this.last = last;
        this.nodeData = nodeData;
    }

    @Override
    public void open(OpenContext openContext) {
        batch = getRuntimeContext().getState(new ValueStateDescriptor<>("batch", TypeInformation.of(PartialBatch.class)));
        answers = getRuntimeContext().getListState(new ListStateDescriptor<>("answer-groups", TypeInformation.of(AnswerGroup.class)));
        tally = new AnswerTally(getRuntimeContext());
    }

    @Override
    public void processElement1(PartialBatch partial, Context ctx, Collector<PartialBatch> out) throws Exception {
        batch.update(partial);
        if (tally.expect(partial.numSampledNodes[partial.numSampledNodes.length - 1])) {
            complete(ctx, out, null);
        }
    }

    @Override
    public void processElement2(AnswerGroup answer, Context ctx, Collector<PartialBatch> out) throws Exception {
        if (tally.answer(answer.size())) {
            complete(ctx, out, answer); // the last answer group goes straight in, not through state
        } else {
            answers.add(answer);
        }
    }

    /** Every answer of the stored batch is in (in state, and {@code lastGroup} unless null): its hop is applied and it goes on. */
    private void complete(Context ctx, Collector<PartialBatch> out, AnswerGroup lastGroup) throws Exception {
        PartialBatch partial = batch.value();
        int frontier = partial.numSampledNodes[partial.numSampledNodes.length - 1];
        long[][] inOrder = new long[frontier][];
        List<AnswerGroup> received = new ArrayList<>();
        Iterable<AnswerGroup> stored = answers.get();
        if (stored != null) {
            stored.forEach(received::add);
        }
        if (lastGroup != null) {
            received.add(lastGroup);
        }
        for (AnswerGroup a : received) {
            a.scatter(inOrder);
        }
        BatchAssembly assembly = partial.assembly();
        assembly.addHop(inOrder);
        PartialBatch next = partial.next(assembly);
        batch.clear();
        answers.clear();
        tally.clear();
        if (!last) {
            OutputTag<RequestGroup> tag = requests(hop + 1);
            RequestRouting.groups(next, hop + 1, assembly.frontier(), getRuntimeContext().getTaskInfo(),
                    r -> ctx.output(tag, r));
        } else if (nodeData) {
            for (int i = 0; i < next.ids.length; i++) {
                ctx.output(NODE_DATA_REQUESTS, new NodeDataRequest(next.ids[i], next.batchKey, i));
            }
        }
        out.collect(next);
    }
}
