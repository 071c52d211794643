package io.fanout.flink.operator;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.sampling.WeightedDraws;
import io.fanout.sampling.hetero.HeteroBidirectional;
import io.fanout.sampling.hetero.HeteroDisjointKHopSampler;
import io.fanout.sampling.hetero.HeteroKHopSampler;
import io.fanout.sampling.hetero.HeteroSubgraph;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.message.BatchHeader;
import io.fanout.message.SampleMetadata.LabelNodes;
import io.fanout.message.SampleMetadata.LinkLabels;
import io.fanout.message.TypedSample;
import io.fanout.sampling.link.AnchorLabels;
import io.fanout.sampling.link.LinkBatch;
import io.fanout.sampling.link.SupervisionEdges;
import io.fanout.sampling.link.NegativeSampler;
import io.fanout.sampling.link.NegativeSampling;
import io.fanout.store.GraphSpec;
import io.fanout.store.GraphStore;
import io.fanout.store.SharedGraphs;
import io.fanout.store.TypedGraphStore;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.util.Collector;

/**
 * The keyed k-hop sampling operator of a typed graph: one {@link SeedBatch} in, one GLT heterogeneous message out
 * ({@code {ntype}.ids}, {@code {etype}.rows}, ..., {@code #IS_HETERO} = [1]). A batch is seed nodes of one type,
 * or, with {@link #withLinkSeeds link seeds}, positions of seed edges whose endpoints (and negatives) are sampled
 * around together, with GLT's link metadata, or, with {@link #withAblp ABLP}, anchors sampled around together with
 * their label nodes, with GiGL's label metadata (the label edge types are kept from the sampler).
 *
 * <p>Thin: the sampling is {@link HeteroKHopSampler} and {@link NegativeSampler}, the message
 * {@link TypedSample#kHop}; the lease and counters are {@link GraphSamplingFunction}'s.
 */
public class HeteroKHopSamplingFunction extends AbstractKHopFunction<HeteroKHopSamplingFunction> {
    private static final long serialVersionUID = 1L;

    private final HashMap<String, int[]> fanouts;
    private final String seedType;
    private EdgeType ablpPositive;
    private EdgeType ablpNegative;

    /** PyG's subgraph type bidirectional ({@link HeteroBidirectional}) instead of the sampled edges only. */
    private boolean bidirectional;

    private transient HeteroKHopSampler sampler;
    /** The disjoint (and temporal) sampler when {@link #disjoint}, else null. */
    private transient HeteroDisjointKHopSampler trees;
    private transient NegativeSampler negativeSampler;
    private transient TypedGraphStore typed;
    private transient SupervisionEdges positiveLabels;
    private transient SupervisionEdges negativeLabels;

    /**
     * @param fanouts edge type name -> per-hop fanouts, every edge type of the graph
     * @param seedType the node type of the seeds (with link seeds: their source type)
     */
    public HeteroKHopSamplingFunction(GraphSpec spec, Map<String, int[]> fanouts, String seedType, boolean replace,
            long seed) {
        super(spec, replace, seed);
        this.fanouts = new HashMap<>(fanouts);
        this.seedType = seedType;
    }


    /**
     * ABLP (GiGL's {@code DistABLPLoader}): batches are anchors; {@code positive} (and {@code negative}, or null) are
     * label edge types, anchor first, which the k-hop sampler never sees; messages add GiGL's label metadata.
     */
    public HeteroKHopSamplingFunction withAblp(EdgeType positive, EdgeType negative) {
        this.ablpPositive = positive;
        this.ablpNegative = negative;
        return this;
    }



    /** PyG's subgraph type: directional (default) or bidirectional; induced is refused by the job's options. */
    public HeteroKHopSamplingFunction subgraphType(io.fanout.sampling.SubgraphType type) {
        if (type == io.fanout.sampling.SubgraphType.INDUCED) {
            throw new IllegalArgumentException("induced subgraphs of typed graphs are not implemented");
        }
        this.bidirectional = type == io.fanout.sampling.SubgraphType.BIDIRECTIONAL;
        return this;
    }


