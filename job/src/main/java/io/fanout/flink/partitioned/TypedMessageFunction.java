package io.fanout.flink.partitioned;

import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.FeatureDType;
import io.fanout.graph.typed.EdgeType;
import io.fanout.message.BatchHeader;
import io.fanout.message.NodeData;
import io.fanout.message.TypedSample;
import io.fanout.sampling.hetero.HeteroBidirectional;
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

    @Override
    public EncodedMessage map(TypedPartialBatch batch) {
        TypedSample sample = new TypedSample(layout.nodeTypes.get(layout.seedType));
        int numNodes = 0;
        for (int t = 0; t < layout.nodeTypes.size(); t++) {
            numNodes += batch.ids[t].length;
            sample.nodes(layout.nodeTypes.get(t), batch.ids[t], batch.numSampledNodes[t],
                    nodeData(batch, t, dims[t], dtype, scale, offset, layout.seedType),
                    batch.trees == null ? null : batch.trees[t]);
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
                sample.edges(type.toString(), batch.rows[r], batch.cols[r], batch.numSampledEdges[r]);
            } else { // PyG: no per-hop counts for the edge types it made bidirectional
                numEdges += made.rows().length;
                sample.edges(type.toString(), made.rows(), made.cols(), null);
            }
        }
        if (batch.seedTimes != null) {
            sample.metadata().seedTime(batch.seedTimes); // PyG's seed_time, as the memory store's temporal batches
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
