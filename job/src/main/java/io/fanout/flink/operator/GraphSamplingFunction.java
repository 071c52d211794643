package io.fanout.flink.operator;

import io.fanout.connectors.message.SamplingErrors;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fanout.batch.SeedBatch;
import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.message.DType;
import io.fanout.connectors.message.Tensor;
import io.fanout.features.FeatureDType;
import io.fanout.features.NodeFeatures;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.NodeIdMap;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
import io.fanout.store.LoadedGraph;
import io.fanout.store.SharedGraphs;
import org.apache.flink.api.common.accumulators.DoubleMaximum;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.accumulators.LongMaximum;
import org.apache.flink.api.common.accumulators.LongMinimum;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * What every keyed sampling operator shares: the graph lease, the counters, the batch metadata, the node ids,
 * features and labels of a message, and the encoding of one message per {@link SeedBatch}. Subclasses only
 * build their sampler and their tensors.
 *
 * <p>The graph comes from the JVM-wide {@link SharedGraphs} cache (loaded once per TaskManager, shared by
 * every subtask). A message depends only on the batch and the options, so parallelism, arrival order and
 * restarts do not change it.
 *
 * <p>When sampling a batch throws, the default is to emit a {@code #SAMPLING_ERROR} message for it
 * (GiGL's behaviour: the trainer gets the traceback instead of waiting forever); with
 * {@link #onSamplingError onSamplingError(true, ...)} the job fails instead.
 *
 * <p>Output is ordered by epoch: a batch of epoch {@code e} that arrives before the input watermark says epoch
 * {@code e - 1} is complete (a faster source reader is already in epoch {@code e}) waits in keyed state, with an
 * event-time timer, and is sampled when the watermark passes. The channel sink relies on this order
 * ({@code ChannelSink.withEpochOrderedInput}): otherwise its endpoint could fill with messages of epoch
 * {@code e}, which a trainer still reading {@code e - 1} does not take, while a batch of {@code e - 1} waits
 * behind them in this operator's input, and neither would ever move.
 */
public abstract class GraphSamplingFunction extends KeyedProcessFunction<Long, SeedBatch, EncodedMessage> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(GraphSamplingFunction.class);

    private final GraphSpec spec;

    private boolean failOnSamplingError;
    private long[] injectedErrors = new long[0];
    private TrainerShares shares = TrainerShares.ONE;

    /** True while {@link #emit} hands a message downstream: failures there are not sampling errors. */
    private transient boolean emitting;
    private transient SharedGraphs.Lease graph;
    private transient SamplingCounters counters;
    /** A batch of a later epoch than the input watermark allows yet (at most one per key: the key is the batch). */
    private transient ValueState<SeedBatch> early;

    protected GraphSamplingFunction(GraphSpec spec) {
        this.spec = spec;
    }

    /**
     * Sampling errors fail the job ({@code fail}) or become {@code #SAMPLING_ERROR} messages;
     * {@code injectedErrors} are batch keys ({@link SeedBatch#key()}) whose sampling throws on purpose (tests).
     */
    public GraphSamplingFunction onSamplingError(boolean fail, long[] injectedErrors) {
        this.failOnSamplingError = fail;
        this.injectedErrors = injectedErrors == null ? new long[0] : injectedErrors.clone();
        return this;
    }

    /** Messages carry their batch's trainer share ({@code #META.trainers}, {@code #META.padded}) when it has several. */
    public GraphSamplingFunction withTrainers(TrainerShares shares) {
        this.shares = shares == null ? TrainerShares.ONE : shares;
        return this;
    }

    /** Samples one batch and emits its message (through {@link #emit}). */
    protected abstract void sample(SeedBatch batch, Collector<EncodedMessage> out);

    @Override
    public final void processElement(SeedBatch batch, Context ctx, Collector<EncodedMessage> out) throws Exception {
        if (batch.epoch > 0 && ctx.timerService().currentWatermark() < batch.epoch - 1) {
            early.update(batch);
            ctx.timerService().registerEventTimeTimer(batch.epoch - 1);
            return;
        }
        sampleOrReport(batch, out);
    }

    /** The watermark says epoch {@code timestamp} is complete: sample the batch that waited for it. */
    @Override
    public final void onTimer(long timestamp, OnTimerContext ctx, Collector<EncodedMessage> out) throws Exception {
        SeedBatch batch = early.value();
        if (batch != null) {
            early.clear();
            sampleOrReport(batch, out);
        }
    }

    private void sampleOrReport(SeedBatch batch, Collector<EncodedMessage> out) {
        try {
            for (long key : injectedErrors) {
                if (key == batch.key()) {
                    throw new IllegalStateException("injected sampling error (option fanout.inject-sampling-errors) for epoch "
                            + batch.epoch + " batch " + batch.batchId);
                }
            }
            sample(batch, out);
        } catch (RuntimeException e) {
            if (failOnSamplingError || emitting) {
                emitting = false;
                throw e;
            }
            LOG.error("sampling epoch {} batch {} failed; sending a #SAMPLING_ERROR message instead", batch.epoch, batch.batchId, e);
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            TensorMessage error = SamplingErrors.message(batch.epoch, batch.batchId, batch.numBatches, trace.toString());
            out.collect(new EncodedMessage(batch.epoch, batch.batchId, batch.numBatches,
                    SafetensorsCodec.encode(withTrainerMetadata(error, shares, batch.batchId))));
        }
    }

    /** Creates the subtask's sampler over the shared homogeneous graph (called once, from open). */
    protected abstract void openSampler(GraphStore graph);

    /** Creates the subtask's sampler over the lease's graph; a sampler of typed graphs overrides this. */
    protected void openSampler(SharedGraphs.Lease lease) {
        openSampler(lease.graph());
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        graph = SharedGraphs.acquire(spec);
        counters = new SamplingCounters(getRuntimeContext(), graph.loaded());
        early = getRuntimeContext().getState(new ValueStateDescriptor<>("early-batch", Types.POJO(SeedBatch.class)));
        openSampler(graph);
    }

    /** The shared graph store (valid between open and close). */
    protected GraphStore store() {
        return graph.graph();
    }

    /**
     * Adds the keys every Fanout message carries: {@code #IS_HETERO}, the batch's epoch/id/count, the seed ids
     * ({@code batch}) and their input positions ({@code #META.input_id}).
     */
    static TensorMessage withBatchMetadata(TensorMessage message, SeedBatch batch, NodeIdMap ids) {
        return withBatchMetadata(message, nodeIds(ids, batch.seeds, batch.seeds.length), batch.inputIds, batch.epoch,
                batch.batchId, batch.numBatches);
    }

    /** As above, for a batch whose seed ids are already a tensor (any store). */
    public static TensorMessage withBatchMetadata(TensorMessage message, Tensor seedIds, int[] inputIds, int epoch,
            int batchId, int numBatches) {
        return withBatchMetadata(message, MessageKeys.BATCH, false, seedIds, inputIds, epoch, batchId, numBatches);
    }

    /**
     * As above, with the seed ids under {@code batchKey} and {@code #IS_HETERO} = [{@code hetero}]: a typed message
     * puts them under {@code {ntype}.batch}; a link message has no seed nodes ({@code batchKey} null).
     */
    public static TensorMessage withBatchMetadata(TensorMessage message, String batchKey, boolean hetero, Tensor seedIds,
            int[] inputIds, int epoch, int batchId, int numBatches) {
        if (batchKey != null) {
            message.put(batchKey, seedIds);
        }
        if (inputIds != null) {
            message.putInt64(MessageKeys.META_INPUT_ID, inputIds);
        }
        return message
                .putInt64(MessageKeys.IS_HETERO, new long[] {hetero ? 1L : 0L})
                .putInt64(MessageKeys.META_EPOCH, new long[] {epoch})
                .putInt64(MessageKeys.META_BATCH_ID, new long[] {batchId})
                .putInt64(MessageKeys.META_NUM_BATCHES, new long[] {numBatches});
    }

    /**
     * Adds {@code #META.trainers} = [N] and {@code #META.padded} = [0 or 1] when the job has several trainers, so a
     * client can check its N and skip padding in per-epoch counts; nothing with one trainer.
     */
    public static TensorMessage withTrainerMetadata(TensorMessage message, TrainerShares shares, int batchId) {
        if (shares != null && shares.tagsMessages()) {
            message.putInt64(MessageKeys.META_TRAINERS, new long[] {shares.trainers()})
                    .putInt64(MessageKeys.META_PADDED, new long[] {shares.isPadded(batchId) ? 1L : 0L});
        }
        return message;
    }

    /**
     * A link batch's labels as PyG's {@code LinkNeighborLoader} and GLT give them, each pair's ends as local indices
     * ({@code localSrc}, {@code localDst}: the positives first, then the negatives, triplet ones row-major
     * [P, perPositive]): {@code #META.edge_label_index} [2, N] with, for binary negatives, {@code #META.edge_label}
     * (1 for the P positives, then 0); for triplets {@code #META.src_index}, {@code #META.dst_pos_index} and
     * {@code #META.dst_neg_index} ([P], or [P, k] for k > 1 negatives per positive, as PyG squeezes it).
     */
    static TensorMessage withLinkLabels(TensorMessage message, io.fanout.sampling.link.NegativeSampling mode, int p,
            int perPositive, int[] localSrc, int[] localDst) {
        if (mode == io.fanout.sampling.link.NegativeSampling.TRIPLET) {
            return message.putInt64(MessageKeys.META_SRC_INDEX, localSrc)
                    .putInt64(MessageKeys.META_DST_POS_INDEX, java.util.Arrays.copyOfRange(localDst, 0, p))
                    .putInt64(MessageKeys.META_DST_NEG_INDEX, java.util.Arrays.copyOfRange(localDst, p, localDst.length),
                            perPositive == 1 ? new long[] {p} : new long[] {p, perPositive});
        }
        message.putInt64(MessageKeys.META_EDGE_LABEL_INDEX,
                io.fanout.sampling.link.LinkBatch.concat(localSrc, localDst), 2, localSrc.length);
        if (mode == io.fanout.sampling.link.NegativeSampling.BINARY) {
            float[] label = new float[localSrc.length];
            java.util.Arrays.fill(label, 0, p, 1f);
            message.putFloat32(MessageKeys.META_EDGE_LABEL, label, label.length);
        }
        return message;
    }

    /** ABLP label node indices as their ids, [rows, width] int64, padding kept as -1 (GiGL's PADDING_NODE). */
    static Tensor labelIds(NodeIdMap ids, int[] labels, int rows, int width) {
        long[] out = new long[labels.length];
        for (int i = 0; i < labels.length; i++) {
            out[i] = labels[i] == io.fanout.sampling.link.AnchorLabels.PADDING ? -1L : ids.id(labels[i]);
        }
        return Tensor.ofInt64(out, new long[] {rows, width});
    }

    /** The int64 ids of node indices {@code nodes[0..n)}: the indices themselves when ids equal indices. */
    static Tensor nodeIds(NodeIdMap ids, int[] nodes, int n) {
        if (ids.isIdentity()) {
            return Tensor.ofInt64Prefix(nodes, n);
        }
        long[] out = new long[n];
        long[] byIndex = ids.idsOrNull();
        for (int i = 0; i < n; i++) {
            out[i] = byIndex[nodes[i]];
        }
        return Tensor.ofInt64(out);
    }

    /**
     * Adds {@code nfeats} ([n, dim] in the store's dtype; uint8 with {@code #META.nfeats_scale} and
     * {@code #META.nfeats_offset}) and {@code nlabels} (int64 [n]) of node indices {@code nodes[0..n)}, rows
     * aligned with {@code ids}, when the graph has a node file.
     */
    static TensorMessage withNodeData(TensorMessage message, NodeFeatures features, int[] nodes, int n) {
        return withNodeData(message, features, nodes, n, "", true);
    }

    /**
     * As above, with every key prefixed ({@code {ntype}.nfeats}, {@code #META.{ntype}.nfeats_scale} in a typed
     * message; {@code prefix} is empty or ends with a dot); labels only when {@code labels} (GLT's typed messages
     * carry the seed type's labels only).
     */
    static TensorMessage withNodeData(TensorMessage message, NodeFeatures features, int[] nodes, int n, String prefix,
            boolean labels) {
        if (features == null) {
            return message;
        }
        if (features.hasFeatures()) {
            FeatureDType dtype = features.dtype();
            message.put(prefix + MessageKeys.NFEATS, Tensor.ofBytes(DType.valueOf(dtype.safetensorsName()),
                    new long[] {n, features.dim()}, features.gatherRows(nodes, n)));
            if (dtype == FeatureDType.UINT8) {
                String meta = "#META.";
                message.putFloat32(meta + prefix + MessageKeys.META_NFEATS_SCALE.substring(meta.length()),
                        features.scale(), features.dim());
                message.putFloat32(meta + prefix + MessageKeys.META_NFEATS_OFFSET.substring(meta.length()),
                        features.offset(), features.dim());
            }
        }
        if (labels && features.hasLabels()) {
            message.putInt64(prefix + MessageKeys.NLABELS, features.gatherLabels(nodes, n));
        }
        return message;
    }

    /**
     * Adds {@code eids} (int64 [m], each edge's input row) and, with a weight column, {@code efeats} (float32 [m, 1])
     * of the edges at CSR positions {@code positions[0..m)}, keys prefixed by {@code prefix}; nothing when the
     * graph kept no edge ids.
     */
    static TensorMessage withEdgeData(TensorMessage message, CsrGraph graph, int[] positions, int m, String prefix) {
        if (positions == null || !graph.hasEdgeIds()) {
            return message;
        }
        int[] edgeIds = graph.edgeIds();
        long[] eids = new long[m];
        for (int i = 0; i < m; i++) {
            eids[i] = edgeIds[positions[i]];
        }
        message.putInt64(prefix + MessageKeys.EIDS, eids);
        if (graph.hasWeights()) {
            float[] weights = graph.weights();
            float[] efeats = new float[m];
            for (int i = 0; i < m; i++) {
                efeats[i] = weights[positions[i]];
            }
            message.putFloat32(prefix + MessageKeys.EFEATS, efeats, m, 1);
        }
        return message;
    }

    /** Encodes message, counts the batch and emits it. */
    protected void emit(SeedBatch batch, TensorMessage message, int numNodes, int numEdges,
            Collector<EncodedMessage> out) {
        byte[] payload = SafetensorsCodec.encode(withTrainerMetadata(message, shares, batch.batchId));
        counters.onBatch(batch.seeds.length, numNodes, numEdges, payload.length);
        emitting = true;
        out.collect(new EncodedMessage(batch.epoch, batch.batchId, batch.numBatches, payload));
        emitting = false;
    }

    @Override
    public void close() throws Exception {
        if (graph != null) {
            graph.close();
            graph = null;
        }
    }

    /** Flink metrics (live) and accumulators (for the end-of-job summary) of a sampling subtask. */
    public static final class SamplingCounters {
        public static final String BATCHES = "fanout.batches";
        public static final String SEEDS = "fanout.seeds";
        public static final String NODES = "fanout.sampled-nodes";
        public static final String EDGES = "fanout.sampled-edges";
        public static final String BYTES = "fanout.message-bytes";
        /** The graph as the TaskManagers loaded it (max over subtasks: every one holds the same store). */
        public static final String GRAPH_NODES = "fanout.graph-nodes";
        public static final String GRAPH_EDGES = "fanout.graph-edges";
        public static final String GRAPH_HEAP_BYTES = "fanout.graph-heap-bytes";
        public static final String FEATURE_DIM = "fanout.feature-dim";
        public static final String FEATURE_VALUE_BYTES = "fanout.feature-value-bytes";
        public static final String FEATURE_HEAP_BYTES = "fanout.feature-heap-bytes";
        public static final String FEATURE_MAX_ERROR = "fanout.feature-max-error";
        /**
         * Wall-clock time (epoch ms) of the first and the last message any subtask emitted: the sampling window,
         * which excludes start-up and a partitioned store's load (benchmarks compare stores on it).
         */
        public static final String FIRST_MESSAGE_MS = "fanout.first-message-ms";
        public static final String LAST_MESSAGE_MS = "fanout.last-message-ms";

        private final LongCounter batches;
        private final LongCounter seeds;
        private final LongCounter nodes;
        private final LongCounter edges;
        private final LongCounter bytes;
        private final Counter batchesMetric;
        private final Counter edgesMetric;
        private final Counter bytesMetric;
        private final LongMinimum firstMessage = new LongMinimum();
        private final LongMaximum lastMessage = new LongMaximum();

        /** @param graph the store this subtask samples, or null when no subtask holds the whole graph */
        public SamplingCounters(RuntimeContext ctx, LoadedGraph graph) {
            batches = ctx.getLongCounter(BATCHES);
            seeds = ctx.getLongCounter(SEEDS);
            nodes = ctx.getLongCounter(NODES);
            edges = ctx.getLongCounter(EDGES);
            bytes = ctx.getLongCounter(BYTES);
            var group = ctx.getMetricGroup().addGroup("fanout");
            batchesMetric = group.counter("batchesSampled");
            edgesMetric = group.counter("edgesSampled");
            bytesMetric = group.counter("messageBytes");
            ctx.addAccumulator(FIRST_MESSAGE_MS, firstMessage);
            ctx.addAccumulator(LAST_MESSAGE_MS, lastMessage);
            if (graph == null) {
                return;
            }
            group.gauge("graphEdges", graph::numEdges);
            group.gauge("graphHeapBytes", graph::heapBytes);
            maximum(ctx, GRAPH_NODES, graph.numNodes());
            maximum(ctx, GRAPH_EDGES, graph.numEdges());
            maximum(ctx, GRAPH_HEAP_BYTES, graph.structureHeapBytes());
            NodeFeatures features = graph.features();
            if (features != null) {
                maximum(ctx, FEATURE_DIM, features.dim());
                maximum(ctx, FEATURE_VALUE_BYTES, features.bytesPerValue());
                maximum(ctx, FEATURE_HEAP_BYTES, features.heapBytes());
                DoubleMaximum error = new DoubleMaximum(features.maxError());
                ctx.addAccumulator(FEATURE_MAX_ERROR, error);
            }
        }

        private static void maximum(RuntimeContext ctx, String name, long value) {
            ctx.addAccumulator(name, new LongMaximum(value));
        }

        public void onBatch(int numSeeds, int numNodes, int numEdges, int numBytes) {
            batches.add(1);
            seeds.add(numSeeds);
            nodes.add(numNodes);
            edges.add(numEdges);
            bytes.add(numBytes);
            batchesMetric.inc();
            edgesMetric.inc(numEdges);
            bytesMetric.inc(numBytes);
            long now = System.currentTimeMillis();
            firstMessage.add(now);
            lastMessage.add(now);
        }
    }
}