    @Override
    protected void openSampler(SharedGraphs.Lease lease) {
        typed = lease.typedGraph();
        Map<EdgeType, TypedAdjacency> walked = new TreeMap<>(typed.adjacency());
        if (ablpPositive != null) {
            int anchors = typed.nodeIds(ablpPositive.src()).size();
            positiveLabels = SupervisionEdges.of(walked.remove(ablpPositive), anchors);
            negativeLabels = ablpNegative == null ? null : SupervisionEdges.of(walked.remove(ablpNegative), anchors);
        }
        Map<EdgeType, WeightedDraws> weights = null;
        if (typed.spec().weightColumn() != null) {
            weights = new TreeMap<>();
            for (Map.Entry<EdgeType, TypedAdjacency> e : walked.entrySet()) {
                weights.put(e.getKey(), new WeightedDraws(e.getValue().csr().weights(), typed.aliasTable(e.getKey())));
            }
        }
        sampler = new HeteroKHopSampler(walked, typed.nodeIds(), fanouts, seedType, replace,
                typed.spec().withEdgeIds(), weights);
        trees = !disjoint ? null : new HeteroDisjointKHopSampler(walked, typed.nodeIds(), fanouts, seedType, replace,
                typed.spec().withEdgeIds(), weights, typed.spec().timelessTypes(), temporalLast);
        // Label edges are supervision only: message passing must never walk them (GiGL gives them fanout 0).
        for (EdgeType label : new EdgeType[] {ablpPositive, ablpNegative}) {
            if (label != null && sampler.edgeTypes().contains(label)) {
                throw new IllegalStateException("the k-hop sampler would traverse label edge type " + label);
            }
        }
        if (links != null && negatives != NegativeSampling.NONE) {
            EdgeType type = links.type();
            negativeSampler = new NegativeSampler(typed.adjacency().get(type), typed.nodeIds(type.src()).size(),
                    typed.nodeIds(type.dst()).size(), typed.nodeIds(type.src())::id);
        }
    }

    @Override
    protected void openSampler(GraphStore graph) {
        throw new IllegalStateException("a typed graph's sampler needs a typed graph, got " + graph);
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
        long[] times = seedTimes == null ? null : seedTimes.of(batch);
        HeteroSubgraph sub = edges(trees != null ? trees.sample(batch.seeds, times, seed, batch.epoch, batch.batchId)
                : sampler.sample(batch.seeds, seed, batch.epoch, batch.batchId));
        TypedSample sample = TypedSample.kHop(sub, typed, seedType);
        sample.metadata().seedTime(times);
        emit(batch, sample, BatchHeader.of(batch, typed.nodeIds(seedType)), sub.numNodes(), sub.numEdges(), out);
    }

    /** The sample's edges as the subgraph type wants them. */
    private HeteroSubgraph edges(HeteroSubgraph sub) {
        return bidirectional ? HeteroBidirectional.of(sub) : sub;
    }


    /**
     * A link batch: the positives' endpoints plus the negatives' are the seeds (one list when both ends are of one
     * node type); the metadata gives each pair as local indices, as GLT's {@code sample_from_edges} does.
     */
    private void sampleLinks(SeedBatch batch, Collector<EncodedMessage> out) {
        LinkBatch pairs = LinkBatch.of(links, batch.seeds, negatives, amount, negativeSampler, seed, batch.epoch,
                batch.batchId);
        int p = pairs.positives;
        int perPositive = pairs.perPositive;
        int[] allSrc = pairs.src;
        int[] allDst = pairs.dst;
        if (trees != null) {
            sampleLinkTrees(batch, pairs, out);
            return;
        }
        EdgeType type = links.type();
        Map<String, int[]> seeds = type.src().equals(type.dst())
                ? Map.of(type.src(), LinkBatch.concat(allSrc, allDst))
                : Map.of(type.src(), allSrc, type.dst(), allDst);
        HeteroSubgraph sub = edges(sampler.sample(seeds, seed, batch.epoch, batch.batchId));
        TypedSample sample = TypedSample.kHop(sub, typed, seedType);
        int[] localSrc = sub.localIndices(type.src(), allSrc);
        int[] localDst = sub.localIndices(type.dst(), allDst);
        sample.metadata().linkLabels(LinkLabels.of(negatives, p, perPositive, localSrc, localDst))
                .inputType(type.toString());
        emit(batch, sample, BatchHeader.withoutSeeds(batch), sub.numNodes(), sub.numEdges(), out);
    }

