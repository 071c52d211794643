package io.fanout.flink.operator;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.message.Tensor;
import io.fanout.graph.CsrGraph;
import io.fanout.sampling.DisjointKHopSampler;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.sampling.SubgraphInducer;
import io.fanout.sampling.WeightedDraws;
import io.fanout.sampling.link.LinkSeeds;
import io.fanout.sampling.link.NegativeSampler;
import io.fanout.sampling.link.NegativeSampling;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
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

    private boolean disjoint;
    /** Every seed's time for temporal sampling, or null. */
    private Long seedTime;
    /** Every seed's time by input position (a seed file's second column), or null. */
    private long[] seedTimesByInput;
    private boolean temporalLast;
    private String subgraphType = "directional";

    /** Link prediction on a plain graph: batches are positions into these seed edges, or null. */
    private LinkSeeds links;
    private NegativeSampling negatives = NegativeSampling.NONE;
    private double amount;

    private transient KHopSampler sampler;
    private transient NegativeSampler negativeSampler;
    /** The disjoint sampler (one tree per seed) when {@link #disjoint}, else null. */
    private transient DisjointKHopSampler trees;
    /** Makes bidirectional or induced subgraphs; null for directional. */
    private transient SubgraphInducer inducer;

    public KHopSamplingFunction(GraphSpec spec, int[] fanouts, boolean replace, long seed) {
        super(spec);
        this.fanouts = fanouts.clone();
        this.replace = replace;
        this.seed = seed;
    }

    /** One tree per seed (PyG {@code disjoint=True}) instead of one de-duplicated subgraph per batch. */
    public KHopSamplingFunction disjoint(boolean disjoint) {
        this.disjoint = disjoint;
        return this;
    }

    /**
     * Temporal sampling (the store's adjacency sorted by its time column): every seed at {@code seedTime} (null:
     * none), strategy last or uniform; implies {@link #disjoint}.
     */
    public KHopSamplingFunction temporal(Long seedTime, boolean last) {
        this.seedTime = seedTime;
        this.temporalLast = last;
        this.disjoint |= seedTime != null;
        return this;
    }

    /** Temporal sampling with a time per seed, indexed by the seed's input position ({@code #META.input_id}). */
    public KHopSamplingFunction seedTimes(long[] timesByInputPosition) {
        this.seedTimesByInput = timesByInputPosition;
        this.disjoint |= timesByInputPosition != null; // temporal sampling is disjoint
        return this;
    }

    /**
     * Link prediction (PyG's {@code LinkNeighborLoader} on a {@code Data}): batches are positions into {@code links},
     * sampled around their endpoints and negatives together; {@code amount} negatives per positive (binary: in total,
     * rounded up; triplet: per positive, a whole number).
     */
    public KHopSamplingFunction withLinkSeeds(LinkSeeds links, NegativeSampling negatives, double amount) {
        this.links = links;
        this.negatives = negatives;
        this.amount = amount;
        return this;
    }

    /** PyG's subgraph type: directional (default), bidirectional or induced. */
    public KHopSamplingFunction subgraphType(String type) {
        this.subgraphType = type;
        return this;
    }

    @Override
    protected void openSampler(GraphStore graph) {
        CsrGraph adjacency = graph.adjacency();
        WeightedDraws weighted = graph.aliasTable() == null ? null
                : new WeightedDraws(adjacency.weights(), graph.aliasTable());
        sampler = new KHopSampler(adjacency, graph.ids(), fanouts, replace, adjacency.hasEdgeIds(), weighted);
        inducer = subgraphType.equals("directional") ? null : new SubgraphInducer(adjacency);
        trees = disjoint ? new DisjointKHopSampler(sampler, graph.ids(), adjacency.hasEdgeIds(), temporalLast) : null;
        if (links != null && negatives != NegativeSampling.NONE) {
            negativeSampler = new NegativeSampler(adjacency, graph.ids().size());
        }
    }

    @Override
    protected void sample(SeedBatch batch, Collector<EncodedMessage> out) {
        if (links != null) {
            sampleLinks(batch, out);
            return;
        }
        // Shared buffers: the subgraph is encoded right away, so the sampler's scratch is never copied.
        long[] times = null;
        if (seedTimesByInput != null) {
            times = new long[batch.seeds.length];
            for (int i = 0; i < times.length; i++) {
                times[i] = seedTimesByInput[batch.inputIds[i]];
            }
        } else if (seedTime != null) {
            times = new long[batch.seeds.length];
            java.util.Arrays.fill(times, seedTime);
        }
        SampledSubgraph sub = trees != null ? trees.sample(batch.seeds, times, seed, batch.epoch, batch.batchId)
                : sampler.sampleShared(batch.seeds, seed, batch.epoch, batch.batchId);
        if (inducer != null) {
            sub = subgraphType.equals("induced") ? inducer.induced(sub) : inducer.bidirectional(sub);
        }
        TensorMessage message = toMessage(batch, sub, store());
        if (times != null) {
            message.putInt64(MessageKeys.META_SEED_TIME, times);
        }
        emit(batch, message, sub.numNodes(), sub.numEdges(), out);
    }

    /**
     * A link batch of a plain graph: the positives' endpoints and the negatives are the seeds of one de-duplicated
     * sample; the metadata gives each pair as local indices into {@code ids}, as PyG's {@code LinkNeighborLoader}
     * gives {@code edge_label_index} (binary: {@code edge_label} 1 then 0; triplet: {@code src_index},
     * {@code dst_pos_index}, {@code dst_neg_index}).
     */
    private void sampleLinks(SeedBatch batch, Collector<EncodedMessage> out) {
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
        SampledSubgraph sub = sampler.sampleShared(concat(allSrc, allDst), seed, batch.epoch, batch.batchId);
        // The unique seeds come first in the sample's ids: their local indices.
        it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap local = new it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap();
        int[] ids = sub.idsBuffer();
        for (int i = 0; i < sub.numSampledNodes()[0]; i++) {
            local.put(ids[i], i);
        }
        int[] localSrc = new int[allSrc.length];
        int[] localDst = new int[allDst.length];
        for (int i = 0; i < allSrc.length; i++) {
            localSrc[i] = local.get(allSrc[i]);
        }
        for (int i = 0; i < allDst.length; i++) {
            localDst[i] = local.get(allDst[i]);
        }
        TensorMessage message = new TensorMessage()
                .put(MessageKeys.IDS, nodeIds(store().ids(), ids, sub.numNodes()))
                .put(MessageKeys.ROWS, Tensor.ofInt64Prefix(sub.rowsBuffer(), sub.numEdges()))
                .put(MessageKeys.COLS, Tensor.ofInt64Prefix(sub.colsBuffer(), sub.numEdges()))
                .putInt64(MessageKeys.NUM_SAMPLED_NODES, sub.numSampledNodes())
                .putInt64(MessageKeys.NUM_SAMPLED_EDGES, sub.numSampledEdges());
        withNodeData(message, store().features(), ids, sub.numNodes());
        withEdgeData(message, store().adjacency(), sub.edgePositionsBuffer(), sub.numEdges(), "");
        if (negatives == NegativeSampling.TRIPLET) {
            message.putInt64(MessageKeys.META_SRC_INDEX, localSrc)
                    .putInt64(MessageKeys.META_DST_POS_INDEX, java.util.Arrays.copyOfRange(localDst, 0, p));
            int[] negIndex = java.util.Arrays.copyOfRange(localDst, p, localDst.length);
            // PyG squeezes a single negative per positive to shape [p].
            message.putInt64(MessageKeys.META_DST_NEG_INDEX, negIndex,
                    perPositive == 1 ? new long[] {p} : new long[] {p, perPositive});
        } else {
            message.putInt64(MessageKeys.META_EDGE_LABEL_INDEX, concat(localSrc, localDst), 2, localSrc.length);
            if (negatives == NegativeSampling.BINARY) {
                float[] label = new float[localSrc.length];
                java.util.Arrays.fill(label, 0, p, 1f);
                message.putFloat32(MessageKeys.META_EDGE_LABEL, label, label.length);
            }
        }
        withBatchMetadata(message, null, false, null, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches);
        emit(batch, message, sub.numNodes(), sub.numEdges(), out);
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * The GLT TensorMessage keys of a homogeneous k-hop sample (node ids, not store indices), the node features
     * and labels, edge ids and features when the store kept edge ids, plus Fanout's batch metadata.
     */
    public static TensorMessage toMessage(SeedBatch batch, SampledSubgraph sub, GraphStore store) {
        TensorMessage message = new TensorMessage()
                .put(MessageKeys.IDS, nodeIds(store.ids(), sub.idsBuffer(), sub.numNodes()))
                .put(MessageKeys.ROWS, Tensor.ofInt64Prefix(sub.rowsBuffer(), sub.numEdges()))
                .put(MessageKeys.COLS, Tensor.ofInt64Prefix(sub.colsBuffer(), sub.numEdges()))
                .putInt64(MessageKeys.NUM_SAMPLED_NODES, sub.numSampledNodes());
        if (sub.edgesByHop()) {
            message.putInt64(MessageKeys.NUM_SAMPLED_EDGES, sub.numSampledEdges());
        }
        withNodeData(message, store.features(), sub.idsBuffer(), sub.numNodes());
        if (sub.nodeBatchBuffer() != null) {
            message.put(MessageKeys.META_BATCH, Tensor.ofInt64Prefix(sub.nodeBatchBuffer(), sub.numNodes()));
        }
        withEdgeData(message, store.adjacency(), sub.edgePositionsBuffer(), sub.numEdges(), "");
        CsrGraph graph = store.adjacency();
        int[] positions = sub.edgePositionsBuffer();
        if (positions != null && graph.hasEdgeIds() && graph.hasTimestamps() && store.spec().timeColumn() != null) {
            int m = sub.numEdges();
            long[] stamps = graph.timestamps();
            long[] edgeTimes = new long[m];
            for (int i = 0; i < m; i++) {
                edgeTimes[i] = stamps[positions[i]];
            }
            message.putInt64(MessageKeys.META_EDGE_TIME, edgeTimes);
        }
        return withBatchMetadata(message, batch, store.ids());
    }
}
