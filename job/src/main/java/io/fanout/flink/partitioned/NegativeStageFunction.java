package io.fanout.flink.partitioned;

import io.fanout.batch.LocalSeedArray;
import io.fanout.sampling.link.NegativeCandidates;
import io.fanout.sampling.link.NegativeSampler;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.util.Collector;

/**
 * The negatives stage, keyed by batch: input 1 is a link batch with its candidates ({@link NegativeProbeFunction}),
 * input 2 each key's neighbours among the other ends; once every key answered, each negative takes the next candidates
 * until one is not an edge for it ({@link NegativeCandidates#pick}), as the memory store's draws do. Triplets over
 * lists keyed by source get the sources' whole lists instead and are drawn by {@link NegativeSampler} itself.
 */
public class NegativeStageFunction extends GatherStageFunction<LinkDraw, AnswerGroup> {
    private static final long serialVersionUID = 1L;

    /** The negatives' kind, amount and node ids (triplets drawn against whole lists read ids by index). */
    private final StageOptions.LinkNegatives negatives;
    private final long seed;
    /** The link edge type as errors name it. */
    private final String what;
    /** A plain graph's node ids copied to this TaskManager for reads by index ({@link #ids()}), or null. */
    private transient LocalSeedArray ids;

    /**
     * @param negatives the link seeds' negatives
     * @param seed the job's seed
     * @param what the link edge type as errors name it ("the graph" for a plain one)
     */
    public NegativeStageFunction(StageOptions.LinkNegatives negatives, long seed, String what) {
        super("negative-draw", LinkDraw.class, "negative-answer-groups", AnswerGroup.class);
        this.negatives = negatives;
        this.seed = seed;
        this.what = what;
    }

    /** The plain graph's node ids by index, copied locally at the first draw that needs them (sparse ids only). */
    private LocalSeedArray ids() {
        if (ids == null) {
            try {
                ids = NegativeProbeFunction.localCopy(negatives.nodeIds(), getRuntimeContext());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return ids;
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            if (ids != null) {
                ids.close();
            }
        }
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
        // Each key's neighbours among the other ends (or its whole list), sorted for the membership checks.
        long[][] neighbors = new long[draw.keys.length][];
        for (AnswerGroup group : received) {
            for (int i = 0, from = 0; i < group.positions.length; i++) {
                long[] list = Arrays.copyOfRange(group.neighbors, from, group.ends[i]);
                Arrays.sort(list);
                neighbors[group.positions[i]] = list;
                from = group.ends[i];
            }
        }
        int[] at = draw.keyPositions;
        if (draw.wholeLists) {
            draw.negativeDst = drawnAgainstWholeLists(draw, neighbors);
            draw.sources = null;
            draw.keys = null;
            draw.keyPositions = null;
            out.collect(draw);
            return;
        }
        long[] dst = draw.candidateDst;
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
                // Lists keyed by destination: slot j's pair is positive j / amount's source and the candidate.
                int amount = draw.tripletAmount;
                long[] sources = draw.sources;
                picked = NegativeCandidates.pick(draw.count, dst.length,
                        (slot, c) -> Arrays.binarySearch(neighbors[at[c]], sources[slot / amount]) >= 0);
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

    /**
     * Triplet negatives of a batch whose positives' sources' whole lists arrived (sorted ids): drawn by
     * {@link NegativeSampler#triplet} itself over those lists, exact draws included, so the memory store's.
     */
    private long[] drawnAgainstWholeLists(LinkDraw draw, long[][] neighbors) {
        long[] sources = draw.sources;
        int[] at = draw.keyPositions;
        NegativeSampler sampler = new NegativeSampler(new NegativeSampler.SourceLists() {
            @Override
            public boolean isEdge(int s, int d) {
                return Arrays.binarySearch(neighbors[at[s]], idOf(d)) >= 0;
            }

            @Override
            public int[] linked(int s) {
                long[] list = neighbors[at[s]];
                int[] out = new int[list.length];
                int n = 0;
                for (int i = 0; i < list.length; i++) {
                    if (i == 0 || list[i] != list[i - 1]) {
                        out[n++] = indexOf(list[i]); // ids ascend with indices
                    }
                }
                return Arrays.copyOf(out, n);
            }
        }, sources.length, negatives.numDst(), what, s -> sources[s]);
        int[] local = new int[sources.length];
        for (int i = 0; i < local.length; i++) {
            local[i] = i;
        }
        int[] picked;
        try {
            picked = sampler.triplet(local, draw.tripletAmount, seed, draw.batch.epoch, draw.batch.batchId);
        } catch (IllegalStateException e) { // a source linked to every destination fails every time
            throw new SuppressRestartsException(e);
        }
        long[] out = new long[picked.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = idOf(picked[i]);
        }
        return out;
    }

    /** The id of destination index {@code d}. */
    private long idOf(int d) {
        if (negatives.nodeIds() != null) {
            try {
                return ids().read(new int[] {d})[0];
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        long[] byIndex = negatives.dstIds();
        return byIndex == null ? d : byIndex[d];
    }

    /** The index of destination id {@code id}, a node of the graph (ids are in ascending order by index). */
    private int indexOf(long id) {
        long[] byIndex = negatives.dstIds();
        if (negatives.nodeIds() == null) {
            return byIndex == null ? Math.toIntExact(id) : Arrays.binarySearch(byIndex, id);
        }
        int lo = 0;
        int hi = negatives.numDst() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long v = idOf(mid);
            if (v < id) {
                lo = mid + 1;
            } else if (v > id) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        throw new IllegalStateException("node " + id + " is not a node of the graph");
    }
}
