package io.fanout.flink.partitioned;

import io.fanout.graph.GraphLoader;
import io.fanout.store.GraphSpec;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * The k-hop load's edge reader: one edge split's groups ({@link SplitGroups}) sent as one {@link EdgeGroupBatch} per
 * lookup subtask that owns their nodes (Flink's key-group assignment at this reader's parallelism and max parallelism,
 * which the lookups share: {@link RequestRouting#subtaskOf}), cut at {@link #MAX_EDGES} edges. A record per group
 * paid its serialisation, the broadcast's copy to the second hop's lookup, the exchange and the key selection per
 * group; R-MAT 2^18 x 16 has about 390 k groups per lookup subtask and hop, most of one to a few edges. One split is
 * emitted whole before the next element or checkpoint barrier, so a restore never loads a split twice.
 */
public class EdgeGroupBatchFunction extends RichFlatMapFunction<Long, EdgeGroupBatch> {
    private static final long serialVersionUID = 1L;
    /** Most edges in one record (a group is never split: a record can hold up to {@link SplitGroups#MAX_GROUP} more). */
    static final int MAX_EDGES = 1 << 14;

    private final GraphSpec spec;
    private final java.util.ArrayList<GraphLoader.EdgeSplit> splits;
    /** With edge ids ({@code fanout.with-edge}): each split's first input row ({@link GraphLoader#splitFirstRows}). */
    private final long[] firstRows;
    /** With edge ids: the weight column's values go with the edges (as {@code efeats}) even unweighted. */
    private final boolean edgeWeights;
    private transient SplitGroups groups;
    private transient Builder[] builders;
    private transient int maxParallelism;

    /** @param splits the graph's edge splits ({@link PartitionedKHop#edgeSplits}); an input element is an index into them */
    public EdgeGroupBatchFunction(GraphSpec spec, java.util.List<GraphLoader.EdgeSplit> splits) {
        this(spec, splits, null, false);
    }

    /**
     * As above; with {@code firstRows} (each split's first input row) every edge carries its input row, and with
     * {@code edgeWeights} its weight column's value.
     */
    public EdgeGroupBatchFunction(GraphSpec spec, java.util.List<GraphLoader.EdgeSplit> splits, long[] firstRows,
            boolean edgeWeights) {
        this.spec = spec;
        this.splits = new java.util.ArrayList<>(splits);
        this.firstRows = firstRows;
        this.edgeWeights = edgeWeights;
    }

    @Override
    public void open(OpenContext context) {
        TaskInfo task = getRuntimeContext().getTaskInfo();
        maxParallelism = task.getMaxNumberOfParallelSubtasks();
        builders = new Builder[task.getNumberOfParallelSubtasks()];
        for (int s = 0; s < builders.length; s++) {
            builders[s] = new Builder();
        }
        groups = new SplitGroups();
    }

    @Override
    public void flatMap(Long splitIndex, Collector<EdgeGroupBatch> out) throws Exception {
        long firstRow = firstRows == null ? -1 : firstRows[Math.toIntExact(splitIndex)];
        groups.read(spec, splits, splitIndex, firstRow, edgeWeights,
                (node, order, neighbors, weights, times, eids, from, to) -> {
                    Builder b = builders[builders.length == 1 ? 0
                            : RequestRouting.subtaskOf(node, maxParallelism, builders.length)];
                    b.add(node, order, neighbors, weights, times, eids, from, to);
                    if (b.neighbors.size() >= MAX_EDGES) {
                        out.collect(b.take());
                    }
                });
        for (Builder b : builders) {
            if (!b.nodes.isEmpty()) {
                out.collect(b.take());
            }
        }
    }

    /** One lookup subtask's groups so far. */
    private static final class Builder {
        final LongArrayList nodes = new LongArrayList();
        final LongArrayList orders = new LongArrayList();
        final IntArrayList ends = new IntArrayList();
        final LongArrayList neighbors = new LongArrayList();
        final it.unimi.dsi.fastutil.floats.FloatArrayList weights = new it.unimi.dsi.fastutil.floats.FloatArrayList();
        final LongArrayList times = new LongArrayList();
        final LongArrayList eids = new LongArrayList();
        boolean weighted;
        boolean timed;
        boolean withEids;

        void add(long node, long order, long[] from, float[] fromWeights, long[] fromTimes, long[] fromEids, int start,
                int end) {
            nodes.add(node);
            orders.add(order);
            neighbors.addElements(neighbors.size(), from, start, end - start);
            ends.add(neighbors.size());
            if (fromWeights != null) {
                weighted = true;
                weights.addElements(weights.size(), fromWeights, start, end - start);
            }
            if (fromTimes != null) {
                timed = true;
                times.addElements(times.size(), fromTimes, start, end - start);
            }
            if (fromEids != null) {
                withEids = true;
                eids.addElements(eids.size(), fromEids, start, end - start);
            }
        }

        EdgeGroupBatch take() {
            EdgeGroupBatch batch = new EdgeGroupBatch(nodes.toLongArray(), orders.toLongArray(), ends.toIntArray(),
                    neighbors.toLongArray());
            if (weighted) {
                batch.weights = weights.toFloatArray();
            }
            if (timed) {
                batch.times = times.toLongArray();
            }
            if (withEids) {
                batch.eids = eids.toLongArray();
            }
            nodes.clear();
            orders.clear();
            ends.clear();
            neighbors.clear();
            weights.clear();
            times.clear();
            eids.clear();
            return batch;
        }
    }
}
