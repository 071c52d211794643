package io.fanout.graph;

import java.util.Arrays;

/**
 * Sorts int64 keys stably (equal keys keep their input order) and returns the permutation: a least-significant-digit
 * radix sort over only the bits that the keys' range spans.
 *
 * <p>Why not a library sort: fastutil's radix sorts are most-significant-digit first over all 64 bits, so a buffer of
 * node ids below 2^18 pays for five empty byte levels and, to be stable, sorts (key, index) pairs down to the index's
 * bytes. Sorting a partitioned load's split of 2^20 stored edges by node (R-MAT 2^18, in a p=2 heap-backend job)
 * took 175-404 ms that way (2.3 s for the job's eight) and takes 29-187 ms here, neighbours carried along (0.6-0.8 s):
 * two passes of simple loops for such ids.
 */
public final class StableKeySort {
    /**
     * Most bits per pass: 2^11 counters stay in the L1 cache. The passes split the keys' bits evenly (18 bits as 9 +
     * 9, not 11 + 7): a pass scatters into one write stream per digit for each moved array, and 2^11 of them cost
     * twice 2^9 (2^20 keys below 2^18 with values: 22 ns a key as 11 + 7, 12 as 9 + 9).
     */
    private static final int DIGIT_BITS = 11;

    private StableKeySort() {}

    /**
     * Sorts {@code keys[0..n)} ascending in place and returns {@code order}: {@code order[i]} is the input index of
     * the key now at {@code i}. Among equal keys, {@code order} ascends (the sort is stable).
     */
    public static int[] sort(long[] keys, int n) {
        return sort(keys, null, n);
    }

    /**
     * As {@link #sort(long[], int)}, and moves {@code values[0..n)} (when not null) with their keys, so a caller
     * reads them in key order sequentially rather than through {@code order} (a random read each).
     */
    public static int[] sort(long[] keys, long[] values, int n) {
        return sort(keys, values, n, new Scratch());
    }

    /**
     * Working arrays one caller reuses from sort to sort. A loader sorting buffer after buffer allocated four
     * arrays of the buffer's length per sort, each over a megabyte for a full buffer, and the JVM's collector
     * (G1) started a collection for many such allocations once the heap held a loaded graph.
     */
    public static final class Scratch {
        private int[] order = new int[0];
        private int[] orderOut = new int[0];
        private long[] keysOut = new long[0];
        private long[] valuesOut = new long[0];

        private void ensure(int n, boolean values) {
            if (order.length < n) {
                order = new int[n];
                orderOut = new int[n];
                keysOut = new long[n];
            }
            if (values && valuesOut.length < n) {
                valuesOut = new long[n];
            }
        }
    }

    /**
     * As {@link #sort(long[], long[], int)}, in {@code scratch}'s arrays: the order is the first {@code n} entries of
     * the returned array, one of the scratch's (it may be longer), valid until the next sort with the same scratch.
     */
    public static int[] sort(long[] keys, long[] values, int n, Scratch scratch) {
        scratch.ensure(n, values != null);
        int[] order = scratch.order;
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        if (n < 2) {
            return order;
        }
        long min = keys[0];
        long max = keys[0];
        for (int i = 1; i < n; i++) {
            min = Math.min(min, keys[i]);
            max = Math.max(max, keys[i]);
        }
        // key - min, read as unsigned, lies in [0, max - min] even where that difference overflows a signed long.
        int bits = 64 - Long.numberOfLeadingZeros(max - min);
        long[] keysIn = keys;
        int[] orderIn = order;
        long[] keysOut = scratch.keysOut;
        long[] valuesIn = values;
        long[] valuesOut = values == null ? null : scratch.valuesOut;
        int[] orderOut = scratch.orderOut;
        int passes = (bits + DIGIT_BITS - 1) / DIGIT_BITS;
        int digitBits = passes == 0 ? 0 : (bits + passes - 1) / passes;
        int radix = 1 << digitBits;
        int[] counts = new int[radix];
        for (int shift = 0; shift < bits; shift += digitBits) {
            Arrays.fill(counts, 0);
            for (int i = 0; i < n; i++) {
                counts[(int) ((keysIn[i] - min) >>> shift) & (radix - 1)]++;
            }
            int sum = 0;
            for (int d = 0; d < radix; d++) {
                int c = counts[d];
                counts[d] = sum;
                sum += c;
            }
            for (int i = 0; i < n; i++) {
                int at = counts[(int) ((keysIn[i] - min) >>> shift) & (radix - 1)]++;
                keysOut[at] = keysIn[i];
                orderOut[at] = orderIn[i];
                if (valuesIn != null) {
                    valuesOut[at] = valuesIn[i];
                }
            }
            long[] k = keysIn;
            keysIn = keysOut;
            keysOut = k;
            long[] v = valuesIn;
            valuesIn = valuesOut;
            valuesOut = v;
            int[] o = orderIn;
            orderIn = orderOut;
            orderOut = o;
        }
        if (keysIn != keys) { // an odd number of passes left the result in the scratch arrays
            System.arraycopy(keysIn, 0, keys, 0, n);
            if (values != null) {
                System.arraycopy(valuesIn, 0, values, 0, n);
            }
        }
        return orderIn;
    }
}
