package io.fanout.flink.partitioned;

import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.FeatureDType;
import io.fanout.message.BatchHeader;
import io.fanout.message.HomogeneousSample;
import io.fanout.message.NodeData;
import io.fanout.message.SampleMetadata;
import io.fanout.sampling.SubgraphInducer;
import io.fanout.sampling.partitioned.SampledEdgeData;
import io.fanout.sampling.link.NegativeSampling;
import java.util.Arrays;

/**
 * A batch after its last hop (or its PPR selection) as its message: the batch as a {@link HomogeneousSample},
 * node features and labels included, encoded by the message layer's one encoder, so its bytes are the memory
 * store's for the same batch ({@link MessageStageFunction}: borrowed, counted).
 */
public class MessageFunction extends MessageStageFunction<PartialBatch> {
    private static final long serialVersionUID = 1L;

    /** The node file's dtype, or null without one. */
    private final FeatureDType dtype;
    /** uint8: the per-column scale and offset messages carry; else null. */
    private final float[] scale;
    private final float[] offset;
    /** With graph updates: messages carry {@code #META.graph_version}. */
    private boolean graphVersions;
    /** The batches' trainer shares ({@code #META.trainers}, {@code #META.padded} with several trainers). */
    private TrainerShares shares = TrainerShares.ONE;
    /** {@code --subgraph-type bidirectional}: the sampled edges and their reverses, no per-hop edge counts. */
    private boolean bidirectional;
    /** ABLP: the positive and negative label edge types' names, as GiGL's metadata keys name them; else null. */
    private String positiveType;
    private String negativeType;

    /**
     * @param dtype the node features' dtype, or null without a node file
     * @param scale uint8 only: per-column scale (and {@code offset}) of the whole node file; else null
     */
    public MessageFunction(FeatureDType dtype, float[] scale, float[] offset) {
        this.dtype = dtype;
        this.scale = scale;
        this.offset = offset;
    }

    /** Messages carry the version their batch was sampled at ({@code #META.graph_version}). */
    public MessageFunction withGraphVersions() {
        this.graphVersions = true;
        return this;
    }

    /** Messages carry their batch's trainer share, as the memory store's do. */
    public MessageFunction withTrainers(TrainerShares shares) {
        this.shares = shares == null ? TrainerShares.ONE : shares;
        return this;
    }

    /** Messages carry the sampled edges and their reverses, as the memory store's bidirectional subgraphs. */
    public MessageFunction bidirectional(boolean bidirectional) {
        this.bidirectional = bidirectional;
        return this;
    }

    /** ABLP: messages carry each anchor's label nodes under these label edge types' keys (negative: null). */
    public MessageFunction anchorLabels(String positiveType, String negativeType) {
        this.positiveType = positiveType;
        this.negativeType = negativeType;
        return this;
    }

    @Override
    public EncodedMessage map(PartialBatch batch) {
        HomogeneousSample sample;
        int numEdges;
        if (batch.pprEdgeIndex != null) {
            sample = HomogeneousSample.ppr(batch.ids, batch.pprEdgeIndex, batch.pprEdgeAttr);
            numEdges = batch.pprEdgeIndex.length / 2;
        } else if (bidirectional) {
            SampledEdgeData data = batch.edgeData();
            int m = batch.rows.length;
            // With edge data, each edge's index as its position: a reversed edge keeps its sampled one's data.
            SubgraphInducer.Edges e = SubgraphInducer.bidirectional(batch.rows, batch.cols,
                    data == null ? null : java.util.stream.IntStream.range(0, m).toArray(), m);
            sample = HomogeneousSample.kHop(batch.ids, Arrays.copyOf(e.rows(), e.count()),
                    Arrays.copyOf(e.cols(), e.count()), batch.numSampledNodes, null);
            numEdges = e.count();
            if (data != null) {
                edgeData(sample, data.at(e.positions(), e.count()), batch.linkLabelIndex == null);
            }
        } else {
            sample = HomogeneousSample.kHop(batch.ids, batch.rows, batch.cols, batch.numSampledNodes,
                    batch.numSampledEdges);
            numEdges = batch.rows.length;
            if (batch.edgeIds != null) {
                edgeData(sample, batch.edgeData(), batch.linkLabelIndex == null);
            }
        }
        sample.nodeData(nodeData(batch));
        if (graphVersions) {
            sample.metadata().graphVersion(batch.graphVersion);
        }
        if (batch.linkLabelIndex != null) {
            return write(linkBatch(batch, sample), new BatchHeader(null, batch.inputIds, batch.epoch, batch.batchId,
                    batch.numBatches), shares, batch.inputIds.length, batch.ids.length, numEdges);
        }
        if (batch.trees != null) {
            sample.nodeBatch(batch.trees);
        }
        if (batch.seedTimes != null) {
            sample.metadata().seedTime(batch.seedTimes); // PyG's seed_time, as the memory store's temporal batches
        }
        if (batch.positiveLabels != null) {
            sample.metadata().anchorLabels(batch.seeds.length, positiveType, batch.positiveLabels, batch.positiveWidth,
                    negativeType, batch.negativeLabels, batch.negativeWidth);
        }
        return write(sample, BatchHeader.of(batch.seeds, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches),
                shares, batch.seeds.length, batch.ids.length, numEdges);
    }

