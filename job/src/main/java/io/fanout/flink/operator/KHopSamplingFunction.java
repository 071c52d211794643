package io.fanout.flink.operator;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.graph.CsrGraph;
import io.fanout.message.BatchHeader;
import io.fanout.message.HomogeneousSample;
import io.fanout.message.SampleMetadata.LabelNodes;
import io.fanout.message.SampleMetadata.LinkLabels;
import io.fanout.sampling.DisjointKHopSampler;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.sampling.SubgraphInducer;
import io.fanout.sampling.SubgraphType;
import io.fanout.sampling.WeightedDraws;
import io.fanout.sampling.link.AnchorLabels;
import io.fanout.sampling.link.LinkBatch;
import io.fanout.sampling.link.NegativeSampler;
import io.fanout.sampling.link.NegativeSampling;
import io.fanout.sampling.link.SupervisionEdges;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
import org.apache.flink.util.Collector;

/**
 * The keyed k-hop sampling operator: one {@link SeedBatch} in, one encoded GLT-style message out. A batch is seed
 * nodes, or, with {@link #withLinkSeeds link seeds}, positions of seed edges sampled around with their negatives, or,
 * with {@link #withAblp ABLP}, anchors sampled around together with their label nodes.
 *
 * <p>Thin by design: the graph lease and counters are {@link GraphSamplingFunction}'s, the sampling is
 * {@link KHopSampler}, the message {@link HomogeneousSample#kHop} and the message layer's encoder.
 */
public class KHopSamplingFunction extends AbstractKHopFunction<KHopSamplingFunction> {
    private static final long serialVersionUID = 1L;

    private final int[] fanouts;
    private SubgraphType subgraphType = SubgraphType.DIRECTIONAL;

    /** ABLP on a plain graph: the label edges (never given to the sampler), or null. */
    private SupervisionEdges positiveLabels;
    private SupervisionEdges negativeLabels;

    private transient KHopSampler sampler;
    private transient NegativeSampler negativeSampler;
    /** The disjoint sampler (one tree per seed) when {@link #disjoint}, else null. */
    private transient DisjointKHopSampler trees;
    /** Makes bidirectional or induced subgraphs; null for directional. */
    private transient SubgraphInducer inducer;

    public KHopSamplingFunction(GraphSpec spec, int[] fanouts, boolean replace, long seed) {
        super(spec, replace, seed);
        this.fanouts = fanouts.clone();
    }





    /**
     * ABLP on a plain graph (GiGL's {@code DistABLPLoader} on a homogeneous graph): batches are anchors, sampled
     * around together with their label nodes; {@code positive} (and {@code negative}, or null) are label edges kept
     * apart from the graph, so message passing never walks them; messages add GiGL's label metadata.
     */
    public KHopSamplingFunction withAblp(SupervisionEdges positive, SupervisionEdges negative) {
        this.positiveLabels = positive;
        this.negativeLabels = negative;
        return this;
    }

    /** PyG's subgraph type: directional (default), bidirectional or induced. */
    public KHopSamplingFunction subgraphType(SubgraphType type) {
        this.subgraphType = type;
        return this;
    }

    @Override
    protected void openSampler(GraphStore graph) {
        CsrGraph adjacency = graph.adjacency();
        WeightedDraws weighted = graph.aliasTable() == null ? null
                : new WeightedDraws(adjacency.weights(), graph.aliasTable());
        sampler = new KHopSampler(adjacency, graph.ids(), fanouts, replace, adjacency.hasEdgeIds(), weighted);
        inducer = subgraphType == SubgraphType.DIRECTIONAL ? null : new SubgraphInducer(adjacency);
        trees = disjoint ? new DisjointKHopSampler(sampler, graph.ids(), adjacency.hasEdgeIds(), temporalLast) : null;
        if (links != null && negatives != NegativeSampling.NONE) {
            negativeSampler = new NegativeSampler(adjacency, graph.ids().size(), graph.ids()::id);
        }
    }

