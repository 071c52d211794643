package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.EdgeListNode;
import io.fanout.sampling.partitioned.GroupValues;
import io.fanout.sampling.partitioned.HeadCache;
import io.fanout.sampling.partitioned.HeadGather;
import io.fanout.sampling.partitioned.InducedEdges;
import io.fanout.sampling.partitioned.NeighborBuckets;
import io.fanout.sampling.partitioned.NeighborPicks;
import io.fanout.sampling.partitioned.TemporalPicks;
import io.fanout.sampling.partitioned.ValueCache;
import io.fanout.sampling.partitioned.WeightedPicks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * One hop's neighbour lookup over the adjacency in keyed state (keyed by node id, RocksDB): input 1 loads the
 * edges, input 2 asks for a node's sampled neighbours at this hop of a batch and gets them back in draw order
 * ({@link NeighborPicks}, the in-memory sampler's draws).
 *
 * <p>Requests come grouped per batch, hop and subtask ({@link RequestGroup}): each node is answered under its own
 * key and the group's answers go back as one record.
 *
 * <p>Every answer sees the whole graph: a request that arrives while edges are still loading waits in keyed
 * state and is answered when the edge input ends (Flink does not checkpoint operators that choose their input,
 * so the operator holds requests back instead of not reading them).
 *
 * <p>No state value grows with a node's degree. While loading, each edge group (a node's run of edges in one
 * split's buffer, at most {@link SplitGroups#MAX_GROUP}; a split's groups that this subtask owns come as one
 * {@link EdgeGroupBatch}, each written under its node's key) is appended to the node's group index (a RocksDB
 * merge: a blind write, no read): a group of at most {@link #INLINE_GROUP} edges with its neighbours, a bigger one
 * as its order key and size, the group itself one map entry under its order key (file index << 40 | line offset). At a
 * request, one read of the index gives the node's degree and its list order ({@link NeighborBuckets.GroupIndex}):
 * a node whose groups are all in the index and whose degree is at most {@code bucketSize} (most nodes) is answered
 * from it, with no write, on its first request as on every later one. Any other node is cut once, at its first
 * request: its stored groups read by key, its list written as buckets of {@code bucketSize} neighbours
 * ({@link NeighborBuckets}, bucket 0 with the degree in front as the node's head, later buckets one map entry each,
 * read only when a pick falls in them) and its index and groups removed.
 *
 * <p>Nothing iterates the loaded groups: a RocksDB seek visits every sorted run and walks the tombstones earlier
 * cuts left (the previous layout's first-request cut by iteration halved the first epoch's rate on R-MAT 2^18). A
 * node's index holds at most {@link #INLINE_GROUP} edges per split buffer it appears in
 * ({@link SplitGroups#BUFFERED_EDGES} rows) and one entry per stored group.
 *
 * <p>When the edges end, the loaded groups are compacted before the first request is answered
 * ({@link LoadCompaction}, unless turned off): the load leaves a node's index as many merge operands over many
 * sorted runs, and a read would gather them every time.
 *
 * <p>Recently read heads are kept in a bounded heap cache ({@link HeadCache}): the graph is fixed once loaded, so
 * a cached head is the state's; a restored lookup starts with an empty cache.
 *
 * <p>Cutting lazily, not when the load ends, keeps the end of the load one step (an eager cut visited every node
 * in one mailbox action: minutes on a large graph, with checkpoints held back and every node id collected on the
 * heap) and never cuts a node nobody asks for.
 */
public class NeighborLookupOperator extends AbstractStreamOperator<AnswerGroup>
        implements TwoInputStreamOperator<EdgeGroupBatch, RequestGroup, AnswerGroup>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "waiting-request-groups";
    static final String EDGE_GROUPS = "edge-groups";
    static final String GROUP_INDEX = "edge-group-index";
    static final String EDGE_WEIGHTS = "edge-group-weights";
    static final String EDGE_TIMES = "edge-group-times";
    static final String EDGE_IDS = "edge-group-ids";
    /**
     * Largest group kept in the node's index with its neighbours: on a graph whose edge files are in random order
     * (R-MAT) nearly every group is one or two edges, and reading them by key was most of a first request's cost.
     * A node with a group stored apart is cut at its first request, and until RocksDB compacts the old groups away
     * every checkpoint holds its list twice: with 64, R-MAT 2^18 x 16 (p=2) cut 4,048 nodes holding 56 % of the
     * edges, and the checkpoints after the first epoch held 28 of 98 MB as cut copies; with 512 only the nodes longer
     * than a bucket (172, 16 % of the edges) are cut, and a node of degree <= 512 never is.
     */
    static final int INLINE_GROUP = 512;
    private static final long[] NO_EDGES = {0};
    /** Accumulators: node heads found in / read past the {@link HeadCache} (all hops' lookups summed). */
    public static final String CACHE_HITS = "fanout.partitioned-cache-hits";
    public static final String CACHE_MISSES = "fanout.partitioned-cache-misses";

    private final int fanout;
    private final boolean replace;
    private final long seed;
    private final int bucketSize;
    private final long cacheBytes;
    private final int cachedLookups;
    private final boolean compactAfterLoad;
    /** {@code fanout.weight-column}: draws in proportion to the edges' weights ({@link WeightedPicks}). */
    private boolean weighted;
    /** {@code fanout.time-column}: each tree draws among the edges up to its seed's time ({@link TemporalPicks}). */
    private boolean temporal;
    /** {@code fanout.temporal-strategy last}: the most recent edges up to the time instead of draws. */
    private boolean temporalLast;
    /** {@code fanout.with-edge}: answers carry each sampled edge's input row, weight, time ({@link EdgeListNode}). */
    private boolean withEdges;
    /** With edge ids on a graph with a weight column: answers carry each edge's weight (drawn by or not). */
    private boolean edgeWeights;

    /** Loading: a group bigger than {@link #INLINE_GROUP} under its first edge's order key ({@link EdgeGroup#order}). */
    private transient MapState<Long, long[]> loading;
    private transient MapStateDescriptor<Long, long[]> loadingDescriptor;
    /** Loading: the node's groups in arrival order ({@link NeighborBuckets.GroupIndex}); removed by a cut. */
    private transient ListState<long[]> groupIndex;
    private transient ListStateDescriptor<long[]> groupIndexDescriptor;
    /** Weighted: the node's groups' weights ({@link WeightedPicks#entry}), never cut. */
    private transient ListState<long[]> weights;
    private transient ListStateDescriptor<long[]> weightsDescriptor;
    /** Weighted: the nodes read last, whole lists with their weights and alias tables, in the head cache's budget. */
    private transient ValueCache<WeightedPicks.Node> weightedNodes;
    /** Temporal: the node's groups' times ({@link GroupValues#entry}), never cut. */
    private transient ListState<long[]> times;
    private transient ListStateDescriptor<long[]> timesDescriptor;
    /** Temporal: the nodes read last, whole lists sorted by time (with weights), in the head cache's budget. */
    private transient ValueCache<TemporalPicks.Node> temporalNodes;
    /** With edge ids: the node's groups' input rows ({@link GroupValues#entry}), never cut. */
    private transient ListState<long[]> edgeIds;
    private transient ListStateDescriptor<long[]> edgeIdsDescriptor;
    /** With edge ids: the nodes read last, whole lists with their edges' data, in the head cache's budget. */
    private transient ValueCache<EdgeListNode> edgeNodes;
    private transient ListState<RequestGroup> waiting;
    private transient ListStateDescriptor<RequestGroup> waitingDescriptor;
    /** {@code [degree, bucket 0's neighbours]} once cut ({@link NeighborBuckets#head}), absent before and for no edges. */
    private transient ValueState<long[]> head;
    /** Once cut: bucket index (1 and up) -> its neighbours, in the in-memory store's list order. */
    private transient MapState<Integer, long[]> buckets;
    private transient NeighborBuckets layout;
    private transient boolean edgesDone;
    private transient HeadCache cache;
    private transient HeadGather gather;
    /** Scratch: the heads of the group being answered. */
    private transient long[][] headScratch;
    private transient LongCounter cacheHits;
    private transient LongCounter cacheMisses;

    /**
     * @param fanout this hop's fanout ({@code -1} = all)
     * @param replace sample with replacement
     * @param seed the job seed
     * @param bucketSize neighbours per stored bucket, {@code >= 1}
     * @param cacheBytes heap for recently read node heads ({@link HeadCache}), {@code >= 0}, or -1: sized from the
     *     TaskManager's heap ({@link #autoCacheBytes})
     * @param cachedLookups the job's cached lookup operators (one per hop, or per walked (edge type, hop), and each
     *     node-data lookup), for the automatic cache size
     * @param compactAfterLoad compact the loaded groups once the edges end ({@link LoadCompaction})
     */
    public NeighborLookupOperator(int fanout, boolean replace, long seed, int bucketSize, long cacheBytes, int cachedLookups,
            boolean compactAfterLoad) {
        this.fanout = fanout;
        this.replace = replace;
        this.seed = seed;
        this.bucketSize = bucketSize;
        this.cacheBytes = cacheBytes;
        this.cachedLookups = cachedLookups;
        this.compactAfterLoad = compactAfterLoad;
        new NeighborBuckets(bucketSize); // fail here, on the client, for a bad size
        if (cacheBytes != -1) {
            new HeadCache(cacheBytes);
        }
    }

    /**
     * Draws in proportion to the loaded edges' weights ({@code fanout.weight-column}): each group's weights are kept
     * under the node's key with the group's order key ({@link WeightedPicks#entry}), a blind append as the index.
     */
    public NeighborLookupOperator weighted(boolean weighted) {
        this.weighted = weighted;
        return this;
    }

    /**
     * Samples temporally ({@code fanout.time-column}): each group's edge times are kept under the node's key with the
     * group's order key ({@link GroupValues#entry}), and a request's node draws among its edges up to the time of its
     * tree ({@link RequestGroup#times}); with {@code last}, takes the most recent of them ({@link TemporalPicks}).
     */
    public NeighborLookupOperator temporal(boolean temporal, boolean last) {
        this.temporal = temporal;
        this.temporalLast = last;
        return this;
    }

    /**
     * Answers with each sampled edge's input row ({@code fanout.with-edge}), its weight with {@code weights} (the
     * graph has a weight column) and its time when the lookup is temporal: each group's input rows are kept under the
     * node's key with the group's order key ({@link GroupValues#entry}), and a node is read and cached whole
     * ({@link EdgeListNode}), as a weighted one is.
     */
    public NeighborLookupOperator withEdges(boolean withEdges, boolean weights) {
        this.withEdges = withEdges;
        this.edgeWeights = withEdges && weights;
        return this;
    }

    /** A node's loaded groups' input rows, one entry per group (compacted after the load). */
    static ListStateDescriptor<long[]> edgeIdsDescriptor() {
        return new ListStateDescriptor<>(EDGE_IDS, CompactLongArraySerializer.INSTANCE);
    }

    /** A node's loaded groups' edge times, one entry per group (compacted after the load). */
    static ListStateDescriptor<long[]> timesDescriptor() {
        return new ListStateDescriptor<>(EDGE_TIMES, CompactLongArraySerializer.INSTANCE);
    }

    /** A node's loaded groups' weights, one entry per group (compacted after the load). */
    static ListStateDescriptor<long[]> weightsDescriptor() {
        return new ListStateDescriptor<>(EDGE_WEIGHTS, CompactLongArraySerializer.INSTANCE);
    }

    /** The loaded groups too big for the index, by order key (compacted after the load: {@link LoadCompaction}). */
    static MapStateDescriptor<Long, long[]> loadingDescriptor() {
        return new MapStateDescriptor<>(EDGE_GROUPS, LongSerializer.INSTANCE, CompactLongArraySerializer.INSTANCE);
    }

    /** A node's group index (compacted after the load). */
    static ListStateDescriptor<long[]> groupIndexDescriptor() {
        return new ListStateDescriptor<>(GROUP_INDEX, GroupIndexEntrySerializer.INSTANCE);
    }

    /**
     * The automatic cache size: an eighth of this JVM's heap, shared by the lookup subtasks a TaskManager can run
     * (one per hop in each task slot), so all of them together take at most that eighth. On R-MAT 2^20 (p=1, a
     * 6 GB heap: 384 MB) the first epoch's hits went from 11 % (32 MB) to 62 % and its rate from 131 k to 224 k
     * sampled edges/s.
     */
    static long autoCacheBytes(long maxHeap, int lookups, int slots) {
        return maxHeap / 8 / ((long) Math.max(lookups, 1) * Math.max(slots, 1));
    }

    /**
     * The heap one lookup subtask of {@code operator} caches in: {@code cacheBytes} ({@code --partitioned.cache-mb})
     * capped to a 16th of the heap, or with -1 {@link #autoCacheBytes} over {@code lookups} lookup operators a slot
     * ({@code lookupsName}: lookups, PPR fetch rounds) and the TaskManager's slots; logged as {@code what}.
     */
    static long cacheCapacity(AbstractStreamOperator<?> operator, long cacheBytes, int lookups, String what,
            String lookupsName) {
        long maxHeap = Runtime.getRuntime().maxMemory();
        if (cacheBytes < 0) {
            int slots = operator.getContainingTask().getEnvironment().getTaskManagerInfo().getConfiguration()
                    .get(TaskManagerOptions.NUM_TASK_SLOTS);
            long auto = autoCacheBytes(maxHeap, lookups, slots);
            LOG.info("{} of {} bytes: an eighth of the TaskManager heap ({} bytes) over {} {} x {} task slots", what,
                    auto, maxHeap, lookups, lookupsName, slots);
            return auto;
        }
        // At most a 16th of this JVM's heap per lookup subtask: a TaskManager smaller than the graph (the case this
        // store is for) must not run out of heap for a cache, whatever --partitioned.cache-mb says.
        long capped = Math.min(cacheBytes, maxHeap / 16);
        if (capped < cacheBytes) {
            LOG.info("{} of {} bytes instead of {}: at most a 16th of the TaskManager heap ({} bytes)", what, capped,
                    cacheBytes, maxHeap);
        }
        return capped;
    }

    @Override
    public void open() throws Exception {
        super.open();
        loadingDescriptor = loadingDescriptor();
        loading = getRuntimeContext().getMapState(loadingDescriptor);
        groupIndexDescriptor = groupIndexDescriptor();
        groupIndex = getRuntimeContext().getListState(groupIndexDescriptor);
        waitingDescriptor = new ListStateDescriptor<>(WAITING, TypeInformation.of(RequestGroup.class));
        waiting = getRuntimeContext().getListState(waitingDescriptor);
        head = getRuntimeContext().getState(new ValueStateDescriptor<>("head",
                CompactLongArraySerializer.INSTANCE));
        buckets = getRuntimeContext().getMapState(new MapStateDescriptor<>("buckets", IntSerializer.INSTANCE,
                CompactLongArraySerializer.INSTANCE));
        layout = new NeighborBuckets(bucketSize);
        gather = new HeadGather(layout);
        if (weighted || edgeWeights) {
            weightsDescriptor = weightsDescriptor();
            weights = getRuntimeContext().getListState(weightsDescriptor);
        }
        if (temporal) {
            timesDescriptor = timesDescriptor();
            times = getRuntimeContext().getListState(timesDescriptor);
        }
        if (withEdges) {
            edgeIdsDescriptor = edgeIdsDescriptor();
            edgeIds = getRuntimeContext().getListState(edgeIdsDescriptor);
        }
        headScratch = new long[0][];
        long cacheCapacity = cacheCapacity(this, cacheBytes, cachedLookups, "head cache", "lookups");
        // Weighted, temporal and edge-data lookups cache whole nodes instead of heads (their draws need the whole list
        // and its weights or times, their answers its edges' data): one budget.
        cache = new HeadCache(weighted || temporal || withEdges ? 0 : cacheCapacity);
        weightedNodes = weighted && !temporal && !withEdges ? new ValueCache<>(cacheCapacity) : null;
        temporalNodes = temporal && !withEdges ? new ValueCache<>(cacheCapacity) : null;
        edgeNodes = withEdges ? new ValueCache<>(cacheCapacity) : null;
        cacheHits = getRuntimeContext().getLongCounter(CACHE_HITS);
        cacheMisses = getRuntimeContext().getLongCounter(CACHE_MISSES);
        var metrics = getRuntimeContext().getMetricGroup().addGroup("fanout");
        metrics.gauge("headCacheHits", cache::hits);
        metrics.gauge("headCacheMisses", cache::misses);
        metrics.gauge("headCacheBytes", cache::bytes);
        metrics.gauge("bucketCacheHits", cache::bucketHits);
        metrics.gauge("bucketCacheMisses", cache::bucketMisses);
        metrics.gauge("bucketCacheBytes", cache::bucketBytes);
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (inputId != 1) {
            return;
        }
        edgesDone = true;
        if (compactAfterLoad) {
            // Before the waiting requests: they are the first reads of the loaded groups.
            List<StateDescriptor<?, ?>> loaded = new ArrayList<>(List.of(groupIndexDescriptor, loadingDescriptor));
            if (weighted || edgeWeights) {
                loaded.add(weightsDescriptor);
            }
            if (temporal) {
                loaded.add(timesDescriptor);
            }
            if (withEdges) {
                loaded.add(edgeIdsDescriptor);
            }
            LoadCompaction.compact(this, getOperatorName(), loaded.toArray(new StateDescriptor<?, ?>[0]));
        }
        // Answer the requests that waited for the whole graph.
        KeyedDrain.drain(this, WAITING, waiting, group -> group.batchKey, this::answer);
        if (compactAfterLoad) {
            // The drained requests are gone, but a checkpoint during the load flushed them to a sorted run that
            // nothing else compacts, so every later checkpoint uploaded them again: 2.7 of the first hop's 12.6 MB
            // on R-MAT 2^16, p=2 (1.3 bytes per stored edge). Compacting their column family drops them.
            LoadCompaction.compact(this, getOperatorName() + " (requests that waited for the load)", waitingDescriptor);
        }
    }

    @Override
    public void processElement1(StreamRecord<EdgeGroupBatch> element) throws Exception {
        EdgeGroupBatch batch = element.getValue();
        long[] neighbors = batch.neighbors;
        for (int i = 0, from = 0; i < batch.nodes.length; from = batch.ends[i++]) {
            RequestRouting.toKey(this, batch.nodes[i]);
            long order = batch.orders[i];
            int size = batch.ends[i] - from;
            if (weighted || edgeWeights) {
                if (batch.weights == null) {
                    throw new IllegalStateException("a weighted lookup received edges without weights");
                }
                weights.add(WeightedPicks.entry(order, batch.weights, from, batch.ends[i]));
            }
            if (temporal) {
                if (batch.times == null) {
                    throw new IllegalStateException("a temporal lookup received edges without times");
                }
                times.add(GroupValues.entry(order, batch.times, from, batch.ends[i]));
            }
            if (withEdges) {
                if (batch.eids == null) {
                    throw new IllegalStateException("a lookup with edge ids received edges without them");
                }
                edgeIds.add(GroupValues.entry(order, batch.eids, from, batch.ends[i]));
            }
            if (size <= INLINE_GROUP) {
                groupIndex.add(NeighborBuckets.GroupIndex.inline(order, neighbors, from, size));
            } else {
                loading.put(order, java.util.Arrays.copyOfRange(neighbors, from, batch.ends[i]));
                groupIndex.add(NeighborBuckets.GroupIndex.reference(order, size));
            }
        }
    }

    @Override
    public void processElement2(StreamRecord<RequestGroup> element) throws Exception {
        if (edgesDone) {
            answer(element.getValue());
        } else {
            waiting.add(element.getValue());
        }
    }

    /**
     * Answers every node of the group as one record: first every node's head (from the cache, or read under the
     * node's own key), then the draws and neighbours of all of them in passes ({@link HeadGather}).
     */
    private void answer(RequestGroup group) throws Exception {
        if (withEdges) {
            answerWithEdges(group);
            return;
        }
        if (temporal) {
            answerTemporal(group);
            return;
        }
        if (weighted) {
            answerWeighted(group);
            return;
        }
        long hits = cache.hits();
        long misses = cache.misses();
        long[] nodes = group.nodes;
        int n = nodes.length;
        long[][] heads = n <= headScratch.length ? headScratch : (headScratch = new long[n][]);
        for (int i = 0; i < n; i++) {
            long[] h = cache.get(nodes[i]);
            if (h == null) {
                RequestRouting.toKey(this, nodes[i]);
                h = cutBuckets();
                cache.put(nodes[i], h);
            }
            heads[i] = h;
        }
        int[] ends = new int[n];
        long[] neighbors;
        try {
            neighbors = gather.gather(nodes, group.trees, heads, n, seed, group.epoch, group.batchId, group.hop,
                    fanout, replace, ends, (index, bucket) -> {
                        long node = nodes[index];
                        long[] values = cache.bucket(node, bucket);
                        if (values == null) {
                            RequestRouting.toKey(this, node); // read from keyed state
                            values = buckets.get(bucket);
                            cache.putBucket(node, bucket, layout.bucketCount(NeighborBuckets.degreeOf(heads[index])),
                                    values);
                        }
                        return values;
                    });
        } finally {
            Arrays.fill(heads, 0, n, null); // the scratch must not keep heads the cache has dropped
        }
        if (group.members != null) { // an induced subgraph's lookup (fanout -1): the neighbours in the batch
            neighbors = InducedEdges.keepMembers(neighbors, ends, n, group.members);
        }
        output.collect(new StreamRecord<>(new AnswerGroup(group.batchKey, group.positions, ends, neighbors)));
        cacheHits.add(cache.hits() - hits);
        cacheMisses.add(cache.misses() - misses);
    }

    /**
     * Weighted draws, node by node ({@link RequestRouting#answerEach}): a node that takes its whole list is answered
     * with it; any other draws as the in-memory store does ({@link WeightedPicks}). A node read (its whole list, and
     * to draw its weights and alias table) is cached whole, so a miss costs the node's degree and a hit a draw.
     */
    private void answerWeighted(RequestGroup group) throws Exception {
        long hits = weightedNodes.hits();
        long misses = weightedNodes.misses();
        output.collect(new StreamRecord<>(RequestRouting.answerEach(group, (i, node) -> {
            WeightedPicks.Node cached = weightedNodes.get(node);
            long[] list = cached != null ? cached.list() : wholeList(node);
            int d = list.length;
            int k = NeighborPicks.count(d, fanout, replace);
            if (k == 0 || NeighborPicks.takesAll(d, fanout, replace)) {
                if (cached == null) {
                    cached = WeightedPicks.Node.listOnly(list);
                    weightedNodes.put(node, cached, cached.bytes());
                }
                return list; // no draws: the list as stored
            }
            if (cached == null || !cached.draws()) {
                try {
                    cached = WeightedPicks.Node.of(list, WeightedPicks.inListOrder(weights.get(), d, node), node);
                } catch (IllegalArgumentException e) { // bad input (all weights 0): a restart would fail again
                    throw new SuppressRestartsException(e);
                }
                weightedNodes.put(node, cached, cached.bytes());
            }
            long state = NeighborPicks.state(seed, group.epoch, group.batchId, group.hop,
                    group.trees == null ? -1 : group.trees[i], node);
            int[] picks = cached.positions(state, fanout, replace);
            long[] sampled = new long[k];
            for (int c = 0; c < k; c++) {
                sampled[c] = list[picks[c]];
            }
            return sampled;
        })));
        cacheHits.add(weightedNodes.hits() - hits);
        cacheMisses.add(weightedNodes.misses() - misses);
    }

    /**
     * Temporal draws, node by node ({@link RequestRouting#answerEach}): each node's whole list, its times (and with
     * weights, its weights) read once and sorted by time ({@link TemporalPicks.Node}, cached whole), then the edges
     * up to the time of the node's tree drawn from its tree's stream.
     */
    private void answerTemporal(RequestGroup group) throws Exception {
        if (group.times == null || group.trees == null) {
            throw new IllegalStateException("a temporal lookup received requests without seed times or trees");
        }
        long hits = temporalNodes.hits();
        long misses = temporalNodes.misses();
        output.collect(new StreamRecord<>(RequestRouting.answerEach(group, (i, node) -> {
            TemporalPicks.Node cached = temporalNodes.get(node);
            if (cached == null) {
                long[] list = wholeList(node);
                int d = list.length;
                try {
                    cached = TemporalPicks.Node.of(list, GroupValues.inListOrder(times.get(), d, node, "times"),
                            weighted ? WeightedPicks.inListOrder(weights.get(), d, node) : null, node);
                } catch (IllegalArgumentException e) { // bad input (all weights 0): a restart would fail again
                    throw new SuppressRestartsException(e);
                }
                temporalNodes.put(node, cached, cached.bytes());
            }
            return cached.sample(seed, group.epoch, group.batchId, group.hop, group.trees[i], node, group.times[i],
                    temporalLast, fanout, replace);
        })));
        cacheHits.add(temporalNodes.hits() - hits);
        cacheMisses.add(temporalNodes.misses() - misses);
    }

    /**
     * Draws as the lookup without edge data does (uniform, weighted or temporal, each node in its tree's stream),
     * node by node from its whole list ({@link EdgeListNode}, cached whole), and answers each pick with its edge's
     * input row, weight (weighted) and time (temporal); an induced subgraph's lookup (fanout -1, members) keeps the
     * edges to the batch's nodes, in list order.
     */
    private void answerWithEdges(RequestGroup group) throws Exception {
        if (temporal && (group.times == null || group.trees == null)) {
            throw new IllegalStateException("a temporal lookup received requests without seed times or trees");
        }
        long hits = edgeNodes.hits();
        long misses = edgeNodes.misses();
        int n = group.nodes.length;
        int[] ends = new int[n];
        int[][] picked = new int[n][];
        EdgeListNode[] read = new EdgeListNode[n];
        int total = 0;
        for (int i = 0; i < n; i++) {
            long node = group.nodes[i];
            EdgeListNode cached = edgeNodes.get(node);
            if (cached == null) {
                long[] list = wholeList(node);
                int d = list.length;
                try {
                    cached = EdgeListNode.of(list, GroupValues.inListOrder(edgeIds.get(), d, node, "edge ids"),
                            weighted || edgeWeights ? WeightedPicks.inListOrder(weights.get(), d, node) : null,
                            weighted, temporal ? GroupValues.inListOrder(times.get(), d, node, "times") : null, node);
                } catch (IllegalArgumentException e) { // bad input (all weights 0): a restart would fail again
                    throw new SuppressRestartsException(e);
                }
                edgeNodes.put(node, cached, cached.bytes());
            }
            int[] positions;
            try {
                positions = cached.positions(seed, group.epoch, group.batchId, group.hop,
                        group.trees == null ? -1 : group.trees[i], node, temporal ? group.times[i] : 0, temporalLast,
                        fanout, replace);
            } catch (IllegalArgumentException e) {
                throw new SuppressRestartsException(e);
            }
            if (group.members != null) { // an induced subgraph's lookup: the edges to the batch's nodes
                long[] list = cached.list();
                positions = Arrays.stream(positions)
                        .filter(p -> Arrays.binarySearch(group.members, list[p]) >= 0).toArray();
            }
            picked[i] = positions;
            read[i] = cached;
            total = Math.addExact(total, positions.length);
            ends[i] = total;
        }
        long[] neighbors = new long[total];
        long[] eids = new long[total];
        float[] answerWeights = edgeWeights ? new float[total] : null;
        long[] edgeTimes = temporal ? new long[total] : null;
        for (int i = 0, at = 0; i < n; i++) {
            EdgeListNode node = read[i];
            for (int p : picked[i]) {
                neighbors[at] = node.list()[p];
                eids[at] = node.eids()[p];
                if (answerWeights != null) {
                    answerWeights[at] = node.weights()[p];
                }
                if (edgeTimes != null) {
                    edgeTimes[at] = node.times()[p];
                }
                at++;
            }
        }
        AnswerGroup answers = new AnswerGroup(group.batchKey, group.positions, ends, neighbors);
        answers.eids = eids;
        answers.weights = answerWeights;
        answers.times = edgeTimes;
        output.collect(new StreamRecord<>(answers));
        cacheHits.add(edgeNodes.hits() - hits);
        cacheMisses.add(edgeNodes.misses() - misses);
    }

    /** Node {@code node}'s whole list, in list order, read under its key (cut at its first request). */
    private long[] wholeList(long node) throws Exception {
        RequestRouting.toKey(this, node);
        long[] first = cutBuckets();
        int d = NeighborBuckets.degreeOf(first);
        int[] all = new int[d];
        for (int p = 0; p < d; p++) {
            all[p] = p;
        }
        return d == 0 ? new long[0] : layout.gatherFromHead(all, first, buckets::get);
    }

    /**
     * The current node's head: from its group index when every group is there and the degree fits one bucket;
     * otherwise from the cut (made here at the node's first request: groups read by key in list order, cut into
     * buckets, index and groups removed). A node without edges has no head: {@code [0]}.
     */
    private long[] cutBuckets() throws Exception {
        Iterable<long[]> index = groupIndex.get();
        if (index == null || !index.iterator().hasNext()) { // cut, or no edges
            long[] known = head.value();
            return known == null ? NO_EDGES : known;
        }
        long[] inline = layout.inlineHead(index);
        if (inline != null) {
            return inline; // the index is the list: nothing to write
        }
        NeighborBuckets.GroupIndex groups = NeighborBuckets.GroupIndex.of(index);
        long[] first = layout.cutIndexed(groups, order -> {
            long[] neighbors = loading.get(order);
            if (neighbors == null) {
                throw new IllegalStateException("node " + getCurrentKey() + ": loaded group " + order + " is missing");
            }
            return neighbors;
        }, buckets::put);
        if (groups.allInline() && groups.degree() <= bucketSize) {
            return first; // the index is the list: nothing to write
        }
        for (long order : groups.references()) {
            loading.remove(order);
        }
        groupIndex.clear();
        head.update(first);
        return first;
    }
}
