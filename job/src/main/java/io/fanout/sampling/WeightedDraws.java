package io.fanout.sampling;

import io.fanout.graph.AliasTable;
import io.fanout.random.SplitMix64;
import java.util.Objects;

/**
 * The weighted neighbour draws of {@link KHopSampler} ({@code fanout.weight-column}), from a node's own random
 * stream: with replacement by its alias table, without replacement by Efraimidis–Spirakis (PyG's weighted
 * sampling), which is exactly successive sampling: each pick proportional to the weights of those not picked yet.
 *
 * <p>With replacement, draw {@code c} is {@code alias.resolve(start + bounded(r, d), (int) r)} for the stream's
 * {@code c}-th output {@code r}. Without replacement, two phases with the same law per pick (so the result is
 * exactly successive sampling: the first pick is {@code w / sum}, each next one proportional to the weights
 * not picked yet): (1) for {@code f <= 32}, alias draws as above, skipping positions already picked, at most
 * {@code 4f} of them; (2) if picks are missing, every position {@code j} not picked yet (in CSR order) takes
 * the stream's next output {@code r}, {@code E = -ln(u)} with {@code u = ((r >>> 11) + 1) * 2^-53} (an Exp(1)
 * variable) and the key {@code E / w}; the smallest keys fill the missing picks in key order
 * (Efraimidis–Spirakis, as PyG: the first arrivals of exponential clocks of rates {@code w}). A zero weight is
 * never an alias draw and ranks behind every positive key in phase 2 (ties by its draw), so zero-weight
 * neighbours are taken, uniformly, only when fewer than {@code f} weights are positive.
 *
 * <p>Not thread-safe: one per sampler. Scratch is reused; nothing is allocated per node once warm.
 */
public final class WeightedDraws {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    /** A zero weight's race time is this times (1 + E): later than any positive weight's E / w. */
    private static final double ZERO_WEIGHT_KEY = 1e300;
    /** Alias draws per pick before the rejection phase gives way to exponential races (picked mass is high). */
    private static final int REJECTION_ATTEMPTS = 4;
    /** Above this fanout the "already picked?" scan would cost more than the races: races only. */
    private static final int REJECTION_MAX_FANOUT = 32;

    private final float[] weights;
    private final AliasTable alias;
    /*
     * Scratch, made and grown at first need: one of these per node the partitioned store caches
     * (io.fanout.sampling.partitioned.WeightedPicks) must not hold kilobytes of it besides the node's tables.
     */
    /** The picks (positions relative to the node's first neighbour), in draw or key order. */
    private int[] pick = new int[0];
    /** Cumulative weights of a range ({@link #inRange}). */
    private double[] cumulative = new double[0];
    /** The earliest arrivals of the exponential races (phase 2); null until the first race. */
    private TopK races;

    /**
     * @param weights the CSR's per-edge weights (parallel to its targets), validated at load
     * @param alias the alias tables of the same CSR
     */
    public WeightedDraws(float[] weights, AliasTable alias) {
        this.weights = Objects.requireNonNull(weights, "weights");
        this.alias = Objects.requireNonNull(alias, "alias");
    }

    /** {@code f} independent draws, each position with probability {@code w / sum}, in the returned buffer's {@code [0, f)}. */
    int[] withReplacement(long state, int start, int d, int f) {
        final int[] pick = ensure(f);
        final AliasTable alias = this.alias;
        for (int c = 0; c < f; c++) {
            state += GOLDEN_GAMMA;
            final long r = SplitMix64.mix(state);
            pick[c] = alias.resolve(start + SplitMix64.bounded(r, d), (int) r) - start;
        }
        return pick;
    }

    /**
     * {@code f < d} distinct positions by successive sampling, in pick order, in the returned buffer's
     * {@code [0, f)}: first alias draws that skip positions already picked (each accepted one is proportional to
     * the weights of those left: rejection sampling), O(f) for most nodes; after {@link #REJECTION_ATTEMPTS}
     * {@code * f} draws, or for fanouts above {@link #REJECTION_MAX_FANOUT}, Efraimidis–Spirakis over the
     * positions left finishes the picks (O(d)). Each pick's law given the earlier ones is the same in both
     * phases, so the switch does not bias the result.
     */
    int[] withoutReplacement(long state, int start, int d, int f) {
        final int[] pick = ensure(f);
        final AliasTable alias = this.alias;
        int k = 0;
        if (f <= REJECTION_MAX_FANOUT) {
            for (int attempts = REJECTION_ATTEMPTS * f; k < f && attempts > 0; attempts--) {
                state += GOLDEN_GAMMA;
                final long r = SplitMix64.mix(state);
                final int p = alias.resolve(start + SplitMix64.bounded(r, d), (int) r) - start;
                if (!taken(pick, k, p)) {
                    pick[k++] = p;
                }
            }
            if (k == f) {
                return pick;
            }
        }
        return exponentialRaces(state, start, d, f, k);
    }

