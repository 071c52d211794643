package io.fanout.sampling.partitioned;

import io.fanout.graph.AliasTable;
import io.fanout.sampling.WeightedDraws;
import java.util.Arrays;

/**
 * The weighted draws ({@code fanout.weight-column}) of one node from its own list, for a store that holds lists per
 * node: the weights kept per loaded group under the group's order key ({@link #entry}), put in list order
 * ({@link #inListOrder}), and {@link io.fanout.sampling.KHopSampler}'s weighted draws over them (the node's alias
 * table built alone: {@link AliasTable#ofList}), from the stream {@link NeighborPicks#state} gives: the same positions
 * as the in-memory store's. A node that takes its whole list ({@link NeighborPicks#takesAll}) needs no weights.
 */
public final class WeightedPicks {
    private WeightedPicks() {}

    /** One loaded group's stored weights: {@code [order, bits(w0), bits(w1), ...]} ({@link GroupValues#entry}). */
    public static long[] entry(long order, float[] weights, int from, int to) {
        long[] entry = new long[1 + to - from];
        entry[0] = order;
        for (int i = from; i < to; i++) {
            entry[1 + i - from] = Float.floatToRawIntBits(weights[i]) & 0xffffffffL;
        }
        return entry;
    }

    /**
     * A node's weights in list order from its groups' {@link #entry}s (any order) ({@link GroupValues#inListOrder}).
     *
     * @throws IllegalStateException when they do not hold {@code degree} weights
     */
    public static float[] inListOrder(Iterable<long[]> entries, int degree, long node) {
        long[] bits = GroupValues.inListOrder(entries, degree, node, "weights");
        float[] weights = new float[degree];
        for (int i = 0; i < degree; i++) {
            weights[i] = Float.intBitsToFloat((int) bits[i]);
        }
        return weights;
    }

    /**
     * The {@code f} positions drawn for a node of degree {@code d > 0} with {@code weights} (list order) that does not
     * take its whole list, from the stream {@code state}.
     *
     * @throws IllegalArgumentException naming the node when a weight is not finite and {@code >= 0}, or all are 0
     */
    public static int[] positions(long state, float[] weights, int d, int f, boolean replace, long node) {
        return Node.of(new long[d], weights, node).positions(state, f, replace);
    }

    /**
     * One node's whole list with its weights and alias table, what a lookup caches so a node drawn from again is not
     * read and built again. Holds no draw scratch (each draw makes its own, sized to its fanout), so
     * {@link #bytes} is what it keeps.
     */
    public static final class Node {
        private final long[] list;
        /** The weights and alias table, or null for a node that takes its whole list. */
        private final float[] weights;
        private final AliasTable alias;

        private Node(long[] list, float[] weights, AliasTable alias) {
            this.list = list;
            this.weights = weights;
            this.alias = alias;
        }

        /**
         * @throws IllegalArgumentException naming the node when a weight is not finite and {@code >= 0}, or all are 0
         */
        public static Node of(long[] list, float[] weights, long node) {
            return new Node(list, weights, AliasTable.ofList(weights, list.length, node));
        }

        /** A node that takes its whole list (no draws): the list alone. */
        public static Node listOnly(long[] list) {
            return new Node(list, null, null);
        }

        /** The neighbour list, in list order. */
        public long[] list() {
            return list;
        }

        /** Whether {@link #positions} can draw (not a {@link #listOnly} node). */
        public boolean draws() {
            return alias != null;
        }

        /** The {@code f} positions drawn from the stream {@code state} (the node does not take its whole list). */
        public int[] positions(long state, int f, boolean replace) {
            return Arrays.copyOf(new WeightedDraws(weights, alias).draw(state, 0, list.length, f, replace), f);
        }

        /** Heap bytes, about: the list, with draws its weights and alias table (20 bytes a neighbour), the objects. */
        public long bytes() {
            return (alias == null ? 8L : 20L) * list.length + 160;
        }
    }
}
