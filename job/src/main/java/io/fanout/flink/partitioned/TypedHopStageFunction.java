package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.HeteroBatchAssembly;
import java.util.List;
import org.apache.flink.util.Collector;

/**
 * Hop {@code h} of the typed batches, keyed by batch: input 1 is a batch after hop {@code h-1}, input 2 the answers
 * of every edge type's lookup at hop {@code h}. Both wait until every frontier node of every walked edge type
 * answered ({@link GatherStageFunction}); then the edge types are applied in name order
 * ({@link HeteroBatchAssembly}), the batch goes on and the next hop's requests go out (after the last hop, with node
 * files, the node-data requests per node type).
 */
public class TypedHopStageFunction extends GatherStageFunction<TypedPartialBatch, TypedAnswerGroup> {
    private static final long serialVersionUID = 1L;

    private final TypedLayout layout;
    private final int hop;
    /** Per node type: whether its node file's rows are gathered after the last hop. */
    private final boolean[] nodeData;

    TypedHopStageFunction(TypedLayout layout, int hop, boolean[] nodeData) {
        super("batch", TypedPartialBatch.class, "answer-groups", TypedAnswerGroup.class);
        this.layout = layout;
        this.hop = hop;
        this.nodeData = nodeData.clone();
    }

    @Override
    protected int expected(TypedPartialBatch partial) {
        int expected = 0;
        for (int t = 0; t < layout.edgeTypes.size(); t++) {
            if (layout.walks(t, hop)) {
                // The key type's frontier: its nodes first found at the previous hop (no assembly rebuilt here).
                int[] counts = partial.numSampledNodes[layout.keyType[t]];
                expected += counts[counts.length - 1];
            }
        }
        return expected;
    }

    @Override
    protected int counted(TypedAnswerGroup answer) {
        return answer.size();
    }

    @Override
    protected void complete(TypedPartialBatch partial, List<TypedAnswerGroup> received, Context ctx,
            Collector<TypedPartialBatch> out) {
        HeteroBatchAssembly assembly = layout.assembly(partial);
        int types = layout.edgeTypes.size();
        // The answers are applied where they arrived, grouped per edge type: no array per frontier node.
        int[] groups = new int[types];
        for (TypedAnswerGroup a : received) {
            groups[a.edgeType]++;
        }
        int[][][] positions = new int[types][][];
        int[][][] ends = new int[types][][];
        long[][][] neighbors = new long[types][][];
        for (int t = 0; t < types; t++) {
            if (layout.walks(t, hop) && assembly.frontierSize(layout.keyType[t]) > 0) {
                positions[t] = new int[groups[t]][];
                ends[t] = new int[groups[t]][];
                neighbors[t] = new long[groups[t]][];
            }
            groups[t] = 0;
        }
        for (TypedAnswerGroup a : received) {
            int t = a.edgeType;
            int g = groups[t]++;
            positions[t][g] = a.answers.positions;
            ends[t][g] = a.answers.ends;
            neighbors[t][g] = a.answers.neighbors;
        }
        assembly.addHop(positions, ends, neighbors);
        TypedPartialBatch next = partial.next(assembly);
        if (hop < layout.hops) {
            layout.sendRequests(next, hop + 1, assembly, getRuntimeContext().getTaskInfo(),
                    (t, group) -> ctx.output(TypedLayout.requests(hop + 1, t), group));
        } else {
            TypedLayout.sendNodeDataRequests(next.ids, nodeData, next.batchKey, getRuntimeContext().getTaskInfo(),
                    ctx::output);
        }
        out.collect(next);
    }
}
