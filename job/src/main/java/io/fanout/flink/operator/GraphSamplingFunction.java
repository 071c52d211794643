package io.fanout.flink.operator;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fanout.batch.SeedBatch;
import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.NodeFeatures;
import io.fanout.message.BatchHeader;
import io.fanout.message.MessageEncoder;
import io.fanout.message.MessageWriter;
import io.fanout.message.Sample;
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
 * What every keyed sampling operator shares: the graph lease, the counters, and the emission of one message per
 * {@link SeedBatch}, encoded by the message layer ({@link MessageEncoder}). Subclasses only build their sampler and
 * turn its output into a {@link Sample}.
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
    private boolean borrowMessages;

    /** True while {@link #emit} hands a message downstream: failures there are not sampling errors. */
    private transient boolean emitting;
    private transient SharedGraphs.Lease graph;
    private transient SamplingCounters counters;
    /** The buffer every message of this subtask is encoded into, one after another. */
    private transient MessageWriter writer;
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
            out.collect(new EncodedMessage(batch.epoch, batch.batchId, batch.numBatches,
                    MessageEncoder.samplingError(batch.epoch, batch.batchId, batch.numBatches, trace.toString(), shares)));
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
        writer = borrowMessages ? new MessageWriter() : null;
        early = getRuntimeContext().getState(new ValueStateDescriptor<>("early-batch", Types.POJO(SeedBatch.class)));
        openSampler(graph);
    }

    /** The shared graph store (valid between open and close). */
    protected GraphStore store() {
        return graph.graph();
    }

    /**
     * Emit borrowed messages, encoded one after another into the subtask's reused buffer ({@link MessageWriter}),
     * instead of a fresh array per message: for a stream declared with the borrowed messages' type
     * ({@code EncodedMessageTypeInfo.TYPE}, whose serializer copies or writes their bytes where Flink copies or
     * sends a record; Flink's POJO type would drop them) into sinks that write each message out or copy it before
     * the next one is encoded (every Fanout sink). {@code FanoutJob} does; a pipeline of its own keeps owned messages.
     */
    public GraphSamplingFunction borrowingMessages() {
        this.borrowMessages = true;
        return this;
    }

    /** Encodes the sample through the message layer's one encoder, counts the batch and emits it. */
    protected void emit(SeedBatch batch, Sample sample, BatchHeader header, int numNodes, int numEdges,
            Collector<EncodedMessage> out) {
        EncodedMessage message = borrowMessages ? writer.write(sample, header, shares)
                : new EncodedMessage(batch.epoch, batch.batchId, batch.numBatches, MessageEncoder.encode(sample, header, shares));
        counters.onBatch(batch.seeds.length, numNodes, numEdges, message.length());
        emitting = true;
        out.collect(message);
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
