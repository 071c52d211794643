package io.fanout.sampling.partitioned;

import io.fanout.sampling.FloydDraws;

/**
 * One node's whole list with each edge's data ({@code --with-edge}: its input row, and its weight and time when the
 * graph has them), for a lookup that answers with the sampled edges' data: the picks are the ones the lookup draws
 * without edge data ({@link NeighborPicks}, {@link WeightedPicks}, {@link TemporalPicks}), as positions, so every
 * sampled neighbour comes with the data of the very edge it was drawn through (the in-memory store gathers them by CSR
 * position). A temporal node keeps its arrays in time order, ties in list order, as {@link TemporalPicks} draws.
 */
public final class EdgeListNode {
    private final long[] list;
    private final long[] eids;
    private final float[] weights;
    /** Whether the draws are in proportion to {@link #weights}. */
    private final boolean drawByWeight;
    private final long[] times;
    /**
     * Weighted, not temporal: the draws, built at the first draw (a node always taken whole never checks its weights,
     * as the lookup without edge data does not).
     */
    private WeightedPicks.Node weighted;
    /** Temporal: the draws over the time-ordered arrays. */
    private final TemporalPicks.Node temporal;

    private EdgeListNode(long[] list, long[] eids, float[] weights, boolean drawByWeight, long[] times,
            TemporalPicks.Node temporal) {
        this.list = list;
        this.eids = eids;
        this.weights = weights;
        this.drawByWeight = drawByWeight;
        this.times = times;
        this.temporal = temporal;
    }

    /**
     * The node of {@code list} with its edges' {@code eids}, {@code weights} (null: none) and {@code times} (null: not
     * temporal), all in list order; {@code drawByWeight}: the draws are in proportion to the weights, else uniform
     * (the weights are then the edges' data only).
     *
     * @throws IllegalArgumentException naming the node when the arrays disagree in length, or (weighted and temporal)
     *     a weight is not finite and {@code >= 0} or all are 0
     */
    public static EdgeListNode of(long[] list, long[] eids, float[] weights, boolean drawByWeight, long[] times,
            long node) {
        int d = list.length;
        if (eids.length != d || (weights != null && weights.length != d) || (times != null && times.length != d)) {
            throw new IllegalArgumentException("node " + node + ": " + eids.length + " edge ids for " + d
                    + " neighbours");
        }
        if (times == null) {
            return new EdgeListNode(list, eids, weights, drawByWeight, null, null);
        }
        int[] order = TemporalPicks.timeOrder(times);
        long[] sortedList = new long[d];
        long[] sortedEids = new long[d];
        long[] sortedTimes = new long[d];
        float[] sortedWeights = weights == null ? null : new float[d];
        for (int i = 0; i < d; i++) {
            sortedList[i] = list[order[i]];
            sortedEids[i] = eids[order[i]];
            sortedTimes[i] = times[order[i]];
            if (weights != null) {
                sortedWeights[i] = weights[order[i]];
            }
        }
        return new EdgeListNode(sortedList, sortedEids, sortedWeights, drawByWeight, sortedTimes,
                TemporalPicks.Node.ofTimeOrdered(sortedList, sortedTimes, drawByWeight ? sortedWeights : null, node));
    }

    /**
     * The positions (into {@link #list()}) node {@code nodeId} samples at {@code hop} with fanout {@code f}
     * ({@code -1} = all), in draw order: in tree {@code tree} ({@code -1}: not disjoint) and, temporal, up to
     * {@code time} ({@code last}: the most recent edges).
     *
     * @throws IllegalArgumentException naming the node when its weights cannot be drawn from (all 0, or not finite)
     */
    public int[] positions(long seed, int epoch, int batchId, int hop, int tree, long nodeId, long time, boolean last,
            int f, boolean replace) {
        if (temporal != null) {
            return temporal.positions(seed, epoch, batchId, hop, tree, nodeId, time, last, f, replace);
        }
        int d = list.length;
        int k = NeighborPicks.count(d, f, replace);
        if (k == 0) {
            return new int[0]; // no edges (with replacement a node of degree 0 does not take its whole list)
        }
        if (drawByWeight && !NeighborPicks.takesAll(d, f, replace)) {
            if (weighted == null) {
                weighted = WeightedPicks.Node.of(list, weights, nodeId);
            }
            return weighted.positions(NeighborPicks.state(seed, epoch, batchId, hop, tree, nodeId), f, replace);
        }
        int[] out = new int[k];
        if (k > 0) {
            NeighborPicks.draw(seed, epoch, batchId, hop, tree, nodeId, d, f, replace, out,
                    !replace && !NeighborPicks.takesAll(d, f, replace) && FloydDraws.needsSet(d, f)
                            ? new int[FloydDraws.setSize(f)] : null);
        }
        return out;
    }

    /** The neighbours (time order when temporal); the arrays themselves: do not change them. */
    public long[] list() {
        return list;
    }

    /** Each edge's input row, aligned with {@link #list()}. */
    public long[] eids() {
        return eids;
    }

    /** Each edge's weight, aligned with {@link #list()}, or null. */
    public float[] weights() {
        return weights;
    }

    /** Each edge's time, aligned with {@link #list()}, or null. */
    public long[] times() {
        return times;
    }

    /**
     * Heap bytes, about: list and ids (16 a neighbour), weights (4) and times (8), the alias table of weighted draws
     * (8, counted ahead of the first draw), the objects. The temporal draws share these arrays.
     */
    public long bytes() {
        long d = list.length;
        return 16 * d + (weights == null ? 0 : 4 * d) + (times == null ? 0 : 8 * d) + (drawByWeight ? 8 * d : 0) + 300;
    }
}