    @Override
    protected void sample(SeedBatch batch, Collector<EncodedMessage> out) {
        if (links != null) {
            sampleLinks(batch, out);
            return;
        }
        if (positiveLabels != null) {
            sampleAnchors(batch, out);
            return;
        }
        // Shared buffers: the subgraph is encoded right away, so the sampler's scratch is never copied.
        long[] times = seedTimes == null ? null : seedTimes.of(batch);
        SampledSubgraph sub = trees != null ? trees.sample(batch.seeds, times, seed, batch.epoch, batch.batchId)
                : sampler.sampleShared(batch.seeds, seed, batch.epoch, batch.batchId);
        if (inducer != null) {
            sub = subgraphType == SubgraphType.INDUCED ? inducer.induced(sub) : inducer.bidirectional(sub);
        }
        HomogeneousSample sample = HomogeneousSample.kHop(sub, store(), true);
        sample.metadata().seedTime(times);
        emit(batch, sample, BatchHeader.of(batch, store().ids()), sub.numNodes(), sub.numEdges(), out);
    }

    /**
     * An ABLP batch of a plain graph, as GiGL's ABLP sampler makes one: the anchors, then their label nodes, are the
     * seeds of one de-duplicated sample over the graph (which holds no label edge); {@code batch} stays the anchors;
     * {@code #META.gigl_positive_labels.<GiGL's homogeneous positive label type>} (and negative) are each anchor's
     * label node ids, [anchors, P] padded with -1.
     */
    private void sampleAnchors(SeedBatch batch, Collector<EncodedMessage> out) {
        AnchorLabels labels = AnchorLabels.of(batch.seeds, positiveLabels, negativeLabels);
        int[] seeds = labels.seeds.get(positiveLabels.type().src()); // one node type: anchors, then label nodes
        SampledSubgraph sub = withSubgraphType(sampler.sampleShared(seeds, seed, batch.epoch, batch.batchId));
        HomogeneousSample sample = HomogeneousSample.kHop(sub, store(), true);
        sample.metadata().positiveLabels(LabelNodes.of(positiveLabels.type().toString(), store().ids(),
                labels.positive, batch.seeds.length, labels.positiveWidth));
        if (negativeLabels != null) {
            sample.metadata().negativeLabels(LabelNodes.of(negativeLabels.type().toString(), store().ids(),
                    labels.negative, batch.seeds.length, labels.negativeWidth));
        }
        emit(batch, sample, BatchHeader.of(batch, store().ids()), sub.numNodes(), sub.numEdges(), out);
    }

    /**
     * A link batch of a plain graph: the positives' endpoints and the negatives are the seeds of one de-duplicated
     * sample; the metadata gives each pair as local indices into {@code ids}, as PyG's {@code LinkNeighborLoader}
     * gives {@code edge_label_index} (binary: {@code edge_label} 1 then 0; triplet: {@code src_index},
     * {@code dst_pos_index}, {@code dst_neg_index}).
     */
    private void sampleLinks(SeedBatch batch, Collector<EncodedMessage> out) {
        LinkBatch pairs = LinkBatch.of(links, batch.seeds, negatives, amount, negativeSampler, seed, batch.epoch,
                batch.batchId);
        int p = pairs.positives;
        int perPositive = pairs.perPositive;
        int[] allSrc = pairs.src;
        int[] allDst = pairs.dst;
        if (trees != null) {
            sampleLinkTrees(batch, p, allSrc, allDst, perPositive, out);
            return;
        }
        SampledSubgraph sub = sampler.sampleShared(LinkBatch.concat(allSrc, allDst), seed, batch.epoch, batch.batchId);
        sub = withSubgraphType(sub);
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
        // A link sample carries no edge times (PyG's link loader gives the seed edges' times instead).
        HomogeneousSample sample = HomogeneousSample.kHop(sub, store(), false);
        sample.metadata().linkLabels(LinkLabels.of(negatives, p, perPositive, localSrc, localDst));
        emit(batch, sample, BatchHeader.withoutSeeds(batch), sub.numNodes(), sub.numEdges(), out);
    }

