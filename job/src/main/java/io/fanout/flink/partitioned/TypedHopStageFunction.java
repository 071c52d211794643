package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.HeteroBatchAssembly;
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

/**
 * Hop {@code h} of the typed batches, keyed by batch: input 1 is a batch after hop {@code h-1}, input 2 the answers
 * of every edge type's lookup at hop {@code h}. Both wait in keyed state until every frontier node of every walked
 * edge type answered; then the edge types are applied in name order ({@link HeteroBatchAssembly}), the batch goes
 * on and the next hop's requests go out (after the last hop, with node files, the node-data requests per node type).
 */
public class TypedHopStageFunction extends KeyedCoProcessFunction<Long, TypedPartialBatch, TypedAnswerGroup,
        TypedPartialBatch> {
    private static final long serialVersionUID = 1L;

    private final TypedLayout layout;
    private final int hop;
    /** Per node type: whether its node file's rows are gathered after the last hop. */
    private final boolean[] nodeData;

    private transient ValueState<TypedPartialBatch> batch;
    private transient ListState<TypedAnswerGroup> answers;
    private transient AnswerTally tally;

    TypedHopStageFunction(TypedLayout layout, int hop, boolean[] nodeData) {
        this.layout = layout;
        this.hop = hop;
        this.nodeData = nodeData.clone();
    }

    @Override
    public void open(OpenContext openContext) {
        batch = getRuntimeContext().getState(new ValueStateDescriptor<>("batch",
                TypeInformation.of(TypedPartialBatch.class)));
        answers = getRuntimeContext().getListState(new ListStateDescriptor<>("answer-groups",
                TypeInformation.of(TypedAnswerGroup.class)));
        tally = new AnswerTally(getRuntimeContext());
    }

    @Override
    public void processElement1(TypedPartialBatch partial, Context ctx, Collector<TypedPartialBatch> out)
            throws Exception {
        batch.update(partial);
        int expected = 0;
        for (int t = 0; t < layout.edgeTypes.size(); t++) {
            if (layout.walks(t, hop)) {
                // The key type's frontier: its nodes first found at the previous hop (no assembly rebuilt here).
                int[] counts = partial.numSampledNodes[layout.keyType[t]];
                expected += counts[counts.length - 1];
            }
        }
        if (tally.expect(expected)) {
            complete(ctx, out, null);
        }
    }

    @Override
    public void processElement2(TypedAnswerGroup answer, Context ctx, Collector<TypedPartialBatch> out)
            throws Exception {
        if (tally.answer(answer.size())) {
            complete(ctx, out, answer);
        } else {
            answers.add(answer);
        }
    }

    private void complete(Context ctx, Collector<TypedPartialBatch> out, TypedAnswerGroup lastGroup)
            throws Exception {
        TypedPartialBatch partial = batch.value();
        HeteroBatchAssembly assembly = layout.assembly(partial);
        int types = layout.edgeTypes.size();
        long[][][] inOrder = new long[types][][];
        for (int t = 0; t < types; t++) {
            int frontier = assembly.frontierSize(layout.keyType[t]);
            if (layout.walks(t, hop) && frontier > 0) {
                inOrder[t] = new long[frontier][];
            }
        }
        List<TypedAnswerGroup> received = new ArrayList<>();
        Iterable<TypedAnswerGroup> stored = answers.get();
        if (stored != null) {
            stored.forEach(received::add);
        }
        if (lastGroup != null) {
            received.add(lastGroup);
        }
        for (TypedAnswerGroup a : received) {
            a.answers.scatter(inOrder[a.edgeType]);
        }
        assembly.addHop(inOrder);
        TypedPartialBatch next = partial.next(assembly);
        batch.clear();
        answers.clear();
        tally.clear();
        if (hop < layout.hops) {
            layout.sendRequests(next, hop + 1, assembly, getRuntimeContext().getTaskInfo(),
                    (t, group) -> ctx.output(TypedLayout.requests(hop + 1, t), group));
        } else {
            for (int type = 0; type < nodeData.length; type++) {
                if (nodeData[type]) {
                    long[] ids = next.ids[type];
                    for (int i = 0; i < ids.length; i++) {
                        ctx.output(TypedLayout.nodeDataRequests(type), new NodeDataRequest(ids[i], next.batchKey, i));
                    }
                }
            }
        }
        out.collect(next);
    }
}
