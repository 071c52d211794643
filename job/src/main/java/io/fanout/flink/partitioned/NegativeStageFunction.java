package io.fanout.flink.partitioned;

import io.fanout.sampling.link.NegativeCandidates;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;

/**
 * The negatives stage, keyed by batch: input 1 is a link batch with its candidates ({@link NegativeProbeFunction}),
 * input 2 each key's neighbours among the other ends; once every key answered, each negative takes the next candidates
 * until one is not an edge for it ({@link NegativeCandidates#pick}), as the memory store's draws do.
 */
public class NegativeStageFunction extends GatherStageFunction<LinkDraw, AnswerGroup> {
    private static final long serialVersionUID = 1L;

    public NegativeStageFunction() {
        super("negative-draw", LinkDraw.class, "negative-answer-groups", AnswerGroup.class);
    }

    @Override
    protected int expected(LinkDraw draw) {
        return draw.keys.length;
    }

    @Override
    protected int counted(AnswerGroup answer) {
        return answer.positions.length;
    }

    @Override
    protected void complete(LinkDraw draw, List<AnswerGroup> received, Context ctx, Collector<LinkDraw> out) {
        // Each key's neighbours among the candidates, sorted for the membership checks.
        long[][] neighbors = new long[draw.keys.length][];
        for (AnswerGroup group : received) {
            for (int i = 0, from = 0; i < group.positions.length; i++) {
                long[] list = Arrays.copyOfRange(group.neighbors, from, group.ends[i]);
                Arrays.sort(list);
                neighbors[group.positions[i]] = list;
                from = group.ends[i];
            }
        }
        long[] dst = draw.candidateDst;
        int[] at = draw.keyPositions;
        int[] picked;
        try {
            if (draw.tripletAmount == 0) {
                long[] other = draw.keyedBySource ? dst : draw.candidateSrc;
                boolean[] isEdge = new boolean[dst.length];
                for (int c = 0; c < isEdge.length; c++) {
                    isEdge[c] = Arrays.binarySearch(neighbors[at[c]], other[c]) >= 0;
                }
                picked = NegativeCandidates.pick(isEdge, draw.count);
            } else {
                // Slot j's pair: positive j / amount's source and the candidate destination.
                int amount = draw.tripletAmount;
                long[] sources = draw.sources;
                picked = NegativeCandidates.pick(draw.count, dst.length, draw.keyedBySource
                        ? (slot, c) -> Arrays.binarySearch(neighbors[at[slot / amount]], dst[c]) >= 0
                        : (slot, c) -> Arrays.binarySearch(neighbors[at[c]], sources[slot / amount]) >= 0);
            }
        } catch (NegativeCandidates.TooDense e) {
            // The same batch fails the same way after a restart.
            throw new SuppressRestartsException(new IllegalStateException("fanout.neg-sampling "
                    + (draw.tripletAmount == 0 ? "binary" : "triplet") + " with fanout.store partitioned: " + draw.batch
                    + ": " + e.getMessage() + ". The graph is too dense for the partitioned store's strict negatives"
                    + " (a batch checks 1.5 times its negatives + 64 candidates): use fanout.store memory", e));
        }
        draw.negativeSrc = draw.tripletAmount == 0 ? new long[picked.length] : null;
        draw.negativeDst = new long[picked.length];
        for (int i = 0; i < picked.length; i++) {
            if (draw.negativeSrc != null) {
                draw.negativeSrc[i] = draw.candidateSrc[picked[i]];
            }
            draw.negativeDst[i] = dst[picked[i]];
        }
        draw.candidateSrc = null;
        draw.candidateDst = null;
        draw.sources = null;
        draw.keys = null;
        draw.keyPositions = null;
        out.collect(draw);
    }
}