    /**
     * {@code --with-edge}: the sampled edges' data as the memory store's k-hop operator writes it: {@code eids},
     * {@code efeats} (the edge files have a weight column) and, unless a link batch ({@code withTimes} false: PyG's link loader gives the seed
     * edges' times instead), {@code #META.edge_time} (temporal).
     */
    private static void edgeData(HomogeneousSample sample, SampledEdgeData data, boolean withTimes) {
        sample.edgeData(data.eids(), data.weights(), withTimes ? data.times() : null);
    }

    /**
     * A link batch's labels as the memory store's: {@code edge_label_index} [2, P+N] of local indices (with N binary
     * negatives, {@code edge_label} 1 for the P positives, then 0), or with triplet negatives {@code src_index},
     * {@code dst_pos_index} and {@code dst_neg_index}; disjoint, each node's {@code batch} is its tree mod P (both ends
     * of pair i, and its negatives, share batch i) and temporal, the pairs' times as PyG's {@code edge_label_time}
     * ({@code seed_time} with triplets).
     */
    private static HomogeneousSample linkBatch(PartialBatch batch, HomogeneousSample sample) {
        int p = batch.inputIds.length;
        int[] labels = batch.linkLabelIndex;
        if (batch.trees != null) {
            int[] pairOf = new int[batch.trees.length];
            for (int i = 0; i < pairOf.length; i++) {
                pairOf[i] = batch.trees[i] % p;
            }
            sample.nodeBatch(pairOf);
        }
        if (batch.tripletAmount > 0) {
            sample.metadata().linkLabels(SampleMetadata.LinkLabels.of(NegativeSampling.TRIPLET, p, batch.tripletAmount,
                    Arrays.copyOf(labels, p), Arrays.copyOfRange(labels, p, labels.length)));
            if (batch.seedTimes != null) {
                sample.metadata().seedTime(Arrays.copyOf(batch.seedTimes, p));
            }
            return sample;
        }
        int half = labels.length / 2;
        NegativeSampling mode = half > p ? NegativeSampling.BINARY : NegativeSampling.NONE;
        sample.metadata().linkLabels(SampleMetadata.LinkLabels.of(mode, p, 0, Arrays.copyOf(labels, half),
                Arrays.copyOfRange(labels, half, 2 * half)));
        if (batch.seedTimes != null) {
            sample.metadata().edgeLabelTime(Arrays.copyOf(batch.seedTimes, half));
        }
        return sample;
    }

    /** The batch's gathered features and labels (with a node file), or null. */
    private NodeData nodeData(PartialBatch batch) {
        if (batch.nlabels == null) {
            return null;
        }
        int n = batch.ids.length;
        int dim = batch.nfeats.length / n / dtype.bytes();
        return NodeData.of(dtype, dim, n, batch.nfeats, scale, offset, batch.nlabels);
    }
}
