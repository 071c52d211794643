package io.fanout.flink.operator;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedSample;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SampleMessage;
import io.fanout.connectors.message.Tensor;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.sampling.hetero.HeteroKHopSampler;
import io.fanout.sampling.hetero.HeteroSample;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
import io.fanout.store.SharedGraphs;
import io.fanout.store.TypedGraphStore;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.util.Collector;

/**
 * The keyed k-hop sampling operator of a typed graph: one {@link SeedBatch} of seed-type nodes in, one GLT
 * heterogeneous message out ({@code {ntype}.ids}, {@code {etype}.rows}, ..., {@code #IS_HETERO} = [1]).
 *
 * <p>Thin: the sampling is {@link HeteroKHopSampler}; the lease, counters, metadata and encoding are
 * {@link GraphSamplingFunction}'s.
 */
public class HeteroKHopSamplingFunction extends GraphSamplingFunction {
    private static final long serialVersionUID = 1L;

    private final HashMap<String, int[]> fanouts;
    private final String seedType;
    private final boolean replace;
    private final long seed;

    private transient HeteroKHopSampler sampler;
    private transient TypedGraphStore typed;

    /**
     * @param fanouts edge type name -> per-hop fanouts, every edge type of the graph
     * @param seedType the node type of the seeds
     */
    public HeteroKHopSamplingFunction(GraphSpec spec, Map<String, int[]> fanouts, String seedType, boolean replace,
            long seed) {
        super(spec);
        this.fanouts = new HashMap<>(fanouts);
        this.seedType = seedType;
        this.replace = replace;
        this.seed = seed;
    }

    @Override
    protected void openSampler(SharedGraphs.Lease lease) {
        typed = lease.typedGraph();
        sampler = new HeteroKHopSampler(typed.adjacency(), typed.nodeIds(), fanouts, seedType, replace,
                typed.spec().withEdgeIds());
    }

    @Override
    protected void openSampler(GraphStore graph) {
        throw new IllegalStateException("a typed graph's sampler needs a typed graph, got " + graph);
    }

    @Override
    protected void sample(SeedBatch batch, Collector<EncodedSample> out) {
        HeteroSample sub = sampler.sample(batch.seeds, seed, batch.epoch, batch.batchId);
        emit(batch, toMessage(batch, sub, typed), sub.numNodes(), sub.numEdges(), out);
    }

    /**
     * GLT's heterogeneous message keys: per node type {@code ids}, {@code num_sampled_nodes} and, with a labelled
     * node file, {@code nfeats} (every type) and {@code nlabels} (the seed type); per reported edge type
     * {@code rows}, {@code cols}, {@code num_sampled_edges} and, with edge ids, {@code eids}/{@code efeats}; the
     * seeds as {@code {seed type}.batch}; Fanout's batch metadata. Every type of the graph is present, empty
     * when nothing of it was sampled, so every message has the same keys.
     */
    public static SampleMessage toMessage(SeedBatch batch, HeteroSample sub, TypedGraphStore store) {
        SampleMessage message = new SampleMessage();
        for (Map.Entry<String, HeteroSample.Nodes> e : sub.nodes.entrySet()) {
            String prefix = e.getKey() + ".";
            HeteroSample.Nodes nodes = e.getValue();
            NodeIdMap ids = store.nodeIds(e.getKey());
            message.put(prefix + MessageKeys.IDS, nodeIds(ids, nodes.indices, nodes.indices.length))
                    .putInt64(prefix + MessageKeys.NUM_SAMPLED_NODES, nodes.numSampledNodes);
            withNodeData(message, store.features(e.getKey()), nodes.indices, nodes.indices.length, prefix,
                    e.getKey().equals(sub.seedType));
        }
        for (Map.Entry<EdgeType, HeteroSample.Edges> e : sub.edges.entrySet()) {
            String prefix = e.getKey() + ".";
            HeteroSample.Edges edges = e.getValue();
            message.put(prefix + MessageKeys.ROWS, Tensor.ofInt64(edges.rows))
                    .put(prefix + MessageKeys.COLS, Tensor.ofInt64(edges.cols))
                    .putInt64(prefix + MessageKeys.NUM_SAMPLED_EDGES, edges.numSampledEdges);
            withEdgeData(message, edges.adjacency.csr(), edges.positions, edges.rows.length, prefix);
        }
        Tensor seeds = nodeIds(store.nodeIds(sub.seedType), batch.seeds, batch.seeds.length);
        return withBatchMetadata(message, sub.seedType + "." + MessageKeys.BATCH, true, seeds, batch.inputIds,
                batch.epoch, batch.batchId, batch.numBatches);
    }
}
