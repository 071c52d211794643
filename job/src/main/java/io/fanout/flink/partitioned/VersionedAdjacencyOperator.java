package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.NeighborBuckets;
import io.fanout.sampling.partitioned.NeighborDelta;
import it.unimi.dsi.fastutil.longs.Long2IntLinkedOpenHashMap;
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
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * A keyed adjacency that changes while sampling continues, read at a request's graph version: input 1 is the loaded
 * edges and the update reader's edge updates ({@link UpdateReaderOperator}), input 2 requests of type {@code R},
 * each at its batch's graph version {@code v}, answered ({@link #answer}) from the lists as they were at {@code v}
 * ({@link NeighborDelta} over the loaded buckets), so the answer does not depend on when updates and requests
 * arrive. The k-hop lookups ({@link VersionedNeighborLookupOperator}) and PPR's list fetches and degree lookups
 * ({@link VersionedPprFetchOperator}, {@link VersionedPprDegreeOperator}) are its subclasses.
 *
 * <p>Input 1's watermark is the committed graph version ({@code >= 0} only once the loaded edges ended, as the
 * edge source's watermark stays at its minimum until then). A request of version {@code v} is answered once it is
 * {@code >= v}, else it waits in keyed state; updates that arrive while the graph still loads wait too. Input 2's
 * watermarks (epoch ends) go on only once no request waits, so an epoch's end never overtakes its answers, and
 * input 1's never go on: an idle update stream cannot hold back the epochs.
 */
