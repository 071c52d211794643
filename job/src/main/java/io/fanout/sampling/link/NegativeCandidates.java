package io.fanout.sampling.link;

import io.fanout.random.SplitMix64;

/**
 * Strict negatives for a store that cannot ask "is this an edge?" pair by pair (the partitioned store, whose lists are
 * spread over its lookups): the pairs {@link NegativeSampler#binary} (or the destinations
 * {@link NegativeSampler#triplet}) would try, drawn ahead from the same stream, checked together, and taken in the
 * same order, so the negatives are exactly the memory store's.
 *
 * <p>The candidates a batch tries do not depend on which of them are edges (each try takes the same draws whatever its
 * outcome), so each negative takes the next candidates until one is not an edge for it, unless a negative needed
 * {@link NegativeSampler#MAX_TRIES} tries, where the memory store draws exactly among every non-edge instead: a store
 * that checks candidates reports that, and a batch whose candidates ran out, as a {@link TooDense} error.
 */
public final class NegativeCandidates {
    private NegativeCandidates() {}

    /**
     * The candidates drawn ahead for {@code count} negatives: half again as many, and 64 more. A graph whose edges
     * are a fraction f of all node pairs runs out only when more than {@code count / 2 + 64} of them are edges, which
     * for f up to a quarter is many standard deviations away for every count (1,024 negatives: 8 at f = 0.25).
     */
    public static int candidates(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("negatives " + count + " < 0");
        }
        return Math.addExact(Math.addExact(count, count / 2 + (count & 1)), 64);
    }

    /**
     * The first {@code n} pairs of the batch's negative stream, as {@code {src[], dst[]}} node indices: the pairs
     * {@link NegativeSampler#binary} tries for the batch, in order, over a graph of {@code numSrc} sources and
     * {@code numDst} destinations.
     */
    public static int[][] binary(int numSrc, int numDst, int n, long seed, int epoch, int batchId) {
        SplitMix64 rng = new SplitMix64(SplitMix64.seed(seed, epoch, batchId, NegativeSampler.NEGATIVES));
        int[] src = new int[n];
        int[] dst = new int[n];
        for (int i = 0; i < n; i++) {
            src[i] = rng.nextInt(numSrc);
            dst[i] = rng.nextInt(numDst);
        }
        return new int[][] {src, dst};
    }

    /**
     * The first {@code n} destinations of the batch's negative stream: the destinations {@link NegativeSampler#triplet}
     * tries for the batch, in order, over {@code numDst} destinations.
     */
    public static int[] triplet(int numDst, int n, long seed, int epoch, int batchId) {
        SplitMix64 rng = new SplitMix64(SplitMix64.seed(seed, epoch, batchId, NegativeSampler.NEGATIVES));
        int[] dst = new int[n];
        for (int i = 0; i < n; i++) {
            dst[i] = rng.nextInt(numDst);
        }
        return dst;
    }

    /** Whether candidate {@code candidate} is an edge for negative slot {@code slot}'s pair. */
    @FunctionalInterface
    public interface Edges {
        boolean isEdge(int slot, int candidate);
    }

    /**
     * The positions of the {@code count} binary negatives among the candidates: the first {@code count} that are not
     * edges ({@code isEdge[c]} false), in order.
     *
     * @throws TooDense when a negative would take {@link NegativeSampler#MAX_TRIES} tries, or the candidates run out
     */
    public static int[] pick(boolean[] isEdge, int count) {
        return pick(count, isEdge.length, (slot, c) -> isEdge[c]);
    }

    /**
     * The candidates taken by {@code slots} negatives, in slot order (triplet: row-major [P, amount], slot
     * {@code j}'s source positive {@code j / amount}): each slot tries the next candidates until one is not an edge
     * for it, as the memory store's draws do.
     *
     * @throws TooDense when a negative would take {@link NegativeSampler#MAX_TRIES} tries, or the candidates run out
     */
    public static int[] pick(int slots, int candidates, Edges edges) {
        int[] picked = new int[slots];
        int c = 0;
        for (int i = 0; i < slots; i++) {
            int tries = 0;
            while (true) {
                if (tries == NegativeSampler.MAX_TRIES) {
                    throw new TooDense("negative " + i + " met " + NegativeSampler.MAX_TRIES + " candidate pairs in a"
                            + " row that are edges (the memory store then draws exactly among every pair that is not"
                            + " an edge)");
                }
                if (c == candidates) {
                    throw new TooDense("only " + i + " of its " + slots + " negatives were among its " + candidates
                            + " candidate pairs");
                }
                if (!edges.isEdge(i, c++)) {
                    picked[i] = c - 1;
                    break;
                }
                tries++;
            }
        }
        return picked;
    }

    /** A batch whose negatives its candidates cannot give: a graph nearly as dense as all its node pairs. */
    public static final class TooDense extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        TooDense(String message) {
            super(message);
        }
    }
}
