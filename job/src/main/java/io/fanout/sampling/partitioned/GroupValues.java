package io.fanout.sampling.partitioned;

import java.util.Comparator;

/**
 * Per-edge values (weights, times) kept per loaded group of a node's list under the group's order key, and put back
 * in list order: a store that holds lists per node appends each group's values blindly while loading, in any order.
 */
public final class GroupValues {
    private GroupValues() {}

    /** One loaded group's values {@code values[from, to)}: {@code [order, v0, v1, ...]}. */
    public static long[] entry(long order, long[] values, int from, int to) {
        long[] entry = new long[1 + to - from];
        entry[0] = order;
        System.arraycopy(values, from, entry, 1, to - from);
        return entry;
    }

    /**
     * A node's values in list order from its groups' {@link #entry}s (any order): sorted by order key, as the group
     * index orders the groups.
     *
     * @param what the values' name, for the error
     * @throws IllegalStateException when they do not hold {@code degree} values
     */
    public static long[] inListOrder(Iterable<long[]> entries, int degree, long node, String what) {
        java.util.List<long[]> sorted = new java.util.ArrayList<>();
        long count = 0;
        for (long[] e : entries) {
            sorted.add(e);
            count += e.length - 1;
        }
        if (count != degree) {
            throw new IllegalStateException("node " + node + ": " + count + " stored " + what + " for " + degree
                    + " neighbours");
        }
        sorted.sort(Comparator.comparingLong(e -> e[0]));
        long[] values = new long[degree];
        int at = 0;
        for (long[] e : sorted) {
            System.arraycopy(e, 1, values, at, e.length - 1);
            at += e.length - 1;
        }
        return values;
    }
}
