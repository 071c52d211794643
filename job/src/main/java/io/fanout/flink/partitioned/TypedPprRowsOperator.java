package io.fanout.flink.partitioned;

import io.fanout.flink.partitioned.TypedPprRecords.Edge;
import io.fanout.flink.partitioned.TypedPprRecords.Rows;
import io.fanout.sampling.ppr.TypedNodeRows;
import io.fanout.sampling.ppr.TypedPprBatchPush;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Builds each node's {@link TypedNodeRows} once, for every fetch round, as {@link PprListOperator} builds a plain
 * list: keyed by node key (RocksDB), the node's degree-carrying edges of every edge type are appended to its state;
 * when the input ends, each edge type's row is sorted into list order and cut by
 * {@link TypedNodeRows#readPositions} (the memory store's {@code TypedPprSampler} cut), and the rows go on as bytes.
 */
public class TypedPprRowsOperator extends AbstractStreamOperator<Rows>
        implements OneInputStreamOperator<Edge, Rows>, BoundedOneInput {
    private static final long serialVersionUID = 1L;
    /** A node's edges: {@code [edge type, order, position, neighbour, neighbour degree per edge type...]}. */
    private static final ListStateDescriptor<long[]> EDGES = new ListStateDescriptor<>("typed-ppr-edges",
            CompactLongArraySerializer.INSTANCE);
    private static final Comparator<long[]> LIST_ORDER = Comparator.<long[]>comparingLong(e -> e[0])
            .thenComparingLong(e -> e[1]).thenComparingLong(e -> e[2]);

    private final List<String> edgeTypeNames;
    private final int maxNeighbors;
    private final long seed;

    private transient ListState<long[]> edges;

    /**
     * @param edgeTypeNames the edge types' names in name order (each row's sample is drawn under its name)
     * @param maxNeighbors neighbours a push reads per node and edge type (-1 = all)
     * @param seed the job seed
     */
    TypedPprRowsOperator(List<String> edgeTypeNames, int maxNeighbors, long seed) {
        this.edgeTypeNames = List.copyOf(edgeTypeNames);
        this.maxNeighbors = maxNeighbors;
        this.seed = seed;
    }

    @Override
    public void open() throws Exception {
        super.open();
        edges = getRuntimeContext().getListState(EDGES);
    }

    @Override
    public void processElement(StreamRecord<Edge> element) throws Exception {
        Edge edge = element.getValue();
        int e = edge.neighborDegrees.length;
        long[] row = new long[4 + e];
        row[0] = edge.edgeType;
        row[1] = edge.order;
        row[2] = edge.position;
        row[3] = edge.neighbor;
        for (int f = 0; f < e; f++) {
            row[4 + f] = edge.neighborDegrees[f];
        }
        edges.add(row);
    }

    @Override
    public void endInput() throws Exception {
        int e = edgeTypeNames.size();
        KeyedDrain.forEachNodeSorted(this, EDGES, LIST_ORDER, (node, loaded) -> {
            int[] degree = new int[e];
            for (long[] edge : loaded) {
                degree[(int) edge[0]]++;
            }
            long[][] neighbors = new long[e][];
            int[][] positions = new int[e][];
            int[][] neighborDegrees = new int[e][];
            int start = 0;
            for (int m = 0; m < e; m++) {
                int[] pos = TypedNodeRows.readPositions(edgeTypeNames.get(m), TypedPprBatchPush.idOf(node),
                        degree[m], maxNeighbors, seed);
                neighbors[m] = new long[pos.length];
                neighborDegrees[m] = new int[pos.length * e];
                for (int j = 0; j < pos.length; j++) {
                    long[] edge = loaded.get(start + pos[j]);
                    neighbors[m][j] = edge[3];
                    for (int f = 0; f < e; f++) {
                        neighborDegrees[m][j * e + f] = (int) edge[4 + f];
                    }
                }
                positions[m] = pos;
                start += degree[m];
            }
            output.collect(new StreamRecord<>(new Rows(node,
                    new TypedNodeRows(degree, neighbors, positions, neighborDegrees).toBytes())));
        });
    }
}
