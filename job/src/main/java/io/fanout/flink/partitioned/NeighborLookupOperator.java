package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.NeighborBuckets;
import io.fanout.sampling.partitioned.NeighborPicks;
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
 * One hop's neighbour lookup over the adjacency in keyed state (keyed by node id, RocksDB): input 1 loads the
 * edges, input 2 asks for a node's sampled neighbours at this hop of a batch and gets them back in draw order
 * ({@link NeighborPicks}, the in-memory sampler's draws).
 *
 * <p>Every answer sees the whole graph: a request that arrives while edges are still loading waits in keyed
 * state and is answered when the edge input ends (Flink does not checkpoint operators that choose their input,
 * so the operator holds requests back instead of not reading them).
 *
 * <p>No state value grows with a node's degree: while loading, each edge is one map entry under its order key
 * (file index << 40 | row: one put, no read); at the node's first request the list is cut in key order (RocksDB
 * iterates a map in key order, so the cut streams) into buckets of {@code bucketSize} neighbours
 * ({@link NeighborBuckets}), one map entry each, and a request reads only the buckets its picks fall in. State
 * per node once cut: 8 bytes per edge plus a bucket entry per {@code bucketSize} edges.
 */
public class NeighborLookupOperator extends AbstractStreamOperator<HopAnswer>
        implements TwoInputStreamOperator<EdgeRecord, HopRequest, HopAnswer>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "waiting-requests";

    private final int fanout;
    private final boolean replace;
    private final long seed;
    private final int bucketSize;

    /** Loading: neighbour per edge order key (file index << 40 | row). */
    private transient MapState<Long, Long> loading;
    private transient ListState<HopRequest> waiting;
    /** Once cut: the node's degree (absent until its first request). */
    private transient ValueState<Integer> degree;
    /** Once cut: bucket index -> its neighbours, in the in-memory store's list order. */
    private transient MapState<Integer, long[]> buckets;
    private transient NeighborBuckets layout;
    private transient boolean edgesDone;

    /**
     * @param fanout this hop's fanout ({@code -1} = all)
     * @param replace sample with replacement
     * @param seed the job seed
     * @param bucketSize neighbours per stored bucket, {@code >= 1}
     */
    public NeighborLookupOperator(int fanout, boolean replace, long seed, int bucketSize) {
        this.fanout = fanout;
        this.replace = replace;
        this.seed = seed;
        this.bucketSize = bucketSize;
        new NeighborBuckets(bucketSize); // fails here, on the client, for a bad size
    }

    @Override
    public void open() throws Exception {
        super.open();
        loading = getRuntimeContext().getMapState(new MapStateDescriptor<>("edges", Types.LONG, Types.LONG));
        waiting = getRuntimeContext().getListState(new ListStateDescriptor<>(WAITING, TypeInformation.of(HopRequest.class)));
        degree = getRuntimeContext().getState(new ValueStateDescriptor<>("degree", Types.INT));
        buckets = getRuntimeContext().getMapState(new MapStateDescriptor<>("buckets", Types.INT,
                PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        layout = new NeighborBuckets(bucketSize);
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (inputId != 1) {
            return;
        }
        edgesDone = true;
        // Answer the requests that waited for the whole graph.
        KeyedDrain.drain(this, WAITING, waiting, this::answer);
    }

    @Override
    public void processElement1(StreamRecord<EdgeRecord> element) throws Exception {
        EdgeRecord edge = element.getValue();
        loading.put(edge.order, edge.neighbor);
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
        int d = cutBuckets();
        int[] picks = NeighborPicks.positions(seed, request.epoch, request.batchId, request.hop, request.node, d,
                fanout, replace);
        long[] sampled = layout.gather(picks, buckets::get);
        output.collect(new StreamRecord<>(new HopAnswer(request.batchKey, request.position, sampled)));
    }

    /** The current node's degree; at its first request its loaded edges are cut into buckets, in list order. */
    private int cutBuckets() throws Exception {
        Integer known = degree.value();
        if (known != null) {
            return known;
        }
        Iterable<java.util.Map.Entry<Long, Long>> loaded = loading.entries();
        int d = loaded == null ? 0 : layout.cut(loaded, buckets::put);
        if (d == 0) {
            return 0; // no edges: nothing stored for the node
        }
        loading.clear();
        degree.update(d);
        return d;
    }
}
