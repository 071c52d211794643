package io.fanout.flink.partitioned;

import io.fanout.graph.GraphFormatException;
import io.fanout.graph.GraphLoader;
import io.fanout.store.GraphSpec;
import it.unimi.dsi.fastutil.longs.Long2ObjectMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * {@link EdgeFileFunction} for the k-hop lookups: one edge split's stored edges grouped by node ({@link EdgeGroup}),
 * so one record and one state write carry a node's run of edges instead of one edge (a per-edge record and RocksDB
 * put bounded the load). One split is emitted whole before the next element or checkpoint barrier, so a restore
 * never loads a split twice.
 *
 * <p>Heap: rows are buffered per node up to {@link #BUFFERED_EDGES} stored edges in all, then every buffered group
 * is emitted; a node's group is also emitted when it reaches {@link #MAX_GROUP} edges, so no record or state value
 * grows with a node's degree. A node's later groups hold only later rows, which is what {@link EdgeGroup#order}
 * needs.
 */
public class EdgeGroupFunction implements FlatMapFunction<Long, EdgeGroup> {
    private static final long serialVersionUID = 1L;
    /**
     * Stored edges buffered before the groups are emitted: 2^21, or fewer on a small heap (about 8 bytes each, and up
     * to about 120 when every edge has its own node: at most 1/4096 of the heap in edges, a 32nd of it per reader), since a
     * TaskManager whose heap is smaller than the graph must load it.
     */
    static final int BUFFERED_EDGES = (int) Math.max(1024, Math.min(1 << 21, Runtime.getRuntime().maxMemory() / 4096));
    /** Most edges in one group. */
    static final int MAX_GROUP = 1024;

    private final GraphSpec spec;
    private final java.util.ArrayList<GraphLoader.EdgeSplit> splits;

    /** @param splits the graph's edge splits ({@link PartitionedKHop#edgeSplits}); an input element is an index into them */
    public EdgeGroupFunction(GraphSpec spec, java.util.List<GraphLoader.EdgeSplit> splits) {
        this.spec = spec;
        this.splits = new java.util.ArrayList<>(splits);
    }

    @Override
    public void flatMap(Long splitIndex, Collector<EdgeGroup> out) throws Exception {
        try {
            Groups groups = new Groups(out);
            GraphLoader.streamEdges(spec.edges(), spec.directed(), splits.get(Math.toIntExact(splitIndex)), spec.direction(),
                    groups::add);
            groups.flush();
        } catch (GraphFormatException e) {
            throw LoadFailure.badInput(e);
        }
    }

    /** One node's buffered edges: its first edge's order key and the neighbours in row order. */
    private static final class Pending {
        final long order;
        final LongArrayList neighbors = new LongArrayList(4);

        Pending(long order) {
            this.order = order;
        }
    }

    /** The buffer of one part's read. */
    private static final class Groups {
        private final Collector<EdgeGroup> out;
        private final Long2ObjectOpenHashMap<Pending> byNode = new Long2ObjectOpenHashMap<>();
        private int buffered;

        Groups(Collector<EdgeGroup> out) {
            this.out = out;
        }

        void add(long node, long neighbor, long order) {
            Pending pending = byNode.get(node);
            if (pending == null) {
                pending = new Pending(order);
                byNode.put(node, pending);
            }
            pending.neighbors.add(neighbor);
            if (pending.neighbors.size() == MAX_GROUP) {
                byNode.remove(node);
                buffered -= MAX_GROUP - 1;
                out.collect(new EdgeGroup(node, pending.order, pending.neighbors.toLongArray()));
            } else if (++buffered == BUFFERED_EDGES) {
                flush();
            }
        }

        void flush() {
            for (Long2ObjectMap.Entry<Pending> e : byNode.long2ObjectEntrySet()) {
                out.collect(new EdgeGroup(e.getLongKey(), e.getValue().order, e.getValue().neighbors.toLongArray()));
            }
            byNode.clear();
            byNode.trim();
            buffered = 0;
        }
    }
}
