package io.fanout.random;

/**
 * SplitMix64: the small, fast, splittable generator every Fanout random choice is drawn from.
 *
 * <p>Fanout never shares a generator between batches, workers or threads. Each random stream is
 * seeded by {@link #seed(long...)} from the coordinates that identify it (job seed, epoch, batch id,
 * hop, node), so the same options give the same samples whatever the parallelism, the order in which
 * records arrive, or a restart from a checkpoint. This is the per-node seeding that GLT and pyg-lib
 * lack (dgl #1110, pyg-lib #527).
 */
public final class SplitMix64 {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private long state;

    public SplitMix64(long seed) {
        this.state = seed;
    }

    /** Re-seeds this generator in place (lets hot loops reuse one object per stream). */
    public void reset(long seed) {
        this.state = seed;
    }

    public long nextLong() {
        return mix(state += GOLDEN_GAMMA);
    }

    /**
     * A uniform int in {@code [0, bound)} for {@code 0 < bound <= 2^31-1}, by Lemire's multiply-shift
     * (bias below 2^-32 per draw, the same mapping as ../shared/bench/refsampler.c).
     */
    public int nextInt(int bound) {
        return bounded(nextLong(), bound);
    }

    /**
     * A uniform long in {@code [0, bound)} for {@code bound > 0}: the generator's top 63 bits modulo {@code bound},
     * drawing again where the last, partial range would bias it (as {@code java.util.Random.nextLong(bound)}).
     */
    public long nextLong(long bound) {
        if (bound <= 0) {
            throw new IllegalArgumentException("bound must be positive: " + bound);
        }
        long u = nextLong() >>> 1;
        long r = u % bound;
        while (u - r + (bound - 1) < 0) {
            u = nextLong() >>> 1;
            r = u % bound;
        }
        return r;
    }

    /**
     * The mapping {@link #nextInt} applies to one output of the generator: the top 32 bits of
     * {@code random} scaled to {@code [0, bound)}. For hot loops that keep a stream's state in a local.
     */
    public static int bounded(long random, int bound) {
        return (int) (((random >>> 32) * (long) bound) >>> 32);
    }

    /** A uniform double in {@code [0, 1)}. */
    public double nextDouble() {
        return (nextLong() >>> 11) * 0x1.0p-53;
    }

    /** The SplitMix64 finalizer (Stafford variant 13): a bijective 64-bit mixer. */
    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Derives a stream seed from ordered coordinates, e.g. {@code seed(jobSeed, epoch, batch, hop, node)}. */
    public static long seed(long... coordinates) {
        long h = 0x6A09E667F3BCC909L;
        for (long c : coordinates) {
            h = mix(h + GOLDEN_GAMMA + c);
        }
        return h;
    }

    /** Allocation-free form of {@link #seed(long...)} for three coordinates. */
    public static long seed(long a, long b, long c) {
        return mix(mix(mix(0x6A09E667F3BCC909L + GOLDEN_GAMMA + a) + GOLDEN_GAMMA + b) + GOLDEN_GAMMA + c);
    }

    /** Allocation-free form of {@link #seed(long...)} for five coordinates. */
    public static long seed(long a, long b, long c, long d, long e) {
        long h = seed(a, b, c);
        h = mix(h + GOLDEN_GAMMA + d);
        return mix(h + GOLDEN_GAMMA + e);
    }
}
