package io.fanout.graph;

import java.util.Objects;

/**
 * Immutable compressed-sparse-row adjacency for one edge direction: the store every sampler reads.
 *
 * <p>Nodes are dense indices {@code 0..numNodes-1} (a {@link NodeIdMap} turns them into the graph's ids). The neighbours of node {@code v} are
 * {@code targets[offsets[v] .. offsets[v+1])}, in the order the edge file listed them (so a load is
 * deterministic). Optional per-edge columns are parallel to {@code targets}. The arrays are shared,
 * never copied: callers must not write to them.
 *
 * <p>Heap cost: 4 bytes per directed edge ({@code int} target) plus 4 bytes per node ({@code int}
 * offset); a weight column adds 4 bytes per edge ({@code float}), a timestamp column 8 ({@code long}), kept
 * edge ids 4 ({@code int}: the input row, shared by both directions of an undirected edge).
 */
public final class CsrGraph {
    private final int[] offsets;
    private final int[] targets;
    private final float[] weights;
    private final long[] timestamps;
    private final int[] edgeIds;
    private final EdgeDirection direction;

    /**
     * @param offsets length numNodes+1, non-decreasing, offsets[0] = 0, last = targets.length
     * @param targets neighbour ids in {@code [0, numNodes)}
     * @param weights per-edge weights parallel to targets, or null
     * @param timestamps per-edge timestamps parallel to targets, or null
     * @param direction the direction these adjacency lists expand in
     */
    public CsrGraph(int[] offsets, int[] targets, float[] weights, long[] timestamps, EdgeDirection direction) {
        this(offsets, targets, weights, timestamps, null, direction);
    }

    /**
     * @param edgeIds per-edge stable ids (the edge's 0-based row in the input, over all parts) parallel to
     *     targets, or null
     */
    public CsrGraph(int[] offsets, int[] targets, float[] weights, long[] timestamps, int[] edgeIds,
            EdgeDirection direction) {
        this.offsets = Objects.requireNonNull(offsets, "offsets");
        this.targets = Objects.requireNonNull(targets, "targets");
        this.direction = Objects.requireNonNull(direction, "direction");
        if (offsets.length < 1 || offsets[0] != 0 || offsets[offsets.length - 1] != targets.length) {
            throw new IllegalArgumentException("offsets must start at 0 and end at targets.length");
        }
        if (weights != null && weights.length != targets.length) {
            throw new IllegalArgumentException("weights must be parallel to targets");
        }
        if (timestamps != null && timestamps.length != targets.length) {
            throw new IllegalArgumentException("timestamps must be parallel to targets");
        }
        if (edgeIds != null && edgeIds.length != targets.length) {
            throw new IllegalArgumentException("edgeIds must be parallel to targets");
        }
        this.weights = weights;
        this.timestamps = timestamps;
        this.edgeIds = edgeIds;
    }

    public int numNodes() {
        return offsets.length - 1;
    }

    /** Number of stored (directed) edges: an undirected input edge counts twice, a self-loop once. */
    public int numEdges() {
        return targets.length;
    }

    public int degree(int node) {
        return offsets[node + 1] - offsets[node];
    }

    /** Position of node's first neighbour in {@link #targets()}. */
    public int start(int node) {
        return offsets[node];
    }

    /** Position one past node's last neighbour in {@link #targets()}. */
    public int end(int node) {
        return offsets[node + 1];
    }

    /** The shared offsets array (length numNodes+1); read-only by contract. */
    public int[] offsets() {
        return offsets;
    }

    /** The shared neighbour array; read-only by contract. */
    public int[] targets() {
        return targets;
    }

    /** Per-edge weights parallel to {@link #targets()}, or null when the graph has none. */
    public float[] weights() {
        return weights;
    }

    /** Per-edge timestamps parallel to {@link #targets()}, or null when the graph has none. */
    public long[] timestamps() {
        return timestamps;
    }

    /**
     * Per-edge stable ids parallel to {@link #targets()} (the input row of the edge, 0-based over all parts
     * in read order; both directions of an undirected row share it), or null when not kept.
     */
    public int[] edgeIds() {
        return edgeIds;
    }