    /**
     * A disjoint (and, with seed-edge times, temporal) link batch as PyG's {@code edge_sample} builds it: every
     * endpoint of every positive and negative is a tree of its own (the sources, then the destinations), tree
     * {@code j}'s time the time of positive {@code j mod P} (negatives repeat the positives' times), and
     * {@code #META.batch} is each node's tree mod P, so both ends of pair i (and its negatives) share batch i.
     * The label indices are the trees' roots: {@code edge_label_index = arange(2(P+N)).view(2, -1)} (binary or
     * none), or {@code src_index = 0..P-1}, {@code dst_pos_index = P..2P-1}, {@code dst_neg_index[i][k] = 2P + kP +
     * i} (triplet). Times go out as PyG's {@code edge_label_time} (binary, none) or {@code seed_time} (triplet).
     */
    private void sampleLinkTrees(SeedBatch batch, int p, int[] allSrc, int[] allDst, int perPositive,
            Collector<EncodedMessage> out) {
        if (negatives == NegativeSampling.TRIPLET && perPositive > 1) {
            // PyG lays triplet negatives out negative-major (k * P + i), so that tree mod P is the positive's index.
            int[] byK = java.util.Arrays.copyOf(allDst, allDst.length);
            for (int j = 0; j < allDst.length - p; j++) {
                byK[p + LinkBatch.negativeMajor(j, p, perPositive)] = allDst[p + j];
            }
            allDst = byK;
        }
        int[] seeds = LinkBatch.concat(allSrc, allDst);
        long[] srcTime = null;
        long[] seedTimes = null;
        if (links.hasTimes()) {
            srcTime = new long[allSrc.length];
            for (int i = 0; i < srcTime.length; i++) {
                srcTime[i] = links.time(batch.seeds[i % p]);
            }
            long[] dstTime = new long[allDst.length];
            for (int i = 0; i < dstTime.length; i++) {
                dstTime[i] = links.time(batch.seeds[i % p]);
            }
            seedTimes = java.util.Arrays.copyOf(srcTime, seeds.length);
            System.arraycopy(dstTime, 0, seedTimes, srcTime.length, dstTime.length);
        }
        SampledSubgraph sub = withSubgraphType(trees.sample(seeds, seedTimes, seed, batch.epoch, batch.batchId));
        int[] pairOf = java.util.Arrays.copyOf(sub.nodeBatchBuffer(), sub.numNodes());
        for (int i = 0; i < pairOf.length; i++) {
            pairOf[i] %= p;
        }
        HomogeneousSample sample = HomogeneousSample.kHop(sub, store(), false).nodeBatch(pairOf);
        // Tree i's root is node i: the sources' roots, then the destinations' (triplet negatives row-major again).
        int off = allSrc.length;
        int[] localSrc = new int[off];
        for (int i = 0; i < off; i++) {
            localSrc[i] = i;
        }
        int[] localDst = new int[allDst.length];
        for (int j = 0; j < localDst.length; j++) {
            localDst[j] = off + j;
        }
        if (negatives == NegativeSampling.TRIPLET) {
            for (int j = 0; j < localDst.length - p; j++) {
                localDst[p + j] = off + p + LinkBatch.negativeMajor(j, p, perPositive);
            }
        }
        sample.metadata().linkLabels(LinkLabels.of(negatives, p, perPositive, localSrc, localDst));
        if (negatives == NegativeSampling.TRIPLET) {
            sample.metadata().seedTime(srcTime);
        } else {
            sample.metadata().edgeLabelTime(srcTime);
        }
        emit(batch, sample, BatchHeader.withoutSeeds(batch), sub.numNodes(), sub.numEdges(), out);
    }


    /**
     * PyG applies the subgraph type to a link batch's sample as to a node batch's ({@code sample_from_edges}:
     * {@code to_bidirectional()} of the edge sample; induced: the edges among the same nodes), so the nodes and
     * thus the label indices stay as they are.
     */
    private SampledSubgraph withSubgraphType(SampledSubgraph sub) {
        if (inducer == null) {
            return sub;
        }
        return subgraphType == SubgraphType.INDUCED ? inducer.induced(sub) : inducer.bidirectional(sub);
    }
}
