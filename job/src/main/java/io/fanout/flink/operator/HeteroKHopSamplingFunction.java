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
import io.fanout.sampling.link.LinkSeeds;
import io.fanout.sampling.link.NegativeSampler;
import io.fanout.sampling.link.NegativeSampling;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
import io.fanout.store.SharedGraphs;
import io.fanout.store.TypedGraphStore;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.util.Collector;

/**
 * The keyed k-hop sampling operator of a typed graph: one {@link SeedBatch} in, one GLT heterogeneous message out
 * ({@code {ntype}.ids}, {@code {etype}.rows}, ..., {@code #IS_HETERO} = [1]). A batch is seed nodes of one type,
 * or, with {@link #withLinkSeeds link seeds}, positions of seed edges whose endpoints (and negatives) are sampled
 * around together, with GLT's link metadata.
 *
 * <p>Thin: the sampling is {@link HeteroKHopSampler} and {@link NegativeSampler}; the lease, counters, metadata
 * and encoding are {@link GraphSamplingFunction}'s.
 */
public class HeteroKHopSamplingFunction extends GraphSamplingFunction {
    private static final long serialVersionUID = 1L;

    private final HashMap<String, int[]> fanouts;
    private final String seedType;
    private final boolean replace;
    private final long seed;
    private LinkSeeds links;
    private NegativeSampling negatives = NegativeSampling.NONE;
    private double amount;

    private transient HeteroKHopSampler sampler;
    private transient NegativeSampler negativeSampler;
    private transient TypedGraphStore typed;

    /**
     * @param fanouts edge type name -> per-hop fanouts, every edge type of the graph
     * @param seedType the node type of the seeds (with link seeds: their source type)
     */
    public HeteroKHopSamplingFunction(GraphSpec spec, Map<String, int[]> fanouts, String seedType, boolean replace,
            long seed) {
        super(spec);
        this.fanouts = new HashMap<>(fanouts);
        this.seedType = seedType;
        this.replace = replace;
        this.seed = seed;
    }

    /**
     * Batches are positions into {@code links}; {@code amount} negatives per positive (binary: in total,
     * rounded up; triplet: per positive, a whole number).
     */
    public HeteroKHopSamplingFunction withLinkSeeds(LinkSeeds links, NegativeSampling negatives, double amount) {
        this.links = links;
        this.negatives = negatives;
        this.amount = amount;
        return this;
    }

    @Override
    protected void openSampler(SharedGraphs.Lease lease) {
        typed = lease.typedGraph();
        sampler = new HeteroKHopSampler(typed.adjacency(), typed.nodeIds(), fanouts, seedType, replace,
                typed.spec().withEdgeIds());
        if (links != null && negatives != NegativeSampling.NONE) {
            EdgeType type = links.type();
            negativeSampler = new NegativeSampler(typed.adjacency().get(type), typed.nodeIds(type.src()).size(),
                    typed.nodeIds(type.dst()).size());
        }
    }

    @Override
    protected void openSampler(GraphStore graph) {
        throw new IllegalStateException("a typed graph's sampler needs a typed graph, got " + graph);
    }

    @Override
    protected void sample(SeedBatch batch, Collector<EncodedSample> out) {
        if (links != null) {
            sampleLinks(batch, out);
            return;
        }
        HeteroSample sub = sampler.sample(batch.seeds, seed, batch.epoch, batch.batchId);
        Tensor seeds = nodeIds(typed.nodeIds(seedType), batch.seeds, batch.seeds.length);
        SampleMessage message = withBatchMetadata(toMessage(sub, typed), seedType + "." + MessageKeys.BATCH, true,
                seeds, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches);
        emit(batch, message, sub.numNodes(), sub.numEdges(), out);
    }