    /**
     * Draws among positions {@code [start, start + d)} that are only part of a node's list (temporal sampling: the
     * edges up to the seed's time), where the node's alias table does not apply. Without replacement
     * ({@code f < d}): the exponential races over the range, exactly successive sampling. With replacement:
     * {@code f} draws proportional to the weights by a binary search over the range's cumulative weights (one
     * stream output per draw, {@code u = (r >>> 11) * 2^-53} of the total); none when the range's weights sum to 0.
     * Returns the count drawn; the positions (relative to {@code start}) are in the returned buffer's
     * {@code [0, count)}, see {@link #picks()}.
     */
    int inRange(long state, int start, int d, int f, boolean replace) {
        final int[] pick = ensure(f);
        if (!replace) {
            exponentialRaces(state, start, d, f, 0);
            return f;
        }
        if (cumulative.length < d) {
            cumulative = new double[Math.max(d, cumulative.length * 2)];
        }
        final double[] cum = cumulative;
        double total = 0;
        for (int j = 0; j < d; j++) {
            cum[j] = total += weights[start + j];
        }
        if (!(total > 0)) {
            return 0;
        }
        for (int c = 0; c < f; c++) {
            state += GOLDEN_GAMMA;
            final double target = (SplitMix64.mix(state) >>> 11) * 0x1.0p-53 * total;
            int lo = 0;
            int hi = d - 1;
            while (lo < hi) { // the first position whose cumulative weight exceeds target: never a zero weight
                int mid = (lo + hi) >>> 1;
                if (cum[mid] > target) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            pick[c] = lo;
        }
        return f;
    }

    /**
     * {@link KHopSampler}'s weighted draw for a node whose {@code d} neighbours start at {@code start} and that does
     * not take them all: {@code f} positions (relative to {@code start}) in the returned buffer's {@code [0, f)}.
     */
    public int[] draw(long state, int start, int d, int f, boolean replace) {
        return replace ? withReplacement(state, start, d, f) : withoutReplacement(state, start, d, f);
    }

    /**
     * The draws of a node whose neighbours start at {@code start}, among its first {@code d > 0} of {@code full}
     * (a time prefix when {@code d < full}: {@link #inRange}, as the alias table covers the whole list), fanout
     * {@code f >= 1}, when not all are taken. Returns the count drawn; the positions (relative to {@code start}) are
     * {@link #picks()}'s {@code [0, count)}, valid until the next draw.
     */
    public int drawPrefix(long state, int start, int d, int full, int f, boolean replace) {
        if (d < full) {
            return inRange(state, start, d, f, replace);
        }
        draw(state, start, d, f, replace);
        return f;
    }

    /** The pick buffer of the last draw. */
    public int[] picks() {
        return pick;
    }

    private static boolean taken(int[] pick, int k, int p) {
        for (int q = 0; q < k; q++) {
            if (pick[q] == p) {
                return true;
            }
        }
        return false;
    }

    /**
     * Efraimidis–Spirakis for picks {@code k..f} among the positions not in {@code pick[0, k)}: the next draws of
     * the stream give each such position {@code j} (in order) an Exp(1) variable {@code E} and the key
     * {@code E / w}; the {@code f - k} smallest keys are appended in key order (the arrival order of exponential
     * clocks of rates {@code w}: successive sampling). Zero weights rank behind every positive one, uniformly.
     */
    private int[] exponentialRaces(long state, int start, int d, int f, int k) {
        final int[] pick = this.pick;
        final float[] weights = this.weights;
        if (races == null) {
            races = new TopK(f - k);
        }
        final TopK races = this.races;
        races.reset(f - k); // the best keys are the smallest E / w: TopK keeps the largest, so it gets -E / w
        for (int j = 0; j < d; j++) {
            if (k > 0 && taken(pick, k, j)) {
                continue;
            }
            state += GOLDEN_GAMMA;
            final long r = SplitMix64.mix(state);
            final double e = -Math.log(((r >>> 11) + 1) * 0x1.0p-53);
            final float w = weights[start + j];
            // E <= 37 and w >= 2^-149 give E / w < 3e46, so a zero weight's 1e300 (1 + E) ranks behind every
            // positive weight while keeping zero weights in a uniformly random order among themselves.
            races.offer(j, w > 0 ? -e / w : -ZERO_WEIGHT_KEY * (1 + e));
        }
        races.drainBestFirst(pick, null, k); // in arrival order: successive sampling
        return pick;
    }

    private int[] ensure(int f) {
        if (pick.length < f) {
            pick = new int[Math.max(f, pick.length * 2)];
        }
        return pick;
    }
}
