package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.InducedEdges;
import java.util.List;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The induced-subgraph stage ({@code --subgraph-type induced}), keyed by batch: input 1 is a batch after its last
 * hop, input 2 each of its nodes' neighbours among the batch's nodes ({@link NeighborLookupOperator} over its own
 * adjacency copy, whole lists, kept by {@link InducedEdges#keepMembers}); once every node answered
 * ({@link GatherStageFunction}), the batch's edges become the induced ones ({@link InducedEdges#of}) and carry no
 * per-hop counts, as PyG's. With a node file, the node-data requests go out from here.
 */
public class InduceStageFunction extends GatherStageFunction<PartialBatch, AnswerGroup> {
    private static final long serialVersionUID = 1L;

    /** Side output of the last hop: every node of the batch asked for its neighbours among the batch's nodes. */
    public static final OutputTag<RequestGroup> REQUESTS = SideOutputs.tag("induce-requests", RequestGroup.class);

    private final boolean nodeData;
    /** {@code --with-edge}: the induced edges' data replace the sampled ones' (with weights on a weighted graph). */
    private boolean withEdges;
    private boolean edgeWeights;

    /** @param nodeData whether the batch then asks for its nodes' features and labels */
    public InduceStageFunction(boolean nodeData) {
        super("batch", PartialBatch.class, "induce-answer-groups", AnswerGroup.class);
        this.nodeData = nodeData;
    }

    /** {@code --with-edge}: the answers carry the induced edges' input rows (and {@code weights}, their weights). */
    public InduceStageFunction withEdges(boolean withEdges, boolean weights) {
        this.withEdges = withEdges;
        this.edgeWeights = weights;
        return this;
    }

    /**
     * The requests of {@code batch} (after its last hop): its ids split by the lookup subtask owning each, each group
     * with the batch's ids sorted, so the lookup keeps only neighbours in the batch.
     */
    static void send(PartialBatch batch, org.apache.flink.api.common.TaskInfo task,
            java.util.function.Consumer<RequestGroup> out) {
        long[] members = batch.ids.clone();
        java.util.Arrays.sort(members);
        RequestRouting.split(batch.ids, task, (nodes, positions) -> {
            RequestGroup group = new RequestGroup(batch.batchKey, batch.epoch, batch.batchId, 0, batch.graphVersion,
                    nodes, positions);
            group.members = members;
            out.accept(group);
        });
    }

    @Override
    protected int expected(PartialBatch partial) {
        return partial.ids.length;
    }

    @Override
    protected int counted(AnswerGroup answer) {
        return answer.size();
    }

    /** Every node answered: the batch's edges are its induced ones. */
    @Override
    protected void complete(PartialBatch partial, List<AnswerGroup> received, Context ctx,
            Collector<PartialBatch> out) {
        AnswerGroup.Received answers = AnswerGroup.Received.of(received);
        InducedEdges.Edges edges = InducedEdges.of(partial.ids, answers.positions(), answers.ends(), answers.neighbors());
        partial.rows = edges.rows();
        partial.cols = edges.cols();
        partial.numSampledEdges = null; // PyG: None once the edges are not grouped by hop
        if (withEdges) { // in the order InducedEdges.of made the edges
            partial.edgeData(AnswerGroup.Received.edgeData(received, answers, partial.ids.length, edgeWeights, false));
        }
        if (nodeData) {
            NodeDataRequest.sendAll(partial.ids, partial.batchKey, getRuntimeContext().getTaskInfo(),
                    r -> ctx.output(HopStageFunction.NODE_DATA_REQUESTS, r));
        }
        out.collect(partial);
    }
}
