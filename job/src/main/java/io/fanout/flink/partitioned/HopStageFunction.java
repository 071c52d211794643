package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.BatchAssembly;
import io.fanout.sampling.partitioned.SampledEdgeData;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Hop {@code h} of the batches, keyed by batch: input 1 is a batch after hop {@code h-1}, input 2 the answers
 * of its frontier nodes at hop {@code h}, grouped per lookup subtask ({@link RequestRouting}). Both wait in keyed
 * state until every frontier node answered ({@link GatherStageFunction}); then the answers are applied in frontier
 * order ({@link BatchAssembly}), the batch goes on to hop {@code h+1} and the new frontier's requests go out on
 * {@link #requests} (after the last hop, with a node file, the requests for every node's features and label on
 * {@link #NODE_DATA_REQUESTS}).
 */
public class HopStageFunction extends GatherStageFunction<PartialBatch, AnswerGroup> {
    private static final long serialVersionUID = 1L;

    /** Side output of the next hop's requests. */
    public static OutputTag<RequestGroup> requests(int hop) {
        return SideOutputs.tag("hop-" + hop + "-requests", RequestGroup.class);
    }

    /** Side output of the last hop: one request per node of the batch for its features and label. */
    public static final OutputTag<NodeDataRequest> NODE_DATA_REQUESTS = new OutputTag<>("node-data-requests",
            TypeInformation.of(NodeDataRequest.class));

    private final int hop;
    private final boolean last;
    private final boolean nodeData;
    private final boolean induced;
    /** {@code --with-edge}: batches carry their edges' data ({@link SampledEdgeData}), with weights, times or not. */
    private boolean withEdges;
    private boolean edgeWeights;
    private boolean edgeTimes;

    /**
     * @param hop the hop this stage applies (1 = the hop from the seeds)
     * @param last whether it is the last hop (no requests after it)
     * @param nodeData whether the last hop asks for its nodes' features and labels ({@link #NODE_DATA_REQUESTS})
     * @param induced whether the last hop asks for its nodes' neighbours among them instead
     *     ({@link InduceStageFunction#REQUESTS}, which then asks for the node data)
     */
    public HopStageFunction(int hop, boolean last, boolean nodeData, boolean induced) {
        super("batch", PartialBatch.class, "answer-groups", AnswerGroup.class);
        this.hop = hop;
        this.last = last;
        this.nodeData = nodeData;
        this.induced = induced;
    }

    /**
     * {@code --with-edge}: each hop's answers carry their edges' input rows (and, with {@code weights}, {@code times},
     * their weights, the graph having a weight column, and times, temporal), appended to the batch's in edge order.
     */
    public HopStageFunction withEdges(boolean withEdges, boolean weights, boolean times) {
        this.withEdges = withEdges;
        this.edgeWeights = weights;
        this.edgeTimes = times;
        return this;
    }

    @Override
    protected int expected(PartialBatch partial) {
        return partial.numSampledNodes[partial.numSampledNodes.length - 1];
    }

    @Override
    protected int counted(AnswerGroup answer) {
        return answer.size();
    }

    /** Every answer of the batch is in: its hop is applied and it goes on. */
    @Override
    protected void complete(PartialBatch partial, List<AnswerGroup> received, Context ctx,
            Collector<PartialBatch> out) {
        AnswerGroup.Received answers = AnswerGroup.Received.of(received);
        BatchAssembly assembly = partial.assembly(answers.drawn());
        assembly.addHop(answers.positions(), answers.ends(), answers.neighbors());
        PartialBatch next = partial.next(assembly);
        if (withEdges) { // the hop's edges' data, in the order the assembly added them
            SampledEdgeData hopData = AnswerGroup.Received.edgeData(received, answers, expected(partial), edgeWeights,
                    edgeTimes);
            SampledEdgeData before = partial.edgeData();
            next.edgeData(before == null ? hopData : before.append(hopData));
        }
        if (!last) {
            OutputTag<RequestGroup> tag = requests(hop + 1);
            RequestRouting.groups(next, hop + 1, assembly.frontier(), assembly.frontierTrees(),
                    getRuntimeContext().getTaskInfo(), r -> ctx.output(tag, r));
        } else if (induced) {
            InduceStageFunction.send(next, getRuntimeContext().getTaskInfo(),
                    r -> ctx.output(InduceStageFunction.REQUESTS, r));
        } else if (nodeData) {
            NodeDataRequest.sendAll(next.ids, next.batchKey, getRuntimeContext().getTaskInfo(),
                    r -> ctx.output(NODE_DATA_REQUESTS, r));
        }
        out.collect(next);
    }
}
