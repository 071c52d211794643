package io.fanout.flink.operator;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedSample;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.SampleMessage;
import io.fanout.connectors.message.SamplingErrors;
import io.fanout.connectors.message.Tensor;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.SharedGraphs;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed k-hop sampling operator: one {@link SeedBatch} in, one encoded GLT-style message out.
 *
 * <p>Thin by design: the graph comes from the JVM-wide {@link SharedGraphs} cache (loaded once per
 * TaskManager, shared by every subtask), the sampling is {@link KHopSampler}, the encoding is
 * {@link SafetensorsCodec}. The result depends only on the batch and the options, so parallelism,
 * arrival order and restarts do not change a message.
 *
 * <p>When sampling a batch throws, the default is to emit a {@code #SAMPLING_ERROR} message for it
 * (GiGL's behaviour: the trainer gets the traceback instead of waiting forever); with
 * {@link #failOnSamplingError} the job fails instead.
 */
public class KHopSamplingFunction extends KeyedProcessFunction<Long, SeedBatch, EncodedSample> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(KHopSamplingFunction.class);

    private final String graphPath;
    private final EdgeDirection direction;
    private final int[] fanouts;
    private final boolean replace;
    private final long seed;
    private boolean failOnSamplingError;
    private long[] injectedErrors = new long[0];

    private transient SharedGraphs.Lease graph;
    private transient KHopSampler sampler;
    private transient SamplingCounters counters;

    public KHopSamplingFunction(String graphPath, EdgeDirection direction, int[] fanouts, boolean replace, long seed) {
        this.graphPath = graphPath;
        this.direction = direction;
        this.fanouts = fanouts.clone();
        this.replace = replace;
        this.seed = seed;
    }

    /**
     * Sampling errors fail the job ({@code fail}) or become messages; {@code injectedErrors} are batch
     * keys whose sampling throws on purpose (tests).
     */
    public KHopSamplingFunction onSamplingError(boolean fail, long[] injectedErrors) {
        this.failOnSamplingError = fail;
        this.injectedErrors = injectedErrors == null ? new long[0] : injectedErrors.clone();
        return this;
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        graph = SharedGraphs.acquire(java.nio.file.Path.of(graphPath), direction);
        sampler = new KHopSampler(graph.graph(), fanouts, replace);
        counters = new SamplingCounters(getRuntimeContext(), graph.graph());
    }

    @Override
    public void processElement(SeedBatch batch, Context ctx, Collector<EncodedSample> out) {
        byte[] payload;
        SampledSubgraph sub;
        try {
            for (long key : injectedErrors) {
                if (key == batch.key()) {
                    throw new IllegalStateException("injected sampling error (option fanout.inject-sampling-errors) for epoch "
                            + batch.epoch + " batch " + batch.batchId);
                }
            }
            // Shared buffers: the subgraph is encoded right away, so the sampler's scratch is never copied.
            sub = sampler.sampleShared(batch.seeds, seed, batch.epoch, batch.batchId);
            payload = SafetensorsCodec.encode(toMessage(batch, sub));
        } catch (RuntimeException e) {
            if (failOnSamplingError) {
                throw e;
            }
            LOG.error("sampling epoch {} batch {} failed; sending a #SAMPLING_ERROR message instead", batch.epoch, batch.batchId, e);
            java.io.StringWriter trace = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(trace));
            out.collect(new EncodedSample(batch.epoch, batch.batchId, batch.numBatches,
                    SamplingErrors.encode(batch.epoch, batch.batchId, batch.numBatches, trace.toString())));
            return;
        }
        counters.onBatch(batch.seeds.length, sub.numNodes(), sub.numEdges(), payload.length);
        out.collect(new EncodedSample(batch.epoch, batch.batchId, batch.numBatches, payload));
    }

    /** The GLT SampleMessage keys of a homogeneous k-hop sample, plus Fanout's batch metadata. */
    public static SampleMessage toMessage(SeedBatch batch, SampledSubgraph sub) {
        return new SampleMessage()
                .put(MessageKeys.IDS, Tensor.ofInt64Prefix(sub.idsBuffer(), sub.numNodes()))
                .put(MessageKeys.ROWS, Tensor.ofInt64Prefix(sub.rowsBuffer(), sub.numEdges()))
                .put(MessageKeys.COLS, Tensor.ofInt64Prefix(sub.colsBuffer(), sub.numEdges()))
                .putInt64(MessageKeys.BATCH, sub.batch())
                .putInt64(MessageKeys.NUM_SAMPLED_NODES, sub.numSampledNodes())
                .putInt64(MessageKeys.NUM_SAMPLED_EDGES, sub.numSampledEdges())
                .putInt64(MessageKeys.IS_HETERO, new long[] {0L})
                .putInt64(MessageKeys.META_EPOCH, new long[] {batch.epoch})
                .putInt64(MessageKeys.META_BATCH_ID, new long[] {batch.batchId})
                .putInt64(MessageKeys.META_NUM_BATCHES, new long[] {batch.numBatches});
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

        SamplingCounters(org.apache.flink.api.common.functions.RuntimeContext ctx, io.fanout.graph.CsrGraph graph) {
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
