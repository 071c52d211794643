package io.fanout.batch;

import io.fanout.random.SplitMix64;
import java.util.Arrays;

/**
 * A seeded pseudo-random permutation of {@code [0, n)} computed one position at a time, both ways, in O(1)
 * memory: the shuffle of one epoch of a {@link BatchPlan}.
 *
 * <p>A balanced Feistel network over the smallest even number of bits covering {@code n} (so the domain is
 * below {@code 4n}), with SplitMix64 as round function, and cycle-walking: a value that lands at or beyond
 * {@code n} is enciphered again until it falls inside, which keeps the map a bijection of {@code [0, n)}. Unlike
 * a Fisher-Yates shuffle it needs no array of n positions, so a worker can ask which seed sits at a slot, or at
 * which slot a seed sits, without anyone holding the epoch's order: the partitioned store's distributed seed
 * reader places each seed it reads into its batch with {@link #slotOf}.
 */
public final class SeedPermutation {
    /** Eight rounds: four already make a Feistel network a pseudo-random permutation; the rest is margin. */
    private static final int ROUNDS = 8;
    /** Encipherments {@link #positionsAt} runs side by side. */
    private static final int LANES = 8;

    private final long n;
    private final int halfBits;
    private final long mask;
    private final long[] keys = new long[ROUNDS];

    /** The permutation of {@code [0, n)} drawn from {@code key} (e.g. {@code SplitMix64.seed(seed, epoch, tag)}). */
    public SeedPermutation(long n, long key) {
        if (n < 1 || n > (1L << 62)) {
            throw new IllegalArgumentException("a permutation needs 1 <= n <= 2^62, got " + n);
        }
        this.n = n;
        int bits = Math.max(2, 64 - Long.numberOfLeadingZeros(n - 1));
        this.halfBits = (bits + 1) / 2;
        this.mask = (1L << halfBits) - 1;
        SplitMix64 rng = new SplitMix64(key);
        for (int r = 0; r < ROUNDS; r++) {
            keys[r] = rng.nextLong();
        }
    }

    public long size() {
        return n;
    }

    /** The position (seed index) at slot {@code slot} of the permuted order. */
    public long positionAt(long slot) {
        check(slot);
        long v = slot;
        do {
            v = encipher(v);
        } while (v >= n);
        return v;
    }

    /**
     * {@link #positionAt} of {@code slots[0..count)} into {@code out}: the same positions, computed {@link #LANES} at a
     * time. One encipherment is a chain of dependent multiplications (eight rounds of SplitMix64), so a lone slot
     * waits on its chain; {@code LANES} independent chains side by side keep the multiplier busy, and a lane whose
     * value has landed in {@code [0, n)} takes the next slot while the others still cycle-walk. For permutations
     * whose positions fit an int (a seed set's).
     */
    public void positionsAt(long[] slots, int count, int[] out) {
        final long n = this.n;
        final long[] value = new long[LANES];
        final int[] at = new int[LANES]; // which slot each lane holds; -1 = idle
        Arrays.fill(at, -1);
        final long[] left = new long[LANES];
        final long[] right = new long[LANES];
        int loaded = 0;
        int done = 0;
        while (done < count) {
            for (int lane = 0; lane < LANES; lane++) {
                if (at[lane] < 0 && loaded < count) {
                    check(slots[loaded]);
                    value[lane] = slots[loaded];
                    at[lane] = loaded++;
                }
                left[lane] = value[lane] >>> halfBits;
                right[lane] = value[lane] & mask;
            }
            for (int r = 0; r < ROUNDS; r++) {
                for (int lane = 0; lane < LANES; lane++) {
                    long next = left[lane] ^ round(r, right[lane]);
                    left[lane] = right[lane];
                    right[lane] = next;
                }
            }
            for (int lane = 0; lane < LANES; lane++) {
                long v = (left[lane] << halfBits) | right[lane];
                value[lane] = v;
                if (at[lane] >= 0 && v < n) {
                    out[at[lane]] = Math.toIntExact(v);
                    done++;
                    at[lane] = -1;
                }
            }
        }
    }

    /** The slot of the permuted order at which position {@code position} sits: the inverse of {@link #positionAt}. */
    public long slotOf(long position) {
        check(position);
        long v = position;
        do {
            v = decipher(v);
        } while (v >= n);
        return v;
    }

    private void check(long i) {
        if (i < 0 || i >= n) {
            throw new IndexOutOfBoundsException(i + " out of 0.." + (n - 1));
        }
    }

    private long encipher(long v) {
        long left = v >>> halfBits;
        long right = v & mask;
        for (int r = 0; r < ROUNDS; r++) {
            long next = left ^ round(r, right);
            left = right;
            right = next;
        }
        return (left << halfBits) | right;
    }

    private long decipher(long v) {
        long left = v >>> halfBits;
        long right = v & mask;
        for (int r = ROUNDS - 1; r >= 0; r--) {
            long previous = right ^ round(r, left);
            right = left;
            left = previous;
        }
        return (left << halfBits) | right;
    }

    private long round(int r, long half) {
        return SplitMix64.mix(keys[r] ^ half) & mask;
    }
}