public abstract class VersionedAdjacencyOperator<R, O> extends AbstractStreamOperator<O>
        implements TwoInputStreamOperator<EdgeUpdate, R, O> {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "waiting-request-groups";
    private static final String EARLY = "early-updates";
    private static final String LOADED = "loaded-edges";
    /**
     * The description of this state's layout, for {@link SavedGraphCheck}: a node's {@code degree} value is its
     * loaded degree, negated while its loaded edges are not cut yet.
     */
    static final String LAYOUT = "versioned adjacency 2";
    /** Nodes in the {@link #unchanged} cache, per subtask (about 40 bytes each). */
    private static final int UNCHANGED_CACHE = 1 << 16;

    /** Accumulator: deletions of an edge the graph did not have (counted by one operator of the job). */
    public static final String MISSING_DELETES = "fanout.graph-updates-missing-deletes";

    private final int bucketSize;
    private final boolean countMissing;
    private final Class<R> requestClass;
    private final boolean compactAfterLoad;

    /** A node's loaded edges not cut yet, {@code [order, neighbour]} each, appended by blind RocksDB merges. */
    private transient ListState<long[]> loading;
    private transient ListStateDescriptor<long[]> loadingDescriptor;
    private transient ListState<R> waiting;
    private transient ListState<EdgeUpdate> early;
    private transient ValueState<Integer> degree;
    private transient MapState<Integer, long[]> buckets;
    private transient ValueState<NeighborDelta> deltas;
    private transient NeighborBuckets layout;
    /**
     * The {@code degree} values of recently read nodes that have no changes, most recent last: a read of such a node
     * needs neither of its two point reads (PPR's degree lookups read every listed neighbour). An entry goes when
     * an update changes its node; the cache starts empty after a restore.
     */
    private transient Long2IntLinkedOpenHashMap unchanged;
    private transient LongCounter missingDeletes;
    /** The committed version this operator has passed; -1 while the graph loads. */
    private transient long passed;
    private transient ListState<Long> checkpointed;
    private transient int waitingCount;
    private transient long heldWatermark;
    private transient long emittedWatermark;

    /**
     * @param bucketSize neighbours per stored bucket ({@link NeighborBuckets})
     * @param countMissing count and log deletions of missing edges (one operator of the job does)
     * @param requestClass the request type (its waiting state's type)
     */
    protected VersionedAdjacencyOperator(int bucketSize, boolean countMissing, Class<R> requestClass) {
        this(bucketSize, countMissing, requestClass, false);
    }

    /**
     * As above; {@code compactAfterLoad}: compact the loaded edges once the load has ended, before the first update
     * or request reads them ({@link LoadCompaction}).
     */
    protected VersionedAdjacencyOperator(int bucketSize, boolean countMissing, Class<R> requestClass,
            boolean compactAfterLoad) {
        this.bucketSize = bucketSize;
        this.countMissing = countMissing;
        this.requestClass = requestClass;
        this.compactAfterLoad = compactAfterLoad;
        new NeighborBuckets(bucketSize); // fails here, on the client, for a bad size
    }

    /** The graph version {@code request} reads. */
    protected abstract long versionOf(R request);

    /** Answers {@code request} at its version (every update up to it is applied; switch keys per node). */
    protected abstract void answer(R request) throws Exception;

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
        loadingDescriptor = new ListStateDescriptor<>(LOADED, CompactLongArraySerializer.INSTANCE);
        loading = getRuntimeContext().getListState(loadingDescriptor);
        waiting = getRuntimeContext().getListState(new ListStateDescriptor<>(WAITING, TypeInformation.of(requestClass)));
        early = getRuntimeContext().getListState(new ListStateDescriptor<>(EARLY, TypeInformation.of(EdgeUpdate.class)));
        degree = getRuntimeContext().getState(new ValueStateDescriptor<>("degree", Types.INT));
        buckets = getRuntimeContext().getMapState(new MapStateDescriptor<>("buckets", IntSerializer.INSTANCE,
                CompactLongArraySerializer.INSTANCE));
        deltas = getRuntimeContext().getState(new ValueStateDescriptor<>("delta", TypeInformation.of(NeighborDelta.class)));
        layout = new NeighborBuckets(bucketSize);
        unchanged = new Long2IntLinkedOpenHashMap();
        missingDeletes = getRuntimeContext().getLongCounter(MISSING_DELETES);
        heldWatermark = Long.MIN_VALUE;
        emittedWatermark = Long.MIN_VALUE;
        waitingCount = 0;
        for (Object key : keysOf(WAITING)) { // after a restore
            setCurrentKey(key);
            for (R ignored : waiting.get()) {
                waitingCount++;
            }
        }
    }

    @Override
    public void processElement1(StreamRecord<EdgeUpdate> element) throws Exception {
        EdgeUpdate edge = element.getValue();
        if (edge.version == 0) {
            loading.add(new long[] {edge.order, edge.neighbor});
            // Counted as they load (negated: not cut yet), so a degree is known without cutting the list: PPR's
            // degree lookups never cut. Loaded edges arrive before any request, so no node is cut yet.
            Integer loaded = degree.value();
            degree.update(loaded == null ? -1 : loaded - 1);
        } else if (passed < 0) {
            early.add(edge); // the loaded list must be complete before an update can find its edge
        } else {
            apply(edge);
        }
    }

    @Override
    public void processElement2(StreamRecord<R> element) throws Exception {
        R request = element.getValue();
        if (versionOf(request) <= passed) {
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
        if (loadedNow && compactAfterLoad) {
            // Each loaded edge was one merge: a node's first read would gather them from every sorted run.
            LoadCompaction.compact(this, getOperatorName(), loadingDescriptor);
        }
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
                List<R> ready = new ArrayList<>();
                List<R> still = new ArrayList<>();
                for (R request : waiting.get()) {
                    (versionOf(request) <= passed ? ready : still).add(request);
                }
                waiting.update(still); // before answering: a group switches the current key to each of its nodes
                for (R request : ready) {
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
        unchanged.remove(update.node);
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

    /**
     * The current node's list at {@code version}: its degree then, read with {@link #gather} by list position.
     * Sets the current key first ({@link RequestRouting#toKey}).
     */
    protected final ListAt listAt(long node, long version) throws Exception {
        RequestRouting.toKey(this, node);
        if (unchanged.containsKey(node)) {
            int known = unchanged.getAndMoveToLast(node);
            return new ListAt(Math.abs(known), known < 0, null, version);
        }
        Integer known = degree.value();
        NeighborDelta delta = deltas.value();
        int value = known == null ? 0 : known;
        if (delta == null) {
            unchanged.putAndMoveToLast(node, value);
            if (unchanged.size() > UNCHANGED_CACHE) {
                unchanged.removeFirstInt();
            }
        }
        return new ListAt(Math.abs(value), value < 0, delta, version);
    }

    /** One node's list at one version (valid while its key is current); its loaded edges cut at the first read. */
    protected final class ListAt {
        private final int base;
        private boolean uncut;
        private final NeighborDelta delta;
        private final long version;

        private ListAt(int base, boolean uncut, NeighborDelta delta, long version) {
            this.base = base;
            this.uncut = uncut;
            this.delta = delta;
            this.version = version;
        }

        /** The node's degree at the version (reads no list). */
        public int degree() {
            return delta == null ? base : delta.degreeAt(base, version);
        }

        /** The neighbours at list positions {@code positions}, in the order given, each bucket read once. */
        public long[] gather(int[] positions) throws Exception {
            if (uncut && positions.length > 0) {
                cutBuckets();
                uncut = false;
            }
            return delta == null ? layout.gather(positions, buckets::get)
                    : delta.gather(positions, base, version, layout, buckets::get);
        }
    }

    /**
     * The current node's loaded degree; at its first read its loaded edges are cut into buckets, in list order. A
     * node without loaded edges has no degree and is not looked for among the loaded entries (a seek there would
     * walk the tombstones of every node already cut).
     */
    private int cutBuckets() throws Exception {
        Integer known = degree.value();
        if (known == null) {
            return 0;
        }
        if (known >= 0) {
            return known;
        }
        // One read of the merged list (a map state's iteration walked the tombstones of the nodes cut before).
        List<Map.Entry<Long, Long>> loaded = new ArrayList<>();
        for (long[] e : loading.get()) {
            loaded.add(Map.entry(e[0], e[1]));
        }
        int d = layout.cut(loaded, buckets::put); // sorts by file order
        if (d != -known) {
            throw new IllegalStateException("node " + getCurrentKey() + ": " + d + " loaded edges, " + -known
                    + " counted as they loaded");
        }
        loading.clear();
        degree.update(d);
        unchanged.replace((long) (Long) getCurrentKey(), d); // a cached entry is now cut
        return d;
    }
}
