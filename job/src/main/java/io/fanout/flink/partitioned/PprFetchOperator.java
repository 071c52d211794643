package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.FetchedList;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
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
 * <p>As {@link NeighborLookupOperator}, a request that arrives while edges still load waits in keyed state and is
 * answered when the edge input ends. Heap per answer: the node's list (degree-sized while it is cut).
 */
public class PprFetchOperator extends AbstractStreamOperator<PprFetchAnswer>
        implements TwoInputStreamOperator<PprEdge, PprFetchRequest, PprFetchAnswer>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "waiting-requests";

    private final int maxNeighbors;
    private final long seed;

    /** Loading: order key -> [neighbour, neighbour degree]. */
    private transient MapState<Long, long[]> loading;
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
        loading = getRuntimeContext().getMapState(new MapStateDescriptor<>("ppr-edges", Types.LONG,
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
        loading.put(edge.order, new long[] {edge.neighbor, edge.neighborDegree});
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

    /** The node's loaded edges in list order (order keys ascending: the memory store's order), capped. */
    private FetchedList cutList(long node) throws Exception {
        List<Map.Entry<Long, long[]>> edges = new ArrayList<>();
        Iterable<Map.Entry<Long, long[]>> loaded = loading.entries();
        if (loaded != null) {
            loaded.forEach(edges::add);
        }
        edges.sort(Map.Entry.comparingByKey());
        long[] neighbors = new long[edges.size()];
        int[] degrees = new int[edges.size()];
        for (int i = 0; i < neighbors.length; i++) {
            long[] e = edges.get(i).getValue();
            neighbors[i] = e[0];
            degrees[i] = (int) e[1];
        }
        return FetchedList.of(node, neighbors, degrees, maxNeighbors, seed);
    }
}
