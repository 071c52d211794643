package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.FetchedList;
import java.util.Comparator;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Builds each node's PPR list once, for every fetch round: keyed by node (RocksDB), the node's degree-carrying
 * edges ({@link PprEdge}) are appended to its list state by a blind merge; when the input ends, each node's list is
 * sorted into list order, capped to {@code num_neighbors_per_hop} by the very positions the in-memory push reads
 * ({@link FetchedList#of}) and sent on as one record ({@link PprNodeList}), which each round's
 * {@link KeyedLookups#pprLists} stores as one value.
 *
 * <p>So the edges are written once, not once per round (the rounds each hold a copy because a DataStream job has no
 * cycles), and a fetch is one point read of a capped list. The end walks the nodes with
 * {@link KeyedDrain#forEachKey} (no list of the graph's nodes on the heap); heap per node: its list while it is cut.
 */
public class PprListOperator extends AbstractStreamOperator<PprNodeList>
        implements OneInputStreamOperator<PprEdge, PprNodeList>, BoundedOneInput {
    private static final long serialVersionUID = 1L;
    /** A node's loaded edges in arrival order, {@code [order, position, neighbour, neighbour degree]} each. */
    private static final ListStateDescriptor<long[]> EDGES = new ListStateDescriptor<>("ppr-edges",
            CompactLongArraySerializer.INSTANCE);
    private static final Comparator<long[]> LIST_ORDER =
            Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]);

    private final int maxNeighbors;
    private final long seed;

    private transient ListState<long[]> edges;

    /**
     * @param maxNeighbors neighbours a push reads per node (-1 = all)
     * @param seed the job seed (keys the capped sample, as in the memory store)
     */
    public PprListOperator(int maxNeighbors, long seed) {
        this.maxNeighbors = maxNeighbors;
        this.seed = seed;
    }

    @Override
    public void open() throws Exception {
        super.open();
        edges = getRuntimeContext().getListState(EDGES);
    }

    @Override
    public void processElement(StreamRecord<PprEdge> element) throws Exception {
        PprEdge edge = element.getValue();
        edges.add(new long[] {edge.order, edge.position, edge.neighbor, edge.neighborDegree});
    }

    @Override
    public void endInput() throws Exception {
        KeyedDrain.forEachNodeSorted(this, EDGES, LIST_ORDER, (node, loaded) -> {
            long[] neighbors = new long[loaded.size()];
            int[] degrees = new int[loaded.size()];
            for (int i = 0; i < neighbors.length; i++) {
                neighbors[i] = loaded.get(i)[2];
                degrees[i] = (int) loaded.get(i)[3];
            }
            output.collect(new StreamRecord<>(new PprNodeList(node,
                    FetchedList.of(node, neighbors, degrees, maxNeighbors, seed))));
        });
    }
}
