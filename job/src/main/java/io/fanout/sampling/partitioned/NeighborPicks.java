package io.fanout.sampling.partitioned;

import io.fanout.random.SplitMix64;
import it.unimi.dsi.fastutil.ints.IntOpenHashSet;

/**
 * The neighbour positions k-hop sampling draws for one node at one hop of one batch, from that node's neighbour
 * list alone: the draws of {@link io.fanout.sampling.KHopSampler} (same streams, same order), so a store that
 * holds each node's list on the partition that owns the node samples exactly what the in-memory store does.
 *
 * <p>The node's stream is {@code SplitMix64.seed(seed, epoch, batchId, hop, nodeId)}. Without replacement:
 * {@code -1} or {@code d <= f} takes every position in list order; otherwise Floyd's algorithm, step
 * {@code j = d-f .. d-1} drawing {@code r} in {@code [0, j]} and taking {@code j} when {@code r} was taken, in
 * step order. With replacement: {@code f} independent positions (none when {@code d = 0}; {@code -1} = all).
 * This is the plain textbook form; {@code KHopSampler} has faster forms of the same draws.
 */
public final class NeighborPicks {
    private NeighborPicks() {}

    /** How many positions a node of degree {@code d} yields with fanout {@code f} ({@code -1} = all). */
    public static int count(int d, int f, boolean replace) {
        if (d == 0) {
            return 0;
        }
        if (f < 0 || (!replace && d <= f)) {
            return d;
        }
        return f;
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
        if (k == 0) {
            return out;
        }
        if (f < 0 || (!replace && d <= f)) {
            for (int i = 0; i < k; i++) {
                out[i] = i;
            }
            return out;
        }
        SplitMix64 rng = new SplitMix64(SplitMix64.seed(seed, epoch, batchId, hop, nodeId));
        if (replace) {
            for (int i = 0; i < k; i++) {
                out[i] = rng.nextInt(d);
            }
            return out;
        }
        // A set of the f picks, not a bit per neighbour: a hot node's request costs O(f), not O(degree).
        IntOpenHashSet taken = new IntOpenHashSet(f);
        for (int c = 0, j = d - f; j < d; j++, c++) {
            int r = rng.nextInt(j + 1);
            if (!taken.add(r)) {
                r = j;
                taken.add(r);
            }
            out[c] = r;
        }
        return out;
    }
}
