package io.fanout.batch;

import io.fanout.random.SplitMix64;

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
     * {@link #positionAt} of {@code slots[0..count)} into {@code out}: the same positions, computed a round at a
     * time over every slot still walking. One encipherment is a chain of dependent multiplications (eight rounds
     * of SplitMix64), so a lone slot waits on its chain; a round applied to a whole array of independent values
     * keeps the multiplier busy (and is a loop the JIT can vectorise). Values that land outside {@code [0, n)}
     * are kept, packed to the front, for another encipherment. For permutations whose positions fit an int (a
     * seed set's).
     */
    public void positionsAt(long[] slots, int count, int[] out) {
        final long n = this.n;
        final int halfBits = this.halfBits;
        final long mask = this.mask;
        final long[] value = new long[count];
        final int[] at = new int[count]; // the slot each walking value belongs to
        for (int i = 0; i < count; i++) {
            check(slots[i]);
            value[i] = slots[i];
            at[i] = i;
        }
        int walking = count;
        while (walking > 0) {
            for (int r = 0; r < ROUNDS; r++) {
                // (left, right) -> (right, left ^ f(right)), on the halves packed in one long as encipher() has them.
                // round(r, right) spelled out with the key and mask in locals: calling it reads both fields per
                // value and the loop runs half as fast (63.8 against 28-29 ns a seed).
                final long key = keys[r];
                for (int i = 0; i < walking; i++) {
                    final long v = value[i];
                    final long right = v & mask;
                    value[i] = right << halfBits | ((v >>> halfBits) ^ (SplitMix64.mix(key ^ right) & mask));
                }
            }
            int kept = 0;
            for (int i = 0; i < walking; i++) {
                final long v = value[i];
                if (v < n) {
                    out[at[i]] = Math.toIntExact(v);
                } else {
                    value[kept] = v;
                    at[kept++] = at[i];
                }
            }
            walking = kept;
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
