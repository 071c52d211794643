package io.fanout.flink.operator;

import io.fanout.connectors.message.SamplingErrors;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedSample;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.SampleMessage;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.SharedGraphs;
import java.nio.file.Path;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * What every keyed sampling operator shares: the graph lease, the counters, the batch metadata and the
 * encoding of one message per {@link SeedBatch}. Subclasses only build their sampler and their tensors.
 *
 * <p>The graph comes from the JVM-wide {@link SharedGraphs} cache (loaded once per TaskManager, shared by
 * every subtask). A message depends only on the batch and the options, so parallelism, arrival order and
 * restarts do not change it.
 *
 * <p>When sampling a batch throws, the default is to emit a {@code #SAMPLING_ERROR} message for it
 * (GiGL's behaviour: the trainer gets the traceback instead of waiting forever); with
 * {@link #onSamplingError onSamplingError(true, ...)} the job fails instead.
 */
public abstract class GraphSamplingFunction extends KeyedProcessFunction<Long, SeedBatch, EncodedSample> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(GraphSamplingFunction.class);

    private final String graphPath;
    private final EdgeDirection direction;
    /** Option fanout.directed for edge files without a directed= header, or null (the header decides). */
    private Boolean directed;

    private boolean failOnSamplingError;
    private long[] injectedErrors = new long[0];

    /** True while {@link #emit} hands a message downstream: failures there are not sampling errors. */
    private transient boolean emitting;
    private transient SharedGraphs.Lease graph;
    private transient SamplingCounters counters;

    protected GraphSamplingFunction(String graphPath, EdgeDirection direction) {
        this.graphPath = graphPath;
        this.direction = direction;
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

    /** The graph's directedness where its edge files' headers do not say (option fanout.directed); null: they must. */
    public GraphSamplingFunction directed(Boolean directed) {
        this.directed = directed;
        return this;
    }

    /** Samples one batch and emits its message (through {@link #emit}). */
    protected abstract void sample(SeedBatch batch, Collector<EncodedSample> out);

    @Override
    public final void processElement(SeedBatch batch, Context ctx, Collector<EncodedSample> out) {
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
            out.collect(new EncodedSample(batch.epoch, batch.batchId, batch.numBatches,
                    SamplingErrors.encode(batch.epoch, batch.batchId, batch.numBatches, trace.toString())));
        }
    }

    /** Creates the subtask's sampler over the shared graph (called once, from open). */
    protected abstract void openSampler(CsrGraph graph);

    @Override
    public void open(OpenContext openContext) throws Exception {
        graph = SharedGraphs.acquire(Path.of(graphPath), direction, directed);
        counters = new SamplingCounters(getRuntimeContext(), graph.graph());
        openSampler(graph.graph());
    }

    /** Adds the keys every Fanout message carries: {@code #IS_HETERO} and the batch's epoch/id/count. */
    static SampleMessage withBatchMetadata(SampleMessage message, SeedBatch batch) {
        return message
                .putInt64(MessageKeys.IS_HETERO, new long[] {0L})
                .putInt64(MessageKeys.META_EPOCH, new long[] {batch.epoch})
                .putInt64(MessageKeys.META_BATCH_ID, new long[] {batch.batchId})
                .putInt64(MessageKeys.META_NUM_BATCHES, new long[] {batch.numBatches});
    }

    /** Encodes message, counts the batch and emits it. */
    protected void emit(SeedBatch batch, SampleMessage message, int numNodes, int numEdges,
            Collector<EncodedSample> out) {
        byte[] payload = SafetensorsCodec.encode(message);
        counters.onBatch(batch.seeds.length, numNodes, numEdges, payload.length);
        emitting = true;
        out.collect(new EncodedSample(batch.epoch, batch.batchId, batch.numBatches, payload));
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
    static final class SamplingCounters {
        static final String BATCHES = "fanout.batches";
        static final String SEEDS = "fanout.seeds";
        static final String NODES = "fanout.sampled-nodes";
        static final String EDGES = "fanout.sampled-edges";
        static final String BYTES = "fanout.message-bytes";

        private final LongCounter batches;
        private final LongCounter seeds;
        private final LongCounter nodes;
        private final LongCounter edges;
        private final LongCounter bytes;
        private final Counter batchesMetric;
        private final Counter edgesMetric;
        private final Counter bytesMetric;

        SamplingCounters(RuntimeContext ctx, CsrGraph graph) {
            batches = ctx.getLongCounter(BATCHES);
            seeds = ctx.getLongCounter(SEEDS);
            nodes = ctx.getLongCounter(NODES);
            edges = ctx.getLongCounter(EDGES);
            bytes = ctx.getLongCounter(BYTES);
            var group = ctx.getMetricGroup().addGroup("fanout");
            batchesMetric = group.counter("batchesSampled");
            edgesMetric = group.counter("edgesSampled");
            bytesMetric = group.counter("messageBytes");
            group.gauge("graphEdges", graph::numEdges);
            group.gauge("graphHeapBytes", graph::heapBytes);
        }

        void onBatch(int numSeeds, int numNodes, int numEdges, int numBytes) {
            batches.add(1);
            seeds.add(numSeeds);
            nodes.add(numNodes);
            edges.add(numEdges);
            bytes.add(numBytes);
            batchesMetric.inc();
            edgesMetric.inc(numEdges);
            bytesMetric.inc(numBytes);
        }
    }
}
