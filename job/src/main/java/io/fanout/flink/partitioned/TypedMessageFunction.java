package io.fanout.flink.partitioned;

import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.FeatureDType;
import io.fanout.graph.typed.EdgeType;
import io.fanout.message.BatchHeader;
import io.fanout.message.NodeData;
import io.fanout.message.SampleMetadata;
import io.fanout.message.TypedSample;
import io.fanout.sampling.hetero.HeteroBidirectional;
import io.fanout.sampling.link.NegativeSampling;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * A typed batch after its last hop as its message: the batch as a {@link TypedSample}, node features and the seed
 * type's labels included, encoded by the message layer's one encoder, so its bytes are the memory store's typed
 * k-hop operator's for the same batch ({@link MessageStageFunction}: borrowed, counted).
 */
public class TypedMessageFunction extends MessageStageFunction<TypedPartialBatch> {
    private static final long serialVersionUID = 1L;

    private final TypedLayout layout;
    /** The node files' dtype (with any node data). */
    private final FeatureDType dtype;
    /** uint8: [node type] the per-column scale and offset of its node file; else null. */
    private final float[][] scale;
    private final float[][] offset;
    /** [node type] the feature width of its node file (0 without features or without a file). */
    private final int[] dims;
    private TrainerShares shares = TrainerShares.ONE;
    /** {@code --subgraph-type bidirectional}: edges as {@link HeteroBidirectional} makes them. */
    private boolean bidirectional;
    /** Link seeds: their edge type (messages name it as the input type); else null. */
    private EdgeType linkType;
    /** Link seeds: the node types (indices) of the link type's ends, whose labels messages carry. */
    private int linkSrcType = -1;
    private int linkDstType = -1;

    /** ABLP: the positive and negative label edge types' names, as GiGL's metadata keys name them; else null. */
    private String positiveType;
    private String negativeType;

    TypedMessageFunction(TypedLayout layout, FeatureDType dtype, float[][] scale, float[][] offset, int[] dims) {
        this.layout = layout;
        this.dims = dims.clone();
        this.dtype = dtype;
        this.scale = scale;
        this.offset = offset;
    }

    /** Messages carry their batch's trainer share, as the memory store's do. */
    TypedMessageFunction withTrainers(TrainerShares shares) {
        this.shares = shares == null ? TrainerShares.ONE : shares;
        return this;
    }

    /** Messages carry bidirectional edges, as the memory store's typed k-hop makes them. */
    TypedMessageFunction bidirectional(boolean bidirectional) {
        this.bidirectional = bidirectional;
        return this;
    }

    /** Link batches of {@code type}, whose ends are of node types {@code srcType} and {@code dstType}. */
    TypedMessageFunction links(EdgeType type, int srcType, int dstType) {
        this.linkType = type;
        this.linkSrcType = srcType;
        this.linkDstType = dstType;
        return this;
    }

    /** ABLP: messages carry each anchor's label nodes under these label edge types' keys (negative: null). */
    TypedMessageFunction anchorLabels(String positiveType, String negativeType) {
        this.positiveType = positiveType;
        this.negativeType = negativeType;
        return this;
    }

