package io.fanout.flink.partitioned;

import io.fanout.graph.GraphFormatException;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.StableKeySort;
import io.fanout.store.GraphSpec;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * One edge split's stored edges cut into per-node groups, in node order: the buffer of an edge reader
 * ({@link EdgeGroupFunction}, {@link EdgeGroupBatchFunction}), one per subtask, reused from split to split.
 *
 * <p>Heap: a split's stored edges are buffered, up to {@link #BUFFERED_EDGES} (node, neighbour and order key: 24
 * bytes each, 48 while sorted), then sorted by node in arrival order ({@link StableKeySort}: a hash map of per-node
 * lists was the load's largest Java cost) and handed on as groups, a node's run cut every {@link #MAX_GROUP} edges, so
 * no record or state value grows with a node's degree. A node's later groups hold only later rows, which is what
 * {@link EdgeGroup#order} needs.
 */
final class SplitGroups {
    /**
     * Stored edges buffered before the groups are emitted: 2^21 (96 MB at the sort), or fewer on a small heap (at
     * most 1/4096 of the heap in edges, about an 85th of it), since a TaskManager whose heap is smaller than the graph must load it.
     */
    static final int BUFFERED_EDGES = (int) Math.max(1024, Math.min(1 << 21, Runtime.getRuntime().maxMemory() / 4096));
    /** Most edges in one group. */
    static final int MAX_GROUP = 1024;

    /**
     * Receives one group: node {@code node}'s edges {@code neighbors[from, to)}, the first with order key
     * {@code order}, their weights {@code weights[from, to)} (null unless {@code fanout.weight-column}), times
     * {@code times[from, to)} (null unless {@code fanout.time-column}) and input rows {@code eids[from, to)} (null
     * unless {@code fanout.with-edge}).
     */
    @FunctionalInterface
    interface Sink {
        void group(long node, long order, long[] neighbors, float[] weights, long[] times, long[] eids, int from,
                int to);
    }

    private final StableKeySort.Scratch sortScratch = new StableKeySort.Scratch();
    /*
     * Kept from split to split: a new buffer per split grew to the split's size by doubling, three arrays of over a
     * megabyte at each of the last steps, and G1 started a collection for many of them once the heap held a loaded
     * graph (R-MAT 2^18 x 16, p=2, heap backend: young pauses 0.1 s apart during some loads, 23 of a five-job run's
     * pauses caused by such allocations, 10 after keeping it).
     */
    private long[] nodes = new long[1024];
    private long[] neighbors = new long[1024];
    private long[] orders = new long[1024];
    /** Weighted ({@code fanout.weight-column}): each buffered edge's weight, and in node order after the sort. */
    private float[] weights;
    private float[] sortedWeights;
    /** Temporal ({@code fanout.time-column}): each buffered edge's time, and in node order after the sort. */
    private long[] times;
    private long[] sortedTimes;
    /**
     * With edge ids ({@code fanout.with-edge}): each buffered edge's input row, and in node order after the sort; the
     * split's first row (over all parts), the rows read so far and the last row's order key (an undirected row is two
     * stored edges).
     */
    private long[] eids;
    private long[] sortedEids;
    private long firstRow = -1;
    private long rowsRead;
    private long lastOrder;
    private int size;
    private Sink sink;

    /**
     * Reads split {@code splitIndex} of {@code splits} over {@code spec}'s edge files and hands its groups to
     * {@code sink} (a node's groups in list order; a buffer's groups in node order).
     */
    void read(GraphSpec spec, List<GraphLoader.EdgeSplit> splits, long splitIndex, Sink sink) throws IOException {
        read(spec, splits, splitIndex, -1, false, sink);
    }

    /**
     * As above; with {@code firstRow >= 0} each edge carries its input row: {@code firstRow} (the rows of the splits
     * before this one, {@link GraphLoader#splitFirstRows}) plus its row's index in the split; {@code keepWeights}: the
     * weight column's values go with the edges even without {@code fanout.weight-column} (as {@code efeats}).
     */
    void read(GraphSpec spec, List<GraphLoader.EdgeSplit> splits, long splitIndex, long firstRow, boolean keepWeights,
            Sink sink) throws IOException {
        this.sink = sink;
        size = 0;
        this.firstRow = firstRow;
        rowsRead = 0;
        lastOrder = Long.MIN_VALUE;
        if (firstRow >= 0 && eids == null) {
            eids = new long[nodes.length];
            sortedEids = new long[nodes.length];
        }
        if ((spec.weightColumn() != null || keepWeights) && weights == null) {
            weights = new float[nodes.length];
            sortedWeights = new float[nodes.length];
        }
        if (spec.timeColumn() != null && times == null) {
            times = new long[nodes.length];
            sortedTimes = new long[nodes.length];
        }
        try {
            GraphLoader.streamEdges(spec.edges(), spec.typedPart(), spec.directed(),
                    splits.get(Math.toIntExact(splitIndex)), spec.direction(), spec.weightColumn(), spec.timeColumn(),
                    this::add);
            flush();
        } catch (GraphFormatException e) {
            throw LoadFailure.badInput(e);
        } finally {
            this.sink = null;
        }
    }

    private void add(long node, long neighbor, long order, float weight, long time) {
        if (size == nodes.length) {
            int grown = Math.min(BUFFERED_EDGES, nodes.length * 2);
            nodes = Arrays.copyOf(nodes, grown);
            neighbors = Arrays.copyOf(neighbors, grown);
            orders = Arrays.copyOf(orders, grown);
            if (weights != null) {
                weights = Arrays.copyOf(weights, grown);
                sortedWeights = new float[grown];
            }
            if (times != null) {
                times = Arrays.copyOf(times, grown);
                sortedTimes = new long[grown];
            }
            if (eids != null) {
                eids = Arrays.copyOf(eids, grown);
                sortedEids = new long[grown];
            }
        }
        nodes[size] = node;
        neighbors[size] = neighbor;
        orders[size] = order;
        if (weights != null) {
            weights[size] = weight;
        }
        if (times != null) {
            times[size] = time;
        }
        if (firstRow >= 0) {
            if (order != lastOrder) { // a new row (both stored edges of an undirected row share its order key)
                rowsRead++;
                lastOrder = order;
            }
            eids[size] = firstRow + rowsRead - 1;
        }
        if (++size == BUFFERED_EDGES) {
            flush();
        }
    }

    /** Hands on the buffered edges as groups: sorted by (node, arrival), each node's run cut every MAX_GROUP. */
    private void flush() {
        if (size == 0) {
            return;
        }
        // In place, neighbours with their nodes (read in order below): the buffer is refilled from 0 after.
        int[] arrival = StableKeySort.sort(nodes, neighbors, size, sortScratch);
        if (weights != null) {
            for (int i = 0; i < size; i++) {
                sortedWeights[i] = weights[arrival[i]];
            }
        }
        if (times != null) {
            for (int i = 0; i < size; i++) {
                sortedTimes[i] = times[arrival[i]];
            }
        }
        boolean withEids = firstRow >= 0;
        if (withEids) {
            for (int i = 0; i < size; i++) {
                sortedEids[i] = eids[arrival[i]];
            }
        }
        for (int run = 0; run < size; ) {
            long node = nodes[run];
            int end = run + 1;
            while (end < size && end - run < MAX_GROUP && nodes[end] == node) {
                end++;
            }
            sink.group(node, orders[arrival[run]], neighbors, weights == null ? null : sortedWeights,
                    times == null ? null : sortedTimes, withEids ? sortedEids : null, run, end);
            run = end;
        }
        size = 0;
    }
}
