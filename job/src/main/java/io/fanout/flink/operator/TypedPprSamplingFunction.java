package io.fanout.flink.operator;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.message.Tensor;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.sampling.ppr.PprChannels;
import io.fanout.sampling.ppr.TypedPprSubgraph;
import io.fanout.sampling.ppr.TypedPprSampler;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
import io.fanout.store.SharedGraphs;
import io.fanout.store.TypedGraphStore;
import java.util.Map;
import org.apache.flink.util.Collector;

/**
 * The keyed PPR sampling operator of a typed graph: one {@link SeedBatch} of seed nodes of one type in, one message
 * in GiGL's heterogeneous PPR layout out: GLT's node keys per type ({@code {ntype}.ids}, ...), the virtual edges
 * under {@code #META.ppr_edge_index.<etype>} / {@code #META.ppr_weight.<etype>} and, with include-sampled-edges,
 * the original edges as k-hop sends them.
 *
 * <p>Thin: the sampling is {@link TypedPprSampler}; lease, counters, node data and encoding are
 * {@link GraphSamplingFunction}'s.
 */
public class TypedPprSamplingFunction extends GraphSamplingFunction {
    private static final long serialVersionUID = 1L;

    /** GiGL's metadata key prefixes (dist_ppr_sampler.py PPR_EDGE_INDEX_METADATA_KEY / PPR_WEIGHT_METADATA_KEY). */
    public static final String PPR_EDGE_INDEX = MessageKeys.META_PREFIX + "ppr_edge_index.";
    public static final String PPR_WEIGHT = MessageKeys.META_PREFIX + "ppr_weight.";

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
        Tensor seeds = nodeIds(typed.nodeIds(seedType), batch.seeds, batch.seeds.length);
        TensorMessage message = withBatchMetadata(toMessage(sample, typed), seedType + "." + MessageKeys.BATCH, true,
                seeds, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches);
        emit(batch, message, sample.numNodes(), sample.numEdges(), out);
    }

    /**
     * Per node type {@code ids}, {@code num_sampled_nodes} ([n], as GiGL) and node features (labels for the seed
     * type); per node type t the PPR edges {@code #META.ppr_edge_index.('seed', 'ppr', 't')} (int64 [2, N]) and
     * {@code #META.ppr_weight.(...)} (float64 [N, columns]); with sampled edges, per reported edge type
     * {@code rows}, {@code cols}, {@code num_sampled_edges} and edge ids. Every type is present, empty when
     * nothing of it was sampled, so every message has the same keys.
     */
    public static TensorMessage toMessage(TypedPprSubgraph sample, TypedGraphStore store) {
        TensorMessage message = new TensorMessage();
        for (Map.Entry<String, int[]> e : sample.nodes.entrySet()) {
            String prefix = e.getKey() + ".";
            int[] nodes = e.getValue();
            NodeIdMap ids = store.nodeIds(e.getKey());
            message.put(prefix + MessageKeys.IDS, nodeIds(ids, nodes, nodes.length))
                    .putInt64(prefix + MessageKeys.NUM_SAMPLED_NODES, new long[] {nodes.length});
            withNodeData(message, store.features(e.getKey()), nodes, nodes.length, prefix,
                    e.getKey().equals(sample.seedType));
        }
        for (Map.Entry<String, TypedPprSubgraph.PprEdges> e : sample.pprEdges.entrySet()) {
            String type = TypedPprSubgraph.pprEdgeType(sample.seedType, e.getKey());
            long n = e.getValue().numEdges();
            message.put(PPR_EDGE_INDEX + type, Tensor.ofInt64(e.getValue().edgeIndex, new long[] {2, n}))
                    .put(PPR_WEIGHT + type, Tensor.ofFloat64(e.getValue().weights, new long[] {n, sample.columns}));
        }
        for (Map.Entry<EdgeType, TypedPprSubgraph.SampledEdges> e : sample.sampledEdges.entrySet()) {
            String prefix = e.getKey() + ".";
            TypedPprSubgraph.SampledEdges edges = e.getValue();
            message.put(prefix + MessageKeys.ROWS, Tensor.ofInt64(edges.rows))
                    .put(prefix + MessageKeys.COLS, Tensor.ofInt64(edges.cols))
                    .putInt64(prefix + MessageKeys.NUM_SAMPLED_EDGES, new long[] {edges.rows.length});
            withEdgeData(message, edges.adjacency.csr(), edges.positions, edges.rows.length, prefix);
        }
        return message;
    }
}
