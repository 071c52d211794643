package io.fanout.flink.operator;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.message.BatchHeader;
import io.fanout.message.MessageEncoder;
import io.fanout.message.TypedSample;
import io.fanout.sampling.ppr.PprChannels;
import io.fanout.sampling.ppr.TypedPprSubgraph;
import io.fanout.sampling.ppr.TypedPprSampler;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
import io.fanout.store.SharedGraphs;
import io.fanout.store.TypedGraphStore;
import org.apache.flink.util.Collector;

/**
 * The keyed PPR sampling operator of a typed graph: one {@link SeedBatch} of seed nodes of one type in, one message
 * in GiGL's heterogeneous PPR layout out: GLT's node keys per type ({@code {ntype}.ids}, ...), the virtual edges
 * under {@code #META.ppr_edge_index.<etype>} / {@code #META.ppr_weight.<etype>} and, with include-sampled-edges,
 * the original edges as k-hop sends them.
 *
 * <p>Thin: the sampling is {@link TypedPprSampler}, the message {@link TypedSample#ppr}; lease and counters are
 * {@link GraphSamplingFunction}'s.
 */
public class TypedPprSamplingFunction extends GraphSamplingFunction {
    private static final long serialVersionUID = 1L;

    /** GiGL's metadata key prefixes, as the message layer writes them ({@link MessageEncoder#PPR_EDGE_INDEX}). */
    public static final String PPR_EDGE_INDEX = MessageEncoder.PPR_EDGE_INDEX;
    public static final String PPR_WEIGHT = MessageEncoder.PPR_WEIGHT;

    private final String seedType;
    private final String channels;
    private final double alpha;
    private final double eps;
    private final int maxPprNodes;
    private final int maxNeighbors;
    private final boolean residualTopUp;
    private final boolean includeSampledEdges;
    private final long seed;

    private transient TypedPprSampler sampler;
    private transient TypedGraphStore typed;

    /** @param channels the channels as --ppr-channels writes them, or null for one walk over every edge type */
    public TypedPprSamplingFunction(GraphSpec spec, String seedType, PprChannels channels, double alpha, double eps,
            int maxPprNodes, int maxNeighbors, boolean residualTopUp, boolean includeSampledEdges, long seed) {
        super(spec);
        this.seedType = seedType;
        this.channels = channels == null ? null : channels.toString();
        this.alpha = alpha;
        this.eps = eps;
        this.maxPprNodes = maxPprNodes;
        this.maxNeighbors = maxNeighbors;
        this.residualTopUp = residualTopUp;
        this.includeSampledEdges = includeSampledEdges;
        this.seed = seed;
    }

    @Override
    protected void openSampler(SharedGraphs.Lease lease) {
        typed = lease.typedGraph();
        PprChannels parsed = channels == null ? null : PprChannels.parse(channels, typed.adjacency().keySet());
        sampler = new TypedPprSampler(typed.adjacency(), typed.nodeIds(), seedType, parsed, alpha, eps, maxPprNodes,
                maxNeighbors, residualTopUp, includeSampledEdges, seed);
    }

    @Override
    protected void openSampler(GraphStore graph) {
        throw new IllegalStateException("typed PPR needs a typed graph, got " + graph);
    }

    @Override
    protected void sample(SeedBatch batch, Collector<EncodedMessage> out) {
        TypedPprSubgraph sample = sampler.sample(batch.seeds);
        emit(batch, TypedSample.ppr(sample, typed), BatchHeader.of(batch, typed.nodeIds(seedType)), sample.numNodes(),
                sample.numEdges(), out);
    }
}
