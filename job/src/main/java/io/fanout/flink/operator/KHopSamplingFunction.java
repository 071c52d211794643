package io.fanout.flink.operator;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedSample;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.SampleMessage;
import io.fanout.connectors.message.Tensor;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import org.apache.flink.util.Collector;

/**
 * The keyed k-hop sampling operator: one {@link SeedBatch} in, one encoded GLT-style message out.
 *
 * <p>Thin by design: the graph lease, counters and encoding are {@link GraphSamplingFunction}'s, the
 * sampling is {@link KHopSampler}, the encoding {@link SafetensorsCodec}.
 */
public class KHopSamplingFunction extends GraphSamplingFunction {
    private static final long serialVersionUID = 1L;

    private final int[] fanouts;
    private final boolean replace;
    private final long seed;

    private transient KHopSampler sampler;

    public KHopSamplingFunction(String graphPath, EdgeDirection direction, int[] fanouts, boolean replace, long seed) {
        super(graphPath, direction);
        this.fanouts = fanouts.clone();
        this.replace = replace;
        this.seed = seed;
    }

    @Override
    protected void openSampler(CsrGraph graph) {
        sampler = new KHopSampler(graph, fanouts, replace);
    }

    @Override
    protected void sample(SeedBatch batch, Collector<EncodedSample> out) {
        // Shared buffers: the subgraph is encoded right away, so the sampler's scratch is never copied.
        SampledSubgraph sub = sampler.sampleShared(batch.seeds, seed, batch.epoch, batch.batchId);
        emit(batch, toMessage(batch, sub), sub.numNodes(), sub.numEdges(), out);
    }

    /** The GLT SampleMessage keys of a homogeneous k-hop sample, plus Fanout's batch metadata. */
    public static SampleMessage toMessage(SeedBatch batch, SampledSubgraph sub) {
        return withBatchMetadata(new SampleMessage()
                .put(MessageKeys.IDS, Tensor.ofInt64Prefix(sub.idsBuffer(), sub.numNodes()))
                .put(MessageKeys.ROWS, Tensor.ofInt64Prefix(sub.rowsBuffer(), sub.numEdges()))
                .put(MessageKeys.COLS, Tensor.ofInt64Prefix(sub.colsBuffer(), sub.numEdges()))
                .putInt64(MessageKeys.BATCH, sub.batch())
                .putInt64(MessageKeys.NUM_SAMPLED_NODES, sub.numSampledNodes())
                .putInt64(MessageKeys.NUM_SAMPLED_EDGES, sub.numSampledEdges()), batch);
    }
}
