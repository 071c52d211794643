package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.NeighborPicks;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * One hop's neighbour lookup over the adjacency in keyed state (keyed by node id, RocksDB): input 1 loads the
 * edges, input 2 asks for a node's sampled neighbours at this hop of a batch and gets them back in draw order
 * ({@link NeighborPicks}, the in-memory sampler's draws).
 *
 * <p>Every answer sees the whole graph: a request that arrives while edges are still loading waits in keyed
 * state and is answered when the edge input ends (Flink does not checkpoint operators that choose their input,
 * so the operator holds requests back instead of not reading them). Edges arrive in any order; a node's list is sorted by each edge's file position
 * once, at its first request, so it is the in-memory store's list. State per node: its (neighbour, order)
 * entries while loading, then the sorted neighbour ids (8 bytes per edge).
 */
public class NeighborLookupOperator extends AbstractStreamOperator<HopAnswer>
        implements TwoInputStreamOperator<EdgeRecord, HopRequest, HopAnswer>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "waiting-requests";

    private final int fanout;
    private final boolean replace;
    private final long seed;

    private transient ListState<EdgeRecord> loading;
    private transient ListState<HopRequest> waiting;
    private transient ValueState<long[]> neighbors;
    private transient boolean edgesDone;

    /**
     * @param fanout this hop's fanout ({@code -1} = all)
     * @param replace sample with replacement
     * @param seed the job seed
     */
    public NeighborLookupOperator(int fanout, boolean replace, long seed) {
        this.fanout = fanout;
        this.replace = replace;
        this.seed = seed;
    }

    @Override
    public void open() throws Exception {
        super.open();
        loading = getRuntimeContext().getListState(new ListStateDescriptor<>("edges", TypeInformation.of(EdgeRecord.class)));
        waiting = getRuntimeContext().getListState(new ListStateDescriptor<>(WAITING, TypeInformation.of(HopRequest.class)));
        neighbors = getRuntimeContext().getState(new ValueStateDescriptor<>("neighbors",
                PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (inputId != 1) {
            return;
        }
        edgesDone = true;
        // Answer the requests that waited for the whole graph (keys collected first: state is updated below).
        List<Object> keys = new ArrayList<>();
        try (var stream = getKeyedStateBackend().getKeys(WAITING, VoidNamespace.INSTANCE)) {
            stream.forEach(keys::add);
        }
        for (Object key : keys) {
            setCurrentKey(key);
            Iterable<HopRequest> requests = waiting.get();
            if (requests != null) {
                for (HopRequest request : requests) {
                    answer(request);
                }
            }
            waiting.clear();
        }
    }

    @Override
    public void processElement1(StreamRecord<EdgeRecord> element) throws Exception {
        loading.add(element.getValue());
    }

    @Override
    public void processElement2(StreamRecord<HopRequest> element) throws Exception {
        if (edgesDone) {
            answer(element.getValue());
        } else {
            waiting.add(element.getValue());
        }
    }

    private void answer(HopRequest request) throws Exception {
        long[] list = sortedNeighbors();
        int[] picks = NeighborPicks.positions(seed, request.epoch, request.batchId, request.hop, request.node,
                list.length, fanout, replace);
        long[] sampled = new long[picks.length];
        for (int i = 0; i < picks.length; i++) {
            sampled[i] = list[picks[i]];
        }
        output.collect(new StreamRecord<>(new HopAnswer(request.batchKey, request.position, sampled)));
    }

    /** The current node's neighbours in file order; sorted from the loaded entries at its first request. */
    private long[] sortedNeighbors() throws Exception {
        long[] list = neighbors.value();
        if (list != null) {
            return list;
        }
        List<EdgeRecord> entries = new ArrayList<>();
        Iterable<EdgeRecord> loaded = loading.get();
        if (loaded != null) {
            loaded.forEach(entries::add);
        }
        entries.sort((a, b) -> Long.compare(a.order, b.order));
        list = new long[entries.size()];
        for (int i = 0; i < list.length; i++) {
            list[i] = entries.get(i).neighbor;
        }
        neighbors.update(list);
        loading.clear();
        return list;
    }
}
