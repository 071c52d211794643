package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.FetchedList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * One PPR fetch round's neighbour lookup over its own copy of the adjacency in keyed state (keyed by node,
 * RocksDB): input 1 loads the edges with their neighbours' degrees ({@link PprEdge}), input 2 asks for a node's
 * list and gets it back as a push reads it: in list order, capped to {@code num_neighbors_per_hop} by the very
 * positions the in-memory push reads ({@link FetchedList#of}). The capped list is fixed per node (the same for
 * every seed, batch and epoch), so it is cut once, at the node's first request, and kept.
 *
 * <p>While loading, each edge is appended to the node's list state by a RocksDB merge (a blind write); the first
 * request reads it by one point read, sorts it into list order and replaces it with the capped list. (The previous
 * layout, one map entry per edge read back by iteration, paid a RocksDB seek per node and walked the tombstones of
 * earlier cuts, as the k-hop lookups did before their group index.)
 *
 * <p>As {@link NeighborLookupOperator}, a request that arrives while edges still load waits in keyed state and is
 * answered when the edge input ends. Heap per answer: the node's list (degree-sized while it is cut).
 */
public class PprFetchOperator extends AbstractStreamOperator<PprFetchAnswer>
        implements TwoInputStreamOperator<PprEdge, PprFetchRequest, PprFetchAnswer>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "waiting-requests";

    private static final Comparator<long[]> LIST_ORDER =
            Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]);

    private final int maxNeighbors;
    private final long seed;

    /** Loading: the node's edges in arrival order, {@code [order, position, neighbour, neighbour degree]} each. */
    private transient ListState<long[]> loading;
    private transient ListState<PprFetchRequest> waiting;
    /** Once cut: the node's list as a push reads it. */
    private transient ValueState<PprFetchAnswer> cut;
    private transient boolean edgesDone;

    /**
     * @param maxNeighbors neighbours a push reads per node (-1 = all)
     * @param seed the job seed (keys the capped sample, as in the memory store)
     */
    public PprFetchOperator(int maxNeighbors, long seed) {
        this.maxNeighbors = maxNeighbors;
        this.seed = seed;
    }

    @Override
    public void open() throws Exception {
        super.open();
        loading = getRuntimeContext().getListState(new ListStateDescriptor<>("ppr-edges",
                PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        waiting = getRuntimeContext().getListState(new ListStateDescriptor<>(WAITING,
                TypeInformation.of(PprFetchRequest.class)));
        cut = getRuntimeContext().getState(new ValueStateDescriptor<>("ppr-list", TypeInformation.of(PprFetchAnswer.class)));
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (inputId != 1) {
            return;
        }
        edgesDone = true;
        KeyedDrain.drain(this, WAITING, waiting, this::answer);
    }

    @Override
    public void processElement1(StreamRecord<PprEdge> element) throws Exception {
        PprEdge edge = element.getValue();
        loading.add(new long[] {edge.order, edge.position, edge.neighbor, edge.neighborDegree});
    }

    @Override
    public void processElement2(StreamRecord<PprFetchRequest> element) throws Exception {
        if (edgesDone) {
            answer(element.getValue());
        } else {
            waiting.add(element.getValue());
        }
    }

    private void answer(PprFetchRequest request) throws Exception {
        PprFetchAnswer list = cut.value();
        if (list == null) {
            list = new PprFetchAnswer(0, request.node, cutList(request.node));
            cut.update(list);
            loading.clear();
        }
        PprFetchAnswer out = new PprFetchAnswer();
        out.batchKey = request.batchKey;
        out.node = request.node;
        out.degree = list.degree;
        out.neighbors = list.neighbors;
        out.neighborDegrees = list.neighborDegrees;
        output.collect(new StreamRecord<>(out));
    }

    /** The node's loaded edges in list order (load group, then place in it: the memory store's order), capped. */
    private FetchedList cutList(long node) throws Exception {
        List<long[]> edges = new ArrayList<>();
        Iterable<long[]> loaded = loading.get();
        if (loaded != null) {
            loaded.forEach(edges::add);
        }
        edges.sort(LIST_ORDER);
        long[] neighbors = new long[edges.size()];
        int[] degrees = new int[edges.size()];
        for (int i = 0; i < neighbors.length; i++) {
            long[] e = edges.get(i);
            neighbors[i] = e[2];
            degrees[i] = (int) e[3];
        }
        return FetchedList.of(node, neighbors, degrees, maxNeighbors, seed);
    }
}
