package io.fanout.sampling;

import io.fanout.random.SplitMix64;
import java.util.Arrays;

/**
 * Floyd's algorithm over one node's stream: the k-hop draws without replacement that every store makes alike.
 *
 * <p>{@code k} distinct positions in {@code [0, d)} ({@code 1 <= k < d}), uniformly, from the stream whose state
 * is {@code state} ({@link SplitMix64}'s, not yet advanced): step {@code c = 0 .. k-1} with {@code j = d-k+c} draws
 * {@code r = nextInt(j + 1)} and takes {@code j} instead when {@code r} was taken before ({@code j} itself cannot
 * have been), leaving {@code r} in {@code out[c]}. One place for the steps keeps the in-memory sampler
 * ({@link KHopSampler}) and the partitioned lookups drawing the same positions.
 *
 * <p>"Was {@code r} taken" is asked the cheapest way for the size: the bits of one {@code long} when
 * {@code d <= 64} (a bit test and a conditional move, no unpredictable branch; most nodes of sparse graphs),
 * a scan of the picks so far when {@code k <= }{@link #SCAN_MAX}, an open-addressing set otherwise (O(k) per
 * node, not O(k^2) and not O(d)). Degrees 11-60, fanout 10, in a loop: 41-43 ns a node with the bits against
 * 140-165 ns with a hash set for every node.
 */
public final class FloydDraws {
    /** Up to this many picks, "was it taken" scans the picks so far (faster than hashing so few). */
    public static final int SCAN_MAX = 24;
    /** SplitMix64's increment: the stream advanced in a local, as {@link SplitMix64#nextInt} does. */
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private FloydDraws() {}

    /**
     * Draws into {@code out[0..k)} and returns {@code out}.
     *
     * @param out at least {@code k} long
     * @param set scratch for the hashed path: at least {@link #setSize}{@code (k)} long when {@code d > 64 &&
     *     k > SCAN_MAX} (its first {@code setSize(k)} entries are cleared here), else unused (may be null)
     */
    public static int[] draw(long state, int d, int k, int[] out, int[] set) {
        if (d <= Long.SIZE) {
            return mask(state, d, k, out);
        }
        return k <= SCAN_MAX ? scan(state, d, k, out) : hashed(state, d, k, out, set);
    }

    /** Entries the hashed path's set needs for {@code k} picks (load factor at most 1/2). */
    public static int setSize(int k) {
        return Integer.highestOneBit(k) << 2;
    }

    /** Whether {@link #draw} needs a {@code set} for these sizes. */
    public static boolean needsSet(int d, int k) {
        return d > Long.SIZE && k > SCAN_MAX;
    }

    private static int[] mask(long state, int d, int k, int[] out) {
        long taken = 0; // bit r: position r was taken
        for (int c = 0, j = d - k; c < k; c++, j++) {
            state += GOLDEN_GAMMA;
            int r = SplitMix64.bounded(SplitMix64.mix(state), j + 1);
            r = (taken >>> r & 1L) != 0 ? j : r;
            taken |= 1L << r;
            out[c] = r;
        }
        return out;
    }

    private static int[] scan(long state, int d, int k, int[] out) {
        for (int c = 0, j = d - k; c < k; c++, j++) {
            state += GOLDEN_GAMMA;
            int r = SplitMix64.bounded(SplitMix64.mix(state), j + 1);
            for (int q = 0; q < c; q++) {
                if (out[q] == r) {
                    r = j;
                    break;
                }
            }
            out[c] = r;
        }
        return out;
    }

    private static int[] hashed(long state, int d, int k, int[] out, int[] set) {
        final int size = setSize(k);
        Arrays.fill(set, 0, size, 0);
        final int mask = size - 1;
        for (int c = 0, j = d - k; c < k; c++, j++) {
            state += GOLDEN_GAMMA;
            int r = SplitMix64.bounded(SplitMix64.mix(state), j + 1);
            if (contains(set, mask, r)) {
                r = j;
            }
            insert(set, mask, r);
            out[c] = r;
        }
        return out;
    }

    /** The set holds positions + 1 (0 = empty slot). */
    private static boolean contains(int[] set, int mask, int position) {
        final int key = position + 1;
        for (int slot = slot(position, mask); ; slot = (slot + 1) & mask) {
            int s = set[slot];
            if (s == key) {
                return true;
            }
            if (s == 0) {
                return false;
            }
        }
    }

    private static void insert(int[] set, int mask, int position) {
        int slot = slot(position, mask);
        while (set[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        set[slot] = position + 1;
    }

    private static int slot(int position, int mask) {
        return (position * 0x9E3779B9 >>> 16 ^ position * 0x9E3779B9) & mask;
    }
}
