package io.fanout.graph;

import java.util.Arrays;

/**
 * Input edges as read, in file order, in primitive arrays; turned into a {@link CsrGraph} by a stable counting sort.
 *
 * <p>Ids are staged as read (int64, possibly sparse); the {@link NodeIdMap} of every id the files mention
 * turns them into dense indices when the CSR is built. An undirected edge is staged once and expanded to both
 * directions only then, so staging costs 16 bytes per input edge (plus 4 for a weight, 8 for a timestamp).
 */
final class EdgeStaging {
    private final boolean weighted;
    private final boolean timed;
    private long[] src;
    private long[] dst;
    private float[] weights;
    private long[] timestamps;
    private int size;
    private long directedEdges;

    EdgeStaging(boolean weighted, boolean timed, long capacityHint) {
        this.weighted = weighted;
        this.timed = timed;
        int capacity = (int) Math.max(1024, Math.min(capacityHint, GraphLoader.MAX_EDGES));
        src = new long[capacity];
        dst = new long[capacity];
        weights = weighted ? new float[capacity] : null;
        timestamps = timed ? new long[capacity] : null;
    }

    boolean weighted() {
        return weighted;
    }

    boolean timed() {
        return timed;
    }

    /** Input rows staged so far. */
    int size() {
        return size;
    }

    /** Directed edges the CSR will hold so far: an undirected non-loop row counts twice. */
    long directedEdges() {
        return directedEdges;
    }

    /** Adds every staged source ({@code sources}) or destination id to {@code ids}. */
    void collectEndpointIds(boolean sources, NodeIdCollector ids) {
        ids.add(sources ? src : dst, size);
    }

    /** Adds every staged endpoint to {@code ids} (the arrays are kept until the map is built). */
    void collectIds(NodeIdCollector ids) {
        ids.add(src, size).add(dst, size);
    }

    /** Lets the capacity grow to at least {@code extra} more rows up front (e.g. from a header's num_edges). */
    void reserve(long extra) {
        long wanted = Math.min((long) size + extra, GraphLoader.MAX_EDGES);
        if (wanted > src.length) {
            resize((int) wanted);
        }
    }

    /**
     * Stages one row. The caller has checked that {@code directedEdges() + directedCost <= MAX_EDGES}.
     *
     * @param directedCost stored edges this row yields (2 for an undirected non-loop edge, else 1)
     */
    void add(long s, long d, float weight, long timestamp, int directedCost) {
        if (size == src.length) {
            grow();
        }
        src[size] = s;
        dst[size] = d;
        if (weighted) {
            weights[size] = weight;
        }
        if (timed) {
            timestamps[size] = timestamp;
        }
        size++;
        directedEdges += directedCost;
    }

    private void grow() {
        // 1.5x keeps the transient copy small; the row limit bounds the array below the JVM maximum.
        long next = Math.min((long) src.length + (src.length >> 1) + 16, GraphLoader.MAX_EDGES);
        if (next <= src.length) {
            throw new IllegalStateException("edge staging full at " + src.length + " rows"); // caller checks first
        }
        resize((int) next);
    }

    private void resize(int capacity) {
        src = Arrays.copyOf(src, capacity);
        dst = Arrays.copyOf(dst, capacity);
        if (weighted) {
            weights = Arrays.copyOf(weights, capacity);
        }
        if (timed) {
            timestamps = Arrays.copyOf(timestamps, capacity);
        }
    }

    /**
     * Builds the CSR: node {@code v}'s neighbours in the order the rows touching {@code v} were read.
     *
     * @param nodes the map of every staged id (and any other node of the graph)
     * @param undirected add every non-loop row in both directions (a self-loop is stored once)
     * @param direction OUT lists src -> dst, IN lists dst -> src (the same for undirected rows)
     * @param keepEdgeIds keep each stored edge's input row (its stable edge id, {@link CsrGraph#edgeIds()})
     */
    CsrGraph build(NodeIdMap nodes, boolean undirected, EdgeDirection direction, boolean keepEdgeIds) {
        return build(nodes, nodes, 0, nodes.size(), undirected, direction, keepEdgeIds);
    }