    public boolean hasEdgeIds() {
        return edgeIds != null;
    }

    public boolean hasWeights() {
        return weights != null;
    }

    public boolean hasTimestamps() {
        return timestamps != null;
    }

    public EdgeDirection direction() {
        return direction;
    }

    /** True if {@code from} has {@code to} among its neighbours (linear scan; for tests and checks). */
    public boolean hasEdge(int from, int to) {
        for (int i = offsets[from], e = offsets[from + 1]; i < e; i++) {
            if (targets[i] == to) {
                return true;
            }
        }
        return false;
    }

    /**
     * This graph with every node's neighbours in ascending timestamp order (ties keep their file order), so the
     * neighbours up to a time are a prefix of the list (temporal sampling). The arrays are permuted copies;
     * the weights and edge ids follow their edges.
     *
     * @throws IllegalStateException if the graph has no timestamps
     */
    public CsrGraph sortedByTime() {
        if (timestamps == null) {
            throw new IllegalStateException("the graph has no timestamps to sort by");
        }
        int m = targets.length;
        int[] t2 = new int[m];
        long[] ts2 = new long[m];
        float[] w2 = weights == null ? null : new float[m];
        int[] e2 = edgeIds == null ? null : new int[m];
        Integer[] order = new Integer[0];
        for (int v = 0; v < numNodes(); v++) {
            int start = offsets[v];
            int d = offsets[v + 1] - start;
            if (order.length < d) {
                order = new Integer[Math.max(d, order.length * 2)];
            }
            for (int c = 0; c < d; c++) {
                order[c] = start + c;
            }
            java.util.Arrays.sort(order, 0, d, (a, b) -> Long.compare(timestamps[a], timestamps[b])); // stable
            for (int c = 0; c < d; c++) {
                int from = order[c];
                t2[start + c] = targets[from];
                ts2[start + c] = timestamps[from];
                if (w2 != null) {
                    w2[start + c] = weights[from];
                }
                if (e2 != null) {
                    e2[start + c] = edgeIds[from];
                }
            }
        }
        return new CsrGraph(offsets, t2, w2, ts2, e2, direction);
    }

    /**
     * How many of node {@code v}'s first neighbours (in {@link #sortedByTime()} order) have a timestamp
     * {@code <= time}: a binary search.
     */
    public int countUpTo(int v, long time) {
        return countUpTo(timestamps, offsets[v], offsets[v + 1], time);
    }

    /** How many of the ascending {@code times[from, to)} are {@code <= time}: a binary search. */
    public static int countUpTo(long[] times, int from, int to, long time) {
        int lo = from;
        int hi = to;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (times[mid] <= time) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo - from;
    }

    /**
     * The range of node {@code v}'s time-sorted neighbours a temporal tree at {@code time} draws from, packed as
     * {@code start << 32 | count}: the prefix up to the time, or with strategy {@code last} and fanout {@code f >= 0}
     * its {@code f} most recent edges (PyG's temporal_strategy).
     */
    public long temporalRange(int v, long time, boolean last, int f) {
        int start = offsets[v];
        int d = countUpTo(v, time);
        if (last && f >= 0 && d > f) {
            start += d - f; // the f most recent, then taken whole
            d = f;
        }
        return (long) start << 32 | d;
    }

    /** Heap bytes held by this store's arrays (array headers included). */
    public long heapBytes() {
        long bytes = arrayBytes(offsets.length, 4) + arrayBytes(targets.length, 4);
        if (weights != null) {
            bytes += arrayBytes(weights.length, 4);
        }
        if (timestamps != null) {
            bytes += arrayBytes(timestamps.length, 8);
        }
        if (edgeIds != null) {
            bytes += arrayBytes(edgeIds.length, 4);
        }
        return bytes + 32; // the object itself
    }

    private static long arrayBytes(long length, int elementBytes) {
        return 16 + length * elementBytes;
    }

    @Override
    public String toString() {
        return "CsrGraph{nodes=" + numNodes() + ", edges=" + numEdges() + ", direction=" + direction
                + ", weights=" + hasWeights() + ", timestamps=" + hasTimestamps() + "}";
    }
}
