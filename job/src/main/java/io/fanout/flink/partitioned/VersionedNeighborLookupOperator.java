package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.NeighborBuckets;
import io.fanout.sampling.partitioned.NeighborDelta;
import io.fanout.sampling.partitioned.NeighborPicks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * {@link NeighborLookupOperator} over a graph that changes while sampling continues: input 1 is the loaded edges
 * and the update reader's edge updates ({@link UpdateReaderOperator}), input 2 the requests, each at its batch's
 * graph version {@code v}, answered from the node's list as it was at {@code v} ({@link NeighborDelta} over the
 * loaded buckets), so the answer does not depend on when updates and requests arrive.
 *
 * <p>Input 1's watermark is the committed graph version ({@code >= 0} only once the loaded edges ended, as the
 * edge source's watermark stays at its minimum until then). A request of version {@code v} is answered once it is
 * {@code >= v}, else it waits in keyed state; updates that arrive while the graph still loads wait too. Input 2's
 * watermarks (epoch ends) go on only once no request waits, so an epoch's end never overtakes its answers, and
 * input 1's never go on: an idle update stream cannot hold back the epochs.
 */
public class VersionedNeighborLookupOperator extends AbstractStreamOperator<AnswerGroup>
        implements TwoInputStreamOperator<EdgeUpdate, RequestGroup, AnswerGroup> {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "waiting-request-groups";
    private static final String EARLY = "early-updates";
    private static final String LOADED = "edges";
    /** The degree of a node whose loaded edges are not cut yet. */
    private static final int UNCUT = -1;

    /** Accumulator: deletions of an edge the graph did not have (counted by hop 1's lookup only). */
    public static final String MISSING_DELETES = "fanout.graph-updates-missing-deletes";

    private final int fanout;
    private final boolean replace;
    private final long seed;
    private final int bucketSize;
    private final boolean countMissing;

    private transient MapState<Long, Long> loading;
    private transient ListState<RequestGroup> waiting;
    private transient ListState<EdgeUpdate> early;
    private transient ValueState<Integer> degree;
    private transient MapState<Integer, long[]> buckets;
    private transient ValueState<NeighborDelta> deltas;
    private transient NeighborBuckets layout;
    private transient LongCounter missingDeletes;
    /** The committed version this lookup has passed; -1 while the graph loads. */
    private transient long passed;
    private transient ListState<Long> checkpointed;
    private transient int waitingCount;
    private transient long heldWatermark;
    private transient long emittedWatermark;

    /**
     * @param fanout this hop's fanout ({@code -1} = all)
     * @param countMissing count and log deletions of missing edges (one lookup of the job does)
     */
    public VersionedNeighborLookupOperator(int fanout, boolean replace, long seed, int bucketSize, boolean countMissing) {
        this.fanout = fanout;
        this.replace = replace;
        this.seed = seed;
        this.bucketSize = bucketSize;
        this.countMissing = countMissing;
        new NeighborBuckets(bucketSize); // fails here, on the client, for a bad size
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        checkpointed = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("passed-version", Types.LONG));
        passed = -1;
        for (Long v : checkpointed.get()) {
            passed = Math.max(passed, v);
        }

    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        checkpointed.update(List.of(passed));
    }

    @Override
    public void open() throws Exception {
        super.open();
        loading = getRuntimeContext().getMapState(new MapStateDescriptor<>(LOADED, Types.LONG, Types.LONG));
        waiting = getRuntimeContext().getListState(new ListStateDescriptor<>(WAITING, TypeInformation.of(RequestGroup.class)));
        early = getRuntimeContext().getListState(new ListStateDescriptor<>(EARLY, TypeInformation.of(EdgeUpdate.class)));
        degree = getRuntimeContext().getState(new ValueStateDescriptor<>("degree", Types.INT));
        buckets = getRuntimeContext().getMapState(new MapStateDescriptor<>("buckets", Types.INT,
                PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        deltas = getRuntimeContext().getState(new ValueStateDescriptor<>("delta", TypeInformation.of(NeighborDelta.class)));
        layout = new NeighborBuckets(bucketSize);
        missingDeletes = getRuntimeContext().getLongCounter(MISSING_DELETES);
        heldWatermark = Long.MIN_VALUE;
        emittedWatermark = Long.MIN_VALUE;
        waitingCount = 0;
        for (Object key : keysOf(WAITING)) { // after a restore
            setCurrentKey(key);
            for (RequestGroup ignored : waiting.get()) {
                waitingCount++;
            }
        }
    }

    @Override
    public void processElement1(StreamRecord<EdgeUpdate> element) throws Exception {
        EdgeUpdate edge = element.getValue();
        if (edge.version == 0) {
            loading.put(edge.order, edge.neighbor);
            degree.update(UNCUT); // a blind put: the node has loaded edges, to be cut at its first use
        } else if (passed < 0) {
            early.add(edge); // the loaded list must be complete before an update can find its edge
        } else {
            apply(edge);
        }
    }

    @Override
    public void processElement2(StreamRecord<RequestGroup> element) throws Exception {
        RequestGroup request = element.getValue();
        if (request.version <= passed) {
            answer(request);
        } else {
            waiting.add(request);
            waitingCount++;
        }
    }

    @Override
    public void processWatermark1(Watermark mark) throws Exception {
        long version = mark.getTimestamp();
        if (version <= passed) {
            return;
        }
        boolean loadedNow = passed < 0;
        passed = version;
        if (loadedNow) {
            for (Object key : keysOf(EARLY)) {
                setCurrentKey(key);
                for (EdgeUpdate update : early.get()) {
                    apply(update);
                }
                early.clear();
            }
        }
        if (waitingCount > 0) {
            for (Object key : keysOf(WAITING)) {
                setCurrentKey(key);
                List<RequestGroup> ready = new ArrayList<>();
                List<RequestGroup> still = new ArrayList<>();
                for (RequestGroup request : waiting.get()) {
                    (request.version <= passed ? ready : still).add(request);
                }
                waiting.update(still); // before answering: a group switches the current key to each of its nodes
                for (RequestGroup request : ready) {
                    answer(request);
                    waitingCount--;
                }
            }
        }
        emitHeldWatermark();
    }

    @Override
    public void processWatermark2(Watermark mark) throws Exception {
        heldWatermark = Math.max(heldWatermark, mark.getTimestamp());
        emitHeldWatermark();
    }

    private void emitHeldWatermark() {
        if (waitingCount == 0 && heldWatermark > emittedWatermark) {
            emittedWatermark = heldWatermark;
            output.emitWatermark(new Watermark(heldWatermark));
        }
    }

    @Override
    protected void processWatermarkStatus(WatermarkStatus status, int inputIndex) {
        // Watermarks are forwarded by hand (processWatermark2): neither input's idleness may release or hold them.
    }

    private List<Object> keysOf(String state) throws Exception {
        return KeyedDrain.keysOf(this, state);
    }

    /** Applies an update to the current node's list (its loaded edges complete). */
    private void apply(EdgeUpdate update) throws Exception {
        int base = cutBuckets();
        NeighborDelta delta = deltas.value();
        if (delta == null) {
            delta = new NeighborDelta();
        }
        if (update.add) {
            delta.add(update.neighbor, update.version);
        } else if (!delta.delete(update.neighbor, update.version, (neighbor, skip) -> find(base, neighbor, skip))) {
            if (countMissing && update.primary) {
                missingDeletes.add(1);
                LOG.warn("{}: deletes edge {} -> {} at version {}, which the graph does not have then: ignored",
                        update.where, update.node, update.neighbor, update.version);
            }
            return;
        }
        deltas.update(delta);
    }

    /** The first loaded position of {@code neighbor} that {@code skip} does not reject, or -1 (reads the list). */
    private int find(int base, long neighbor, java.util.function.IntPredicate skip) throws Exception {
        for (int b = 0; b < layout.bucketCount(base); b++) {
            long[] bucket = buckets.get(b);
            for (int i = 0; i < bucket.length; i++) {
                int position = b * layout.size() + i;
                if (bucket[i] == neighbor && !skip.test(position)) {
                    return position;
                }
            }
        }
        return -1;
    }

    /** Answers every node of the group at its version, each under its own key, as one record. */
    private void answer(RequestGroup request) throws Exception {
        output.collect(new StreamRecord<>(RequestRouting.answerEach(request, node -> {
            RequestRouting.toKey(this, node);
            int base = cutBuckets();
            NeighborDelta delta = deltas.value();
            int d = delta == null ? base : delta.degreeAt(base, request.version);
            int[] picks = NeighborPicks.positions(seed, request.epoch, request.batchId, request.hop, node, d,
                    fanout, replace);
            return delta == null ? layout.gather(picks, buckets::get)
                    : delta.gather(picks, base, request.version, layout, buckets::get);
        })));
    }

    /**
     * The current node's loaded degree; at its first use its loaded edges are cut into buckets, in list order. A
     * node without loaded edges has no degree and is not looked for among the loaded entries (a seek there would
     * walk the tombstones of every node already cut).
     */
    private int cutBuckets() throws Exception {
        Integer known = degree.value();
        if (known == null) {
            return 0;
        }
        if (known != UNCUT) {
            return known;
        }
        Iterable<Map.Entry<Long, Long>> loaded = loading.entries();
        int d = loaded == null ? 0 : layout.cut(loaded, buckets::put);
        loading.clear();
        degree.update(d);
        return d;
    }
}