    @Override
    public EncodedMessage map(TypedPartialBatch batch) {
        TypedSample sample = new TypedSample(layout.nodeTypes.get(layout.seedType));
        boolean link = batch.linkLabelIndex != null;
        int p = batch.inputIds.length;
        int numNodes = 0;
        for (int t = 0; t < layout.nodeTypes.size(); t++) {
            numNodes += batch.ids[t].length;
            int[] trees = batch.trees == null ? null : batch.trees[t];
            if (link && trees != null) { // PyG: out.batch[type] % num_pos, so both ends of pair i are batch i
                trees = trees.clone();
                for (int i = 0; i < trees.length; i++) {
                    trees[i] %= p;
                }
            }
            // A link batch's seeds are of both ends' types, and the memory store gathers labels for every seed type.
            int labelled = link && (t == linkSrcType || t == linkDstType) ? t : layout.seedType;
            sample.nodes(layout.nodeTypes.get(t), batch.ids[t], batch.numSampledNodes[t],
                    nodeData(batch, t, dims[t], dtype, scale, offset, labelled), trees);
        }
        Map<EdgeType, HeteroBidirectional.Pairs> changed = Map.of();
        if (bidirectional) {
            Map<EdgeType, HeteroBidirectional.Pairs> sampled = new TreeMap<>();
            for (int r = 0; r < layout.reported.size(); r++) {
                sampled.put(layout.reported.get(r), new HeteroBidirectional.Pairs(batch.rows[r], batch.cols[r]));
            }
            changed = HeteroBidirectional.changed(sampled);
        }
        int numEdges = 0;
        for (int r = 0; r < layout.reported.size(); r++) {
            EdgeType type = layout.reported.get(r);
            HeteroBidirectional.Pairs made = changed.get(type);
            if (made == null) {
                numEdges += batch.rows[r].length;
                if (batch.edgeIds != null) { // --with-edge
                    sample.edges(type.toString(), batch.rows[r], batch.cols[r], batch.numSampledEdges[r],
                            batch.edgeIds[r], batch.edgeWeights[r], batch.edgeTimes[r]);
                } else {
                    sample.edges(type.toString(), batch.rows[r], batch.cols[r], batch.numSampledEdges[r]);
                }
            } else { // PyG: no per-hop counts nor edge ids for the edge types it made bidirectional
                numEdges += made.rows().length;
                sample.edges(type.toString(), made.rows(), made.cols(), null);
            }
        }
        if (link) {
            int[] labels = batch.linkLabelIndex;
            int k = batch.tripletAmount;
            int sources = k > 0 ? p : labels.length / 2; // the positives' and binary negatives' sources
            NegativeSampling mode = k > 0 ? NegativeSampling.TRIPLET
                    : sources > p ? NegativeSampling.BINARY : NegativeSampling.NONE;
            sample.metadata().linkLabels(SampleMetadata.LinkLabels.of(mode, p, k, Arrays.copyOf(labels, sources),
                    Arrays.copyOfRange(labels, sources, labels.length))).inputType(linkType.toString());
            if (batch.seedTimes != null) { // PyG's seed_time with triplets, else edge_label_time
                long[] times = Arrays.copyOf(batch.seedTimes, sources);
                if (k > 0) {
                    sample.metadata().seedTime(times);
                } else {
                    sample.metadata().edgeLabelTime(times);
                }
            }
            return write(sample, new BatchHeader(null, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches),
                    shares, p, numNodes, numEdges);
        }
        if (batch.seedTimes != null) {
            sample.metadata().seedTime(batch.seedTimes); // PyG's seed_time, as the memory store's temporal batches
        }
        if (batch.positiveLabels != null) {
            sample.metadata().anchorLabels(batch.seeds.length, positiveType, batch.positiveLabels, batch.positiveWidth,
                    negativeType, batch.negativeLabels, batch.negativeWidth);
        }
        return write(sample, BatchHeader.of(batch.seeds, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches),
                shares, batch.seeds.length, numNodes, numEdges);
    }

    /**
     * Node type {@code t}'s gathered node data as the memory store gathers it: features of every type with a file,
     * labels of the seed type only (the k-hop and PPR messages share it); null without node data.
     */
    static NodeData nodeData(TypedPartialBatch batch, int t, int dim, FeatureDType dtype, float[][] scale,
            float[][] offset, int seedType) {
        if (batch.nlabels == null || batch.nlabels[t] == null) {
            return null;
        }
        return NodeData.of(dtype, dim, batch.ids[t].length, batch.nfeats[t], scale == null ? null : scale[t],
                offset == null ? null : offset[t], t == seedType ? batch.nlabels[t] : null);
    }
}
