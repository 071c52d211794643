package io.fanout.flink.partitioned;

import io.fanout.graph.GraphFormatException;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.StableKeySort;
import io.fanout.store.GraphSpec;
import java.util.Arrays;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * {@link EdgeFileFunction} for the k-hop lookups: one edge split's stored edges grouped by node ({@link EdgeGroup}),
 * so one record and one state write carry a node's run of edges instead of one edge (a per-edge record and RocksDB
 * put bounded the load). One split is emitted whole before the next element or checkpoint barrier, so a restore
 * never loads a split twice.
 *
 * <p>Heap: a split's stored edges are buffered, up to {@link #BUFFERED_EDGES} (node, neighbour and order key: 24
 * bytes each, 48 while sorted), then sorted by node in arrival order ({@link StableKeySort}: a hash map of per-node lists
 * was the load's largest Java cost) and emitted as groups, a node's run cut every {@link #MAX_GROUP} edges, so no
 * record or state value grows with a node's degree. A node's later groups hold only later rows, which is what
 * {@link EdgeGroup#order} needs.
 */
public class EdgeGroupFunction implements FlatMapFunction<Long, EdgeGroup> {
    private static final long serialVersionUID = 1L;
    /**
     * Stored edges buffered before the groups are emitted: 2^21 (96 MB at the sort), or fewer on a small heap (at
     * most 1/4096 of the heap in edges, about an 85th of it), since a TaskManager whose heap is smaller than the graph must load it.
     */
    static final int BUFFERED_EDGES = (int) Math.max(1024, Math.min(1 << 21, Runtime.getRuntime().maxMemory() / 4096));
    /** Most edges in one group. */
    static final int MAX_GROUP = 1024;

    private final GraphSpec spec;
    private final java.util.ArrayList<GraphLoader.EdgeSplit> splits;
    /**
     * The split buffer, kept from split to split: a new one per split grew to the split's size by doubling, three
     * arrays of over a megabyte at each of the last steps, and G1 started a collection for many of them once the
     * heap held a loaded graph (R-MAT 2^18 x 16, p=2, heap backend: young pauses 0.1 s apart during some loads, 23
     * of a five-job run's pauses caused by such allocations, 10 after this change).
     */
    private transient Groups groups;

    /** @param splits the graph's edge splits ({@link PartitionedKHop#edgeSplits}); an input element is an index into them */
    public EdgeGroupFunction(GraphSpec spec, java.util.List<GraphLoader.EdgeSplit> splits) {
        this.spec = spec;
        this.splits = new java.util.ArrayList<>(splits);
    }

    @Override
    public void flatMap(Long splitIndex, Collector<EdgeGroup> out) throws Exception {
        try {
            if (groups == null) {
                groups = new Groups();
            }
            groups.start(out);
            GraphLoader.streamEdges(spec.edges(), spec.typedPart(), spec.directed(), splits.get(Math.toIntExact(splitIndex)), spec.direction(),
                    groups::add);
            groups.flush();
        } catch (GraphFormatException e) {
            throw LoadFailure.badInput(e);
        }
    }

    /** The buffer of a split's read (one per subtask, reused by the next split). */
    private static final class Groups {
        private Collector<EdgeGroup> out;
        private final StableKeySort.Scratch sortScratch = new StableKeySort.Scratch();
        private long[] nodes = new long[1024];
        private long[] neighbors = new long[1024];
        private long[] orders = new long[1024];
        private int size;

        /** Starts a split's read: its groups go to {@code out}. */
        void start(Collector<EdgeGroup> out) {
            this.out = out;
            size = 0;
        }

        void add(long node, long neighbor, long order) {
            if (size == nodes.length) {
                int grown = Math.min(BUFFERED_EDGES, nodes.length * 2);
                nodes = Arrays.copyOf(nodes, grown);
                neighbors = Arrays.copyOf(neighbors, grown);
                orders = Arrays.copyOf(orders, grown);
            }
            nodes[size] = node;
            neighbors[size] = neighbor;
            orders[size] = order;
            if (++size == BUFFERED_EDGES) {
                flush();
            }
        }

        /** Emits the buffered edges as groups: sorted by (node, arrival), each node's run cut every MAX_GROUP. */
        void flush() {
            if (size == 0) {
                return;
            }
            // In place, neighbours with their nodes (read in order below): the buffer is refilled from 0 after.
            int[] arrival = StableKeySort.sort(nodes, neighbors, size, sortScratch);
            for (int run = 0; run < size; ) {
                long node = nodes[run];
                int end = run + 1;
                while (end < size && end - run < MAX_GROUP && nodes[end] == node) {
                    end++;
                }
                out.collect(new EdgeGroup(node, orders[arrival[run]], Arrays.copyOfRange(neighbors, run, end)));
                run = end;
            }
            size = 0;
        }
    }
}