    /**
     * A disjoint (and, with seed-edge times, temporal) typed link batch as PyG's {@code edge_sample} builds it on a
     * {@code HeteroData}: every endpoint of every positive and negative is a tree of its own, numbered across the
     * seed types as pyg-lib numbers them (the sources' trees, then the destinations'; one list when both ends are of
     * one node type); tree {@code j}'s time is that of positive {@code j mod P}, and every node type's
     * {@code #META.<ntype>.batch} is its tree mod P. Label indices are the trees' roots, as in PyG: one node type,
     * {@code edge_label_index = arange(2(P+N)).view(2, -1)}; two, {@code arange(P+N)} for both rows; triplets
     * {@code dst_neg_index[i][k]} = the root of negative-major tree {@code kP + i} among the destinations. Times go
     * out as {@code #META.edge_label_time} (binary, none) or {@code #META.seed_time} (triplet).
     */
    private void sampleLinkTrees(SeedBatch batch, LinkBatch pairs, Collector<EncodedMessage> out) {
        int p = pairs.positives;
        int perPositive = pairs.perPositive;
        int[] allSrc = pairs.src;
        int[] allDst = pairs.dst;
        if (negatives == NegativeSampling.TRIPLET && perPositive > 1) {
            // PyG lays triplet negatives out negative-major (k * P + i), so that tree mod P is the positive's index.
            int[] byK = Arrays.copyOf(allDst, allDst.length);
            for (int j = 0; j < allDst.length - p; j++) {
                byK[p + LinkBatch.negativeMajor(j, p, perPositive)] = allDst[p + j];
            }
            allDst = byK;
        }
        EdgeType type = links.type();
        boolean oneType = type.src().equals(type.dst());
        Map<String, int[]> seeds = new java.util.LinkedHashMap<>();
        if (oneType) {
            seeds.put(type.src(), LinkBatch.concat(allSrc, allDst));
        } else {
            seeds.put(type.src(), allSrc);
            seeds.put(type.dst(), allDst);
        }
        long[] srcTime = null;
        long[] treeTimes = null;
        if (links.hasTimes()) {
            treeTimes = new long[allSrc.length + allDst.length];
            for (int j = 0; j < treeTimes.length; j++) {
                int at = j < allSrc.length ? j : j - allSrc.length;
                treeTimes[j] = links.time(batch.seeds[at % p]);
            }
            srcTime = Arrays.copyOf(treeTimes, allSrc.length);
        }
        HeteroSubgraph sub = trees.sample(seeds, treeTimes, seed, batch.epoch, batch.batchId);
        for (HeteroSubgraph.Nodes nodes : sub.nodes.values()) {
            for (int i = 0; i < nodes.trees.length; i++) {
                nodes.trees[i] %= p; // PyG: out.batch[type] % num_pos, so both ends of pair i are batch i
            }
        }
        sub = edges(sub);
        TypedSample sample = TypedSample.kHop(sub, typed, seedType);
        // Tree j's root is node j of its type's list: sources first, then destinations (after them if one type).
        int dstOffset = oneType ? allSrc.length : 0;
        int[] localSrc = new int[allSrc.length];
        for (int i = 0; i < localSrc.length; i++) {
            localSrc[i] = i;
        }
        int[] localDst = new int[allDst.length];
        for (int j = 0; j < localDst.length; j++) {
            localDst[j] = dstOffset + j;
        }
        if (negatives == NegativeSampling.TRIPLET) { // row-major [P, k] again for the label writer
            for (int j = 0; j < localDst.length - p; j++) {
                localDst[p + j] = dstOffset + p + LinkBatch.negativeMajor(j, p, perPositive);
            }
        }
        sample.metadata().linkLabels(LinkLabels.of(negatives, p, perPositive, localSrc, localDst))
                .inputType(type.toString());
        if (negatives == NegativeSampling.TRIPLET) {
            sample.metadata().seedTime(srcTime);
        } else {
            sample.metadata().edgeLabelTime(srcTime);
        }
        emit(batch, sample, BatchHeader.withoutSeeds(batch), sub.numNodes(), sub.numEdges(), out);
    }

    /**
     * An ABLP batch (GiGL's ABLP sampler): the anchors and their label nodes are the seeds; {@code {anchor
     * type}.batch} holds the anchors only; {@code #META.gigl_positive_labels.<type>} (and negative) are each anchor's
     * label node ids, [anchors, P] padded with -1, row i = the batch's i-th anchor.
     */
    private void sampleAnchors(SeedBatch batch, Collector<EncodedMessage> out) {
        AnchorLabels labels = AnchorLabels.of(batch.seeds, positiveLabels, negativeLabels);
        HeteroSubgraph sub = edges(sampler.sample(labels.seeds, seed, batch.epoch, batch.batchId));
        TypedSample sample = TypedSample.kHop(sub, typed, seedType);
        NodeIdMap labelIds = typed.nodeIds(ablpPositive.dst());
        sample.metadata().positiveLabels(LabelNodes.of(ablpPositive.toString(), labelIds, labels.positive,
                batch.seeds.length, labels.positiveWidth));
        if (negativeLabels != null) {
            sample.metadata().negativeLabels(LabelNodes.of(ablpNegative.toString(), labelIds, labels.negative,
                    batch.seeds.length, labels.negativeWidth));
        }
        emit(batch, sample, BatchHeader.of(batch, typed.nodeIds(seedType)), sub.numNodes(), sub.numEdges(), out);
    }
}