    /**
     * Builds a CSR from the nodes of {@code keyNodes} to those of {@code valueNodes} (a typed graph's edge type):
     * rows are key indices, a neighbour is {@code valueBase} + its value index, the CSR has {@code numRows} rows.
     * An undirected file must connect one node type ({@code keyNodes == valueNodes}, base 0).
     */
    CsrGraph build(NodeIdMap keyNodes, NodeIdMap valueNodes, int valueBase, int numRows, boolean undirected,
            EdgeDirection direction, boolean keepEdgeIds) {
        if (undirected && (keyNodes != valueNodes || valueBase != 0)) {
            throw new IllegalArgumentException("an undirected edge file must connect nodes of one type");
        }
        int n = size;
        int[] keys = indices(direction == EdgeDirection.OUT ? src : dst, keyNodes);
        int[] values = indices(direction == EdgeDirection.OUT ? dst : src, valueNodes);
        if (valueBase != 0) {
            for (int i = 0; i < n; i++) {
                values[i] += valueBase;
            }
        }
        int numNodes = numRows;
        int[] offsets = new int[numNodes + 1];
        // Count: offsets[v + 1] = degree(v).
        for (int i = 0; i < n; i++) {
            offsets[keys[i] + 1]++;
        }
        if (undirected) {
            for (int i = 0; i < n; i++) {
                if (keys[i] != values[i]) {
                    offsets[values[i] + 1]++;
                }
            }
        }
        // Prefix sum: offsets[v] = start(v).
        for (int v = 1; v <= numNodes; v++) {
            offsets[v] += offsets[v - 1];
        }
        int m = offsets[numNodes];
        int[] targets = new int[m];
        float[] w = weighted ? new float[m] : null;
        long[] t = timed ? new long[m] : null;
        int[] e = keepEdgeIds ? new int[m] : null;
        // Scatter in row order (stable), using offsets[v] as v's write cursor; afterwards offsets[v] = end(v).
        for (int i = 0; i < n; i++) {
            int a = keys[i];
            int b = values[i];
            int at = offsets[a]++;
            targets[at] = b;
            copyEdgeData(i, at, w, t, e);
            if (undirected && a != b) {
                at = offsets[b]++;
                targets[at] = a;
                copyEdgeData(i, at, w, t, e);
            }
        }
        // Shift back: end(v - 1) is start(v).
        for (int v = numNodes; v > 0; v--) {
            offsets[v] = offsets[v - 1];
        }
        offsets[0] = 0;
        return new CsrGraph(offsets, targets, w, t, e, direction);
    }

    private void copyEdgeData(int row, int at, float[] w, long[] t, int[] e) {
        if (w != null) {
            w[at] = weights[row];
        }
        if (t != null) {
            t[at] = timestamps[row];
        }
        if (e != null) {
            e[at] = row;
        }
    }

    /**
     * The first staged row (0-based) that gives node {@code v} a neighbour in {@code direction}, or -1: for
     * errors about a node's neighbourhood, which name the line of its first edge.
     */
    long firstRowOf(int v, NodeIdMap nodes, EdgeDirection direction, boolean undirected) {
        long id = nodes.id(v);
        long[] from = direction == EdgeDirection.OUT ? src : dst;
        long[] to = direction == EdgeDirection.OUT ? dst : src;
        for (int i = 0; i < size; i++) {
            if (from[i] == id || (undirected && to[i] == id)) {
                return i;
            }
        }
        return -1;
    }

    /** The staged ids as node indices (the map holds every staged id). */
    private int[] indices(long[] ids, NodeIdMap nodes) {
        int[] out = new int[size];
        if (nodes.isIdentity()) {
            for (int i = 0; i < size; i++) {
                out[i] = (int) ids[i];
            }
        } else {
            for (int i = 0; i < size; i++) {
                out[i] = nodes.indexOf(ids[i]);
            }
        }
        return out;
    }
}
