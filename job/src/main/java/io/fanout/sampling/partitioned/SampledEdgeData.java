package io.fanout.sampling.partitioned;

import java.util.Arrays;

/**
 * The data of a batch's sampled edges ({@code --with-edge}), in the batch's edge order: each edge's input row, and its
 * weight (weighted graphs) and time (temporal sampling), or null where the graph has none. Lookups answer each pick
 * with its edge's data; an assembly adds a hop's edges frontier position by position in draw order, and so does
 * {@link #ofHop} with their data, so the two stay aligned without the assembly knowing.
 *
 * @param eids each edge's 0-based input row over all edge parts ({@link io.fanout.graph.CsrGraph#edgeIds()})
 * @param weights each edge's weight, or null
 * @param times each edge's time, or null
 */
public record SampledEdgeData(long[] eids, float[] weights, long[] times) {
    /** No edges yet, with the parts a sample of this kind carries. */
    public static SampledEdgeData empty(boolean weights, boolean times) {
        return new SampledEdgeData(new long[0], weights ? new float[0] : null, times ? new long[0] : null);
    }

    /**
     * One hop's edge data in the order {@link BatchAssembly#addHop(int[][], int[][], long[][])} adds the hop's edges
     * (or {@link InducedEdges#of} the induced ones): group {@code g} answered frontier positions {@code positions[g]}
     * with neighbours {@code neighbors[g]} and their edges' {@code eids[g]} ({@code weights[g]}, {@code times[g]}: null
     * for none), each position exactly once.
     */
    public static SampledEdgeData ofHop(int frontier, int[][] positions, int[][] ends, long[][] neighbors,
            long[][] eids, float[][] weights, long[][] times) {
        FrontierAnswers answers = new FrontierAnswers(frontier, positions, ends, neighbors);
        int m = answers.drawn();
        boolean weighted = weights.length > 0 && weights[0] != null;
        boolean timed = times.length > 0 && times[0] != null;
        long[] outIds = new long[m];
        float[] outWeights = weighted ? new float[m] : null;
        long[] outTimes = timed ? new long[m] : null;
        int at = 0;
        for (int p = 0; p < frontier; p++) {
            int g = answers.group(p);
            int from = answers.from(p);
            int count = answers.to(p) - from;
            if (eids[g] == null || eids[g].length != neighbors[g].length) {
                throw new IllegalArgumentException("answer group " + g + " has no input row for every neighbour");
            }
            System.arraycopy(eids[g], from, outIds, at, count);
            if (weighted) {
                System.arraycopy(weights[g], from, outWeights, at, count);
            }
            if (timed) {
                System.arraycopy(times[g], from, outTimes, at, count);
            }
            at += count;
        }
        return new SampledEdgeData(outIds, outWeights, outTimes);
    }

    /** These edges' data, then {@code more}'s (the next hop's). */
    public SampledEdgeData append(SampledEdgeData more) {
        return new SampledEdgeData(concat(eids, more.eids), weights == null ? null : concat(weights, more.weights),
                times == null ? null : concat(times, more.times));
    }

    /** The data of edges {@code at[0 .. count)} (indices into these edges), e.g. of a bidirectional subgraph's. */
    public SampledEdgeData at(int[] at, int count) {
        long[] outIds = new long[count];
        float[] outWeights = weights == null ? null : new float[count];
        long[] outTimes = times == null ? null : new long[count];
        for (int i = 0; i < count; i++) {
            int e = at[i];
            outIds[i] = eids[e];
            if (outWeights != null) {
                outWeights[i] = weights[e];
            }
            if (outTimes != null) {
                outTimes[i] = times[e];
            }
        }
        return new SampledEdgeData(outIds, outWeights, outTimes);
    }

    private static long[] concat(long[] a, long[] b) {
        long[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static float[] concat(float[] a, float[] b) {
        float[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
