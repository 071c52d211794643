package io.fanout.flink.partitioned;

import io.fanout.sampling.link.NegativeCandidates;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;

/**
 * The negatives stage, keyed by batch: input 1 is a link batch with its candidate pairs ({@link NegativeProbeFunction}),
 * input 2 each candidate key's neighbours among the candidates' other ends; once every key answered, the batch's
 * negatives are the first candidates that are not edges ({@link NegativeCandidates#pick}), the memory store's.
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
        int n = draw.keyPositions.length;
        long[] other = draw.keyedBySource ? draw.candidateDst : draw.candidateSrc;
        boolean[] isEdge = new boolean[n];
        for (int c = 0; c < n; c++) {
            isEdge[c] = Arrays.binarySearch(neighbors[draw.keyPositions[c]], other[c]) >= 0;
        }
        int[] picked;
        try {
            picked = NegativeCandidates.pick(isEdge, draw.count);
        } catch (NegativeCandidates.TooDense e) {
            // The same batch fails the same way after a restart.
            throw new SuppressRestartsException(new IllegalStateException("fanout.neg-sampling binary with"
                    + " fanout.store partitioned: " + draw.batch + ": " + e.getMessage() + ". The graph is too dense"
                    + " for the partitioned store's strict negatives (a batch of P positives checks ceil(P x"
                    + " amount) x 1.5 + 64 candidate pairs): use fanout.store memory", e));
        }
        draw.negativeSrc = new long[picked.length];
        draw.negativeDst = new long[picked.length];
        for (int i = 0; i < picked.length; i++) {
            draw.negativeSrc[i] = draw.candidateSrc[picked[i]];
            draw.negativeDst[i] = draw.candidateDst[picked[i]];
        }
        draw.candidateSrc = null;
        draw.candidateDst = null;
        draw.keys = null;
        draw.keyPositions = null;
        out.collect(draw);
    }
}
