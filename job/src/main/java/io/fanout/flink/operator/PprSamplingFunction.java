package io.fanout.flink.operator;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.message.BatchHeader;
import io.fanout.message.HomogeneousSample;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
import io.fanout.sampling.ppr.PprSubgraph;
import io.fanout.sampling.ppr.PprSampler;
import org.apache.flink.util.Collector;

/**
 * The keyed PPR sampling operator: one {@link SeedBatch} in, one message in GiGL's PPR layout out
 * ({@code ids}, {@code batch}, {@code #META.edge_index}, {@code #META.edge_attr}; {@code rows}/{@code cols}
 * empty). The sampling is {@link PprSampler}, the message {@link HomogeneousSample#ppr}; lease and counters are
 * {@link GraphSamplingFunction}'s.
 */
public class PprSamplingFunction extends GraphSamplingFunction {
    private static final long serialVersionUID = 1L;

    private final double alpha;
    private final double eps;
    private final int maxPprNodes;
    private final int maxNeighbors;
    private final boolean residualTopUp;
    private final long seed;

    private transient PprSampler sampler;

    public PprSamplingFunction(GraphSpec spec, double alpha, double eps, int maxPprNodes,
            int maxNeighbors, boolean residualTopUp, long seed) {
        super(spec);
        this.alpha = alpha;
        this.eps = eps;
        this.maxPprNodes = maxPprNodes;
        this.maxNeighbors = maxNeighbors;
        this.residualTopUp = residualTopUp;
        this.seed = seed;
    }

    @Override
    protected void openSampler(GraphStore graph) {
        sampler = new PprSampler(graph.adjacency(), graph.ids().idsOrNull(), alpha, eps, maxPprNodes, maxNeighbors,
                residualTopUp, seed);
    }

    @Override
    protected void sample(SeedBatch batch, Collector<EncodedMessage> out) {
        PprSubgraph sample = sampler.sample(batch.seeds);
        emit(batch, HomogeneousSample.ppr(sample, store()), BatchHeader.of(batch, store().ids()), sample.numNodes(),
                sample.numEdges(), out);
    }
}
