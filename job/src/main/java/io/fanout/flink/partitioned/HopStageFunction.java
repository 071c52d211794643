package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.BatchAssembly;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
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
 * of its frontier nodes at hop {@code h}. Both wait in keyed state until every frontier node answered; then
 * the answers are applied in frontier order ({@link BatchAssembly}), the batch goes on to hop {@code h+1} and
 * the new frontier's requests go out on {@link #requests} (after the last hop, with a node file, the requests
 * for every node's features and label on {@link #NODE_DATA_REQUESTS}).
 */
public class HopStageFunction extends KeyedCoProcessFunction<Long, PartialBatch, HopAnswer, PartialBatch> {
    private static final long serialVersionUID = 1L;

    /** Side output of the next hop's requests. */
    public static OutputTag<HopRequest> requests(int hop) {
        return new OutputTag<>("hop-" + hop + "-requests", TypeInformation.of(HopRequest.class));
    }

    /** Side output of the last hop: one request per node of the batch for its features and label. */
    public static final OutputTag<NodeDataRequest> NODE_DATA_REQUESTS = new OutputTag<>("node-data-requests",
            TypeInformation.of(NodeDataRequest.class));

    private final int hop;
    private final boolean last;
    private final boolean nodeData;

    private transient ValueState<PartialBatch> batch;
    private transient ListState<HopAnswer> answers;
    private transient ValueState<Integer> answered;
    /** The waiting batch's frontier size: an answer is counted against it without reading the whole batch. */
    private transient ValueState<Integer> expected;

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
        answers = getRuntimeContext().getListState(new ListStateDescriptor<>("answers", TypeInformation.of(HopAnswer.class)));
        answered = getRuntimeContext().getState(new ValueStateDescriptor<>("answered", Integer.class));
        expected = getRuntimeContext().getState(new ValueStateDescriptor<>("expected", Integer.class));
    }

    @Override
    public void processElement1(PartialBatch partial, Context ctx, Collector<PartialBatch> out) throws Exception {
        batch.update(partial);
        expected.update(partial.numSampledNodes[partial.numSampledNodes.length - 1]);
        completeIfAnswered(ctx, out);
    }

    @Override
    public void processElement2(HopAnswer answer, Context ctx, Collector<PartialBatch> out) throws Exception {
        answers.add(answer);
        Integer count = answered.value();
        int now = count == null ? 1 : count + 1;
        answered.update(now);
        // Reading the batch (its whole partial subgraph, from RocksDB) on every answer made a hop quadratic in
        // the frontier: only the last answer, or the batch itself, completes the hop.
        Integer frontier = expected.value();
        if (frontier != null && now >= frontier) {
            completeIfAnswered(ctx, out);
        }
    }

    private void completeIfAnswered(Context ctx, Collector<PartialBatch> out) throws Exception {
        PartialBatch partial = batch.value();
        if (partial == null) {
            return; // answers came first: wait for the batch
        }
        int frontier = partial.numSampledNodes[partial.numSampledNodes.length - 1];
        Integer count = answered.value();
        if ((count == null ? 0 : count) < frontier) {
            return;
        }
        long[][] inOrder = new long[frontier][];
        List<HopAnswer> received = new ArrayList<>();
        Iterable<HopAnswer> stored = answers.get();
        if (stored != null) {
            stored.forEach(received::add);
        }
        for (HopAnswer a : received) {
            inOrder[a.position] = a.neighbors;
        }
        BatchAssembly assembly = partial.assembly();
        assembly.addHop(inOrder);
        PartialBatch next = partial.next(assembly);
        batch.clear();
        answers.clear();
        answered.clear();
        expected.clear();
        if (!last) {
            OutputTag<HopRequest> tag = requests(hop + 1);
            forEachRequest(next, hop + 1, assembly.frontier(), r -> ctx.output(tag, r));
        } else if (nodeData) {
            for (int i = 0; i < next.ids.length; i++) {
                ctx.output(NODE_DATA_REQUESTS, new NodeDataRequest(next.ids[i], next.batchKey, i));
            }
        }
        out.collect(next);
    }

    /** The requests of {@code frontier} (the batch's nodes to expand) at {@code hop}. */
    static void forEachRequest(PartialBatch batch, int hop, long[] frontier, Consumer<HopRequest> out) {
        for (int i = 0; i < frontier.length; i++) {
            HopRequest request = new HopRequest(frontier[i], batch.batchKey, batch.epoch, batch.batchId, hop, i);
            request.version = batch.graphVersion;
            out.accept(request);
        }
    }
}
