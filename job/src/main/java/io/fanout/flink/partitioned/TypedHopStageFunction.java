package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.HeteroBatchAssembly;
import io.fanout.sampling.partitioned.SampledEdgeData;
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

    /** {@code --with-edge}: [edge type] whether its edges carry weights (a weight column) and times (temporal). */
    private boolean[] edgeWeights;
    private boolean[] edgeTimes;

    TypedHopStageFunction(TypedLayout layout, int hop, boolean[] nodeData) {
        super("batch", TypedPartialBatch.class, "answer-groups", TypedAnswerGroup.class);
        this.layout = layout;
        this.hop = hop;
        this.nodeData = nodeData.clone();
    }

    /**
     * {@code --with-edge}: each edge type's answers carry their edges' input rows (and, per edge type, weights and
     * times), appended to the batch's per edge type in the assembly's edge order ({@link SampledEdgeData}).
     */
    TypedHopStageFunction withEdges(boolean[] weights, boolean[] times) {
        this.edgeWeights = weights.clone();
        this.edgeTimes = times.clone();
        return this;
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
        boolean withEdges = edgeWeights != null;
        long[][][] eids = withEdges ? new long[types][][] : null;
        float[][][] weights = withEdges ? new float[types][][] : null;
        long[][][] times = withEdges ? new long[types][][] : null;
        for (int t = 0; t < types; t++) {
            if (layout.walks(t, hop) && assembly.frontierSize(layout.keyType[t]) > 0) {
                positions[t] = new int[groups[t]][];
                ends[t] = new int[groups[t]][];
                neighbors[t] = new long[groups[t]][];
                if (withEdges) {
                    eids[t] = new long[groups[t]][];
                    weights[t] = new float[groups[t]][];
                    times[t] = new long[groups[t]][];
                }
            }
            groups[t] = 0;
        }
        for (TypedAnswerGroup a : received) {
            int t = a.edgeType;
            int g = groups[t]++;
            positions[t][g] = a.answers.positions;
            ends[t][g] = a.answers.ends;
            neighbors[t][g] = a.answers.neighbors;
            if (withEdges) {
                eids[t][g] = a.answers.eids;
                weights[t][g] = a.answers.weights;
                times[t][g] = a.answers.times;
            }
        }
        SampledEdgeData[] hopData = withEdges
                ? edgeData(assembly, positions, ends, neighbors, eids, weights, times) : null;
        assembly.addHop(positions, ends, neighbors);
        TypedPartialBatch next = partial.next(assembly);
        if (hopData != null) {
            next.appendEdgeData(hopData);
        }
        if (hop < layout.hops) {
            layout.sendRequests(next, hop + 1, assembly, getRuntimeContext().getTaskInfo(),
                    (t, group) -> ctx.output(TypedLayout.requests(hop + 1, t), group));
        } else {
            TypedLayout.sendNodeDataRequests(next.ids, nodeData, next.batchKey, getRuntimeContext().getTaskInfo(),
                    ctx::output);
        }
        out.collect(next);
    }

    /**
     * {@code --with-edge}: each edge type's edge data of this hop, from its answer groups' ({@code [t][g]}, as the
     * hop's neighbours), before {@code assembly} applies the hop.
     */
    private SampledEdgeData[] edgeData(HeteroBatchAssembly assembly, int[][][] positions, int[][][] ends,
            long[][][] neighbors, long[][][] eids, float[][][] weights, long[][][] times) {
        SampledEdgeData[] out = new SampledEdgeData[positions.length];
        for (int t = 0; t < out.length; t++) {
            out[t] = positions[t] == null || positions[t].length == 0
                    ? SampledEdgeData.empty(edgeWeights[t], edgeTimes[t])
                    : SampledEdgeData.ofHop(assembly.frontierSize(layout.keyType[t]), positions[t], ends[t],
                            neighbors[t], eids[t], weights[t], times[t]);
        }
        return out;
    }
}
