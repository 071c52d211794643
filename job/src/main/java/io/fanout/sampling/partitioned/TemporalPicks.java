package io.fanout.sampling.partitioned;

import io.fanout.graph.AliasTable;
import io.fanout.graph.CsrGraph;
import io.fanout.sampling.FloydDraws;
import io.fanout.sampling.WeightedDraws;
import it.unimi.dsi.fastutil.ints.IntArrays;
import java.util.Arrays;

/**
 * The temporal draws ({@code fanout.time-column}) of one node from its own list, for a store that holds lists per
 * node: the list and its edges' times (kept per loaded group, {@link GroupValues}) sorted by time, stably (the
 * in-memory store's {@link io.fanout.graph.CsrGraph#sortedByTime()} order); a tree at seed time {@code T} draws among
 * the edges up to {@code T}, or with strategy {@code last} takes its {@code f} most recent, as
 * {@link io.fanout.sampling.DisjointKHopSampler} does, from the stream {@link NeighborPicks#state} gives (uniform, or
 * with weights {@link WeightedDraws#drawPrefix}): the same neighbours as the in-memory store's.
 */
public final class TemporalPicks {
    private static final long[] NONE = {};

    private TemporalPicks() {}

    /**
     * The list positions in time order, stably (ties keep list order): the in-memory store's
     * {@link io.fanout.graph.CsrGraph#sortedByTime()} order of one node's edges.
     */
    public static int[] timeOrder(long[] times) {
        int[] order = new int[times.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        IntArrays.mergeSort(order, (a, b) -> Long.compare(times[a], times[b]));
        return order;
    }

    /**
     * One node's whole list sorted by time, with its times (and weights and alias table, when weighted): what a
     * lookup caches so a node drawn from again is not read and sorted again. Holds no draw scratch.
     */
    public static final class Node {
        /** Neighbours, times and weights (or null) in time order, ties in list order. */
        private final long[] list;
        private final long[] times;
        private final float[] weights;
        private final AliasTable alias;

        private Node(long[] list, long[] times, float[] weights, AliasTable alias) {
            this.list = list;
            this.times = times;
            this.weights = weights;
            this.alias = alias;
        }

        /**
         * The node of {@code list} with its edges' {@code times} and {@code weights} (or null: unweighted), all in
         * list order.
         *
         * @throws IllegalArgumentException naming the node when a weight is not finite and {@code >= 0}, or all are 0
         */
        public static Node of(long[] list, long[] times, float[] weights, long node) {
            int d = list.length;
            if (times.length != d || (weights != null && weights.length != d)) {
                throw new IllegalArgumentException("node " + node + ": " + times.length + " times for " + d
                        + " neighbours");
            }
            int[] order = timeOrder(times);
            long[] sortedList = new long[d];
            long[] sortedTimes = new long[d];
            float[] sortedWeights = weights == null ? null : new float[d];
            for (int i = 0; i < d; i++) {
                sortedList[i] = list[order[i]];
                sortedTimes[i] = times[order[i]];
                if (weights != null) {
                    sortedWeights[i] = weights[order[i]];
                }
            }
            return ofTimeOrdered(sortedList, sortedTimes, sortedWeights, node);
        }

        /**
         * The node whose {@code list}, {@code times} and {@code weights} (or null) are in time order already
         * ({@link #timeOrder}), kept as they are (not copied): for a caller that keeps more per-edge values in the same
         * order ({@link EdgeListNode}).
         *
         * @throws IllegalArgumentException naming the node when a weight is not finite and {@code >= 0}, or all are 0
         */
        public static Node ofTimeOrdered(long[] list, long[] times, float[] weights, long node) {
            int d = list.length;
            AliasTable alias = weights == null || d == 0 ? null : AliasTable.ofList(weights, d, node);
            return new Node(list, times, weights, alias);
        }

        /** How many of the node's edges have a time {@code <= time}: those first in time order. */
        public int countUpTo(long time) {
            return CsrGraph.countUpTo(times, 0, times.length, time);
        }

        /**
         * The neighbours node {@code nodeId} of tree {@code tree} samples at {@code hop} of a batch whose tree has
         * seed time {@code time}, fanout {@code f} ({@code -1} = all), in draw order (taken whole: time order).
         *
         * @param last strategy {@code last}: the {@code f} most recent edges up to the time, instead of draws
         */
        public long[] sample(long seed, int epoch, int batchId, int hop, int tree, long nodeId, long time, boolean last,
                int f, boolean replace) {
            int[] positions = positions(seed, epoch, batchId, hop, tree, nodeId, time, last, f, replace);
            if (positions.length == 0) {
                return NONE;
            }
            long[] sampled = new long[positions.length];
            for (int c = 0; c < sampled.length; c++) {
                sampled[c] = list[positions[c]];
            }
            return sampled;
        }

        /**
         * {@link #sample}'s picks as positions in this node's time order (its {@link #list()}), for a lookup that
         * also answers with each picked edge's data.
         */
        public int[] positions(long seed, int epoch, int batchId, int hop, int tree, long nodeId, long time,
                boolean last, int f, boolean replace) {
            int d = countUpTo(time);
            int start = 0;
            if (last && f >= 0 && d > f) {
                start = d - f; // the f most recent, then taken whole (or drawn with replacement) as a range
                d = f;
            }
            if (d == 0) {
                return new int[0];
            }
            int[] picks;
            int k;
            if (NeighborPicks.takesAll(d, f, replace)) {
                k = d;
                picks = new int[k];
                for (int c = 0; c < k; c++) {
                    picks[c] = c;
                }
            } else if (alias != null) {
                WeightedDraws draws = new WeightedDraws(weights, alias);
                k = draws.drawPrefix(NeighborPicks.state(seed, epoch, batchId, hop, tree, nodeId), start, d,
                        list.length, f, replace);
                picks = Arrays.copyOf(draws.picks(), k);
            } else {
                k = NeighborPicks.count(d, f, replace);
                picks = new int[k];
                NeighborPicks.draw(seed, epoch, batchId, hop, tree, nodeId, d, f, replace, picks,
                        !replace && FloydDraws.needsSet(d, f) ? new int[FloydDraws.setSize(f)] : null);
            }
            for (int c = 0; c < k; c++) {
                picks[c] += start;
            }
            return picks;
        }


        /** Heap bytes, about: the list and times (16 bytes a neighbour), weights and alias table (12 more), objects. */
        public long bytes() {
            return (alias == null ? 16L : 28L) * list.length + 200;
        }
    }
}
