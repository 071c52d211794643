package io.fanout.sampling;

import io.fanout.graph.AliasTable;
import io.fanout.random.SplitMix64;
import java.util.Objects;

/**
 * The weighted neighbour draws of {@link KHopSampler} ({@code fanout.weight-column}), from a node's own random
 * stream: with replacement by its alias table, without replacement by Efraimidis–Spirakis (PyG's weighted
 * sampling), which is exactly successive sampling: each pick proportional to the weights of those not picked yet.
 *
 * <p>Without replacement, position {@code j} of the node (in CSR order) gets the stream's {@code j}-th draw
 * {@code r}, {@code E = -ln(u)} with {@code u = ((r >>> 11) + 1) * 2^-53} (an Exp(1) variable) and the key
 * {@code E / w}; the {@code f} smallest keys win (the first arrival of independent exponential clocks of rates
 * {@code w}), emitted in key order, so the first pick is exactly {@code w / sum}, the second proportional to
 * the rest, and so on. A zero weight ranks behind every positive one (its key is +infinity, ties broken by
 * the draw), so zero-weight neighbours are taken, uniformly, only when fewer than {@code f} weights are
 * positive. With replacement, draw {@code c} is {@code alias.resolve(start + bounded(r, d), (int) r)}.
 *
 * <p>Not thread-safe: one per sampler. Scratch is reused; nothing is allocated per node once warm.
 */
public final class WeightedDraws {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    /** Keys of zero weights: above the bits of every finite double and +infinity (0x7FF0...), below none. */
    private static final long ZERO_WEIGHT_KEYS = 0x7FF8000000000000L;

    private final float[] weights;
    private final AliasTable alias;
    /** The picks (positions relative to the node's first neighbour), in draw or key order. */
    private int[] pick = new int[64];
    /** Max-heap of the f smallest (key, position) pairs seen so far. */
    private long[] heapKey = new long[64];

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

    /** {@code f < d} distinct positions by successive sampling, in pick order, in the returned buffer's {@code [0, f)}. */
    int[] withoutReplacement(long state, int start, int d, int f) {
        final int[] pick = ensure(f);
        final long[] keys = this.heapKey;
        final float[] weights = this.weights;
        int size = 0;
        for (int j = 0; j < d; j++) {
            state += GOLDEN_GAMMA;
            final long r = SplitMix64.mix(state);
            final float w = weights[start + j];
            final long key;
            if (w > 0) {
                double e = -Math.log(((r >>> 11) + 1) * 0x1.0p-53);
                key = Double.doubleToRawLongBits(e / w); // non-negative doubles order like their bits
            } else {
                key = ZERO_WEIGHT_KEYS | (r >>> 13);
            }
            if (size < f) {
                siftUp(keys, pick, size++, key, j);
            } else if (less(key, j, keys[0], pick[0])) {
                siftDown(keys, pick, size, key, j);
            }
        }
        // Pop the largest to the back: pick[0..f) ends up in ascending key order, the successive-sampling order.
        for (int end = size - 1; end > 0; end--) {
            long topKey = keys[0];
            int topPos = pick[0];
            siftDown(keys, pick, end, keys[end], pick[end]);
            keys[end] = topKey;
            pick[end] = topPos;
        }
        return pick;
    }

    private int[] ensure(int f) {
        if (pick.length < f) {
            pick = new int[Math.max(f, pick.length * 2)];
            heapKey = new long[pick.length];
        }
        return pick;
    }

    /** Key order, ties (almost impossible) by position so the result never depends on heap order. */
    private static boolean less(long keyA, int posA, long keyB, int posB) {
        return keyA < keyB || (keyA == keyB && posA < posB);
    }

    private static void siftUp(long[] keys, int[] pos, int at, long key, int p) {
        while (at > 0) {
            int parent = (at - 1) >>> 1;
            if (!less(keys[parent], pos[parent], key, p)) {
                break;
            }
            keys[at] = keys[parent];
            pos[at] = pos[parent];
            at = parent;
        }
        keys[at] = key;
        pos[at] = p;
    }

    /** Replaces the root of the max-heap {@code [0, size)} by (key, p) and restores the heap. */
    private static void siftDown(long[] keys, int[] pos, int size, long key, int p) {
        int at = 0;
        while (true) {
            int child = 2 * at + 1;
            if (child >= size) {
                break;
            }
            if (child + 1 < size && less(keys[child], pos[child], keys[child + 1], pos[child + 1])) {
                child++;
            }
            if (!less(key, p, keys[child], pos[child])) {
                break;
            }
            keys[at] = keys[child];
            pos[at] = pos[child];
            at = child;
        }
        keys[at] = key;
        pos[at] = p;
    }
}