    /**
     * A link batch: the positives' endpoints plus the negatives' are the seeds (one list when both ends are of one
     * node type); the metadata gives each pair as local indices, as GLT's {@code sample_from_edges} does.
     */
    private void sampleLinks(SeedBatch batch, Collector<EncodedSample> out) {
        int p = batch.seeds.length;
        int[] src = new int[p];
        int[] dst = new int[p];
        for (int i = 0; i < p; i++) {
            src[i] = links.src(batch.seeds[i]);
            dst[i] = links.dst(batch.seeds[i]);
        }
        int[] allSrc = src;
        int[] allDst = dst;
        int perPositive = (int) amount;
        if (negatives == NegativeSampling.BINARY) {
            int[][] neg = negativeSampler.binary((int) Math.ceil(p * amount), seed, batch.epoch, batch.batchId);
            allSrc = concat(src, neg[0]);
            allDst = concat(dst, neg[1]);
        } else if (negatives == NegativeSampling.TRIPLET) {
            allDst = concat(dst, negativeSampler.triplet(src, perPositive, seed, batch.epoch, batch.batchId));
        }
        EdgeType type = links.type();
        Map<String, int[]> seeds = type.src().equals(type.dst())
                ? Map.of(type.src(), concat(allSrc, allDst))
                : Map.of(type.src(), allSrc, type.dst(), allDst);
        HeteroSample sub = sampler.sample(seeds, seed, batch.epoch, batch.batchId);
        SampleMessage message = toMessage(sub, typed);
        int[] localSrc = sub.localIndices(type.src(), allSrc);
        int[] localDst = sub.localIndices(type.dst(), allDst);
        if (negatives == NegativeSampling.TRIPLET) {
            message.putInt64(MessageKeys.META_SRC_INDEX, localSrc)
                    .putInt64(MessageKeys.META_DST_POS_INDEX, Arrays.copyOfRange(localDst, 0, p));
            int[] negIndex = Arrays.copyOfRange(localDst, p, localDst.length);
            // GLT squeezes a single negative per positive to shape [p].
            message.putInt64(MessageKeys.META_DST_NEG_INDEX, negIndex,
                    perPositive == 1 ? new long[] {p} : new long[] {p, perPositive});
        } else {
            message.putInt64(MessageKeys.META_EDGE_LABEL_INDEX, concat(localSrc, localDst), 2, localSrc.length);
            if (negatives == NegativeSampling.BINARY) {
                float[] label = new float[localSrc.length];
                Arrays.fill(label, 0, p, 1f);
                message.putFloat32(MessageKeys.META_EDGE_LABEL, label, label.length);
            }
        }
        message.putString(MessageKeys.META_INPUT_TYPE, type.toString());
        withBatchMetadata(message, null, true, null, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches);
        emit(batch, message, sub.numNodes(), sub.numEdges(), out);
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * GLT's heterogeneous sample keys: per node type {@code ids}, {@code num_sampled_nodes} and, with a labelled
     * node file, {@code nfeats} (every type) and {@code nlabels} (the seed types); per reported edge type
     * {@code rows}, {@code cols}, {@code num_sampled_edges} and, with edge ids, {@code eids}/{@code efeats}. Every
     * type of the graph is present, empty when nothing of it was sampled, so every message has the same keys.
     */
    public static SampleMessage toMessage(HeteroSample sub, TypedGraphStore store) {
        SampleMessage message = new SampleMessage();
        for (Map.Entry<String, HeteroSample.Nodes> e : sub.nodes.entrySet()) {
            String prefix = e.getKey() + ".";
            HeteroSample.Nodes nodes = e.getValue();
            NodeIdMap ids = store.nodeIds(e.getKey());
            message.put(prefix + MessageKeys.IDS, nodeIds(ids, nodes.indices, nodes.indices.length))
                    .putInt64(prefix + MessageKeys.NUM_SAMPLED_NODES, nodes.numSampledNodes);
            withNodeData(message, store.features(e.getKey()), nodes.indices, nodes.indices.length, prefix,
                    sub.seedTypes.contains(e.getKey()));
        }
        for (Map.Entry<EdgeType, HeteroSample.Edges> e : sub.edges.entrySet()) {
            String prefix = e.getKey() + ".";
            HeteroSample.Edges edges = e.getValue();
            message.put(prefix + MessageKeys.ROWS, Tensor.ofInt64(edges.rows))
                    .put(prefix + MessageKeys.COLS, Tensor.ofInt64(edges.cols))
                    .putInt64(prefix + MessageKeys.NUM_SAMPLED_EDGES, edges.numSampledEdges);
            withEdgeData(message, edges.adjacency.csr(), edges.positions, edges.rows.length, prefix);
        }
        return message;
    }
}
