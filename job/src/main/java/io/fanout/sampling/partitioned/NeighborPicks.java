package io.fanout.sampling.partitioned;

import io.fanout.random.SplitMix64;
import io.fanout.sampling.FloydDraws;

/**
 * The neighbour positions k-hop sampling draws for one node at one hop of one batch, from that node's neighbour
 * list alone: the draws of {@link io.fanout.sampling.KHopSampler} (same streams, same order), so a store that
 * holds each node's list on the partition that owns the node samples exactly what the in-memory store does.
 *
 * <p>The node's stream is {@code SplitMix64.seed(seed, epoch, batchId, hop, nodeId)}. Without replacement:
 * {@code -1} or {@code d <= f} takes every position in list order; otherwise Floyd's algorithm, step
 * {@code j = d-f .. d-1} drawing {@code r} in {@code [0, j]} and taking {@code j} when {@code r} was taken, in
 * step order ({@link FloydDraws}, the in-memory sampler's own code). With replacement: {@code f} independent
 * positions (none when {@code d = 0}; {@code -1} = all).
 */
public final class NeighborPicks {
    private NeighborPicks() {}

    /** How many positions a node of degree {@code d} yields with fanout {@code f} ({@code -1} = all). */
    public static int count(int d, int f, boolean replace) {
        if (d == 0) {
            return 0;
        }
        return takesAll(d, f, replace) ? d : f;
    }

    /** Whether a node of degree {@code d} yields every position in list order ({@code 0..d-1}), drawing nothing. */
    public static boolean takesAll(int d, int f, boolean replace) {
        return f < 0 || (!replace && d <= f);
    }

    /**
     * The positions (indices into the node's neighbour list) drawn for node {@code nodeId} of degree {@code d}.
     *
     * @param f the hop's fanout, {@code >= 1} or {@code -1}
     */
    public static int[] positions(long seed, int epoch, int batchId, int hop, long nodeId, int d, int f,
            boolean replace) {
        int k = count(d, f, replace);
        int[] out = new int[k];
        if (k > 0) {
            draw(seed, epoch, batchId, hop, nodeId, d, f, replace, out,
                    !replace && !takesAll(d, f, replace) && FloydDraws.needsSet(d, f)
                            ? new int[FloydDraws.setSize(f)] : null);
        }
        return out;
    }

    /**
     * {@link #positions} into {@code out[0 .. count(d, f, replace))}, for callers that draw many nodes into scratch.
     *
     * @param out at least {@link #count} long
     * @param set scratch for Floyd's hashed path: at least {@link FloydDraws#setSize}{@code (f)} long when
     *     {@link FloydDraws#needsSet}{@code (d, f)} without replacement, else unused (may be null)
     */
    public static void draw(long seed, int epoch, int batchId, int hop, long nodeId, int d, int f, boolean replace,
            int[] out, int[] set) {
        draw(seed, epoch, batchId, hop, -1, nodeId, d, f, replace, out, set);
    }

    /** {@link #draw} for node {@code nodeId} of disjoint tree {@code tree} ({@code -1}: not disjoint; {@link #state}). */
    public static void draw(long seed, int epoch, int batchId, int hop, int tree, long nodeId, int d, int f,
            boolean replace, int[] out, int[] set) {
        if (!takesAll(d, f, replace)) {
            drawFrom(state(seed, epoch, batchId, hop, tree, nodeId), d, f, replace, out, set);
        } else {
            for (int i = 0, k = count(d, f, replace); i < k; i++) {
                out[i] = i;
            }
        }
    }

    /**
     * The stream node {@code nodeId} draws from at {@code hop} of a batch: {@code SplitMix64.seed(seed, epoch,
     * batchId, hop, nodeId)}, or in disjoint tree {@code tree >= 0} {@code SplitMix64.seed(seed, epoch, batchId, hop,
     * tree, nodeId)} ({@link io.fanout.sampling.DisjointKHopSampler}'s: two trees through one node draw apart).
     */
    public static long state(long seed, int epoch, int batchId, int hop, int tree, long nodeId) {
        return tree < 0 ? SplitMix64.seed(seed, epoch, batchId, hop, nodeId)
                : SplitMix64.seed(seed, epoch, batchId, hop, tree, nodeId);
    }

    /** {@link #draw}'s positions from the stream {@code state}, for a node that does not take its whole list. */
    private static void drawFrom(long state, int d, int f, boolean replace, int[] out, int[] set) {
        int k = count(d, f, replace);
        if (replace) {
            SplitMix64 rng = new SplitMix64(state);
            for (int i = 0; i < k; i++) {
                out[i] = rng.nextInt(d);
            }
            return;
        }
        FloydDraws.draw(state, d, f, out, set);
    }
}
