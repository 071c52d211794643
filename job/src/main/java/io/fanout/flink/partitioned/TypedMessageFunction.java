package io.fanout.flink.partitioned;

import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.FeatureDType;
import io.fanout.flink.operator.GraphSamplingFunction.SamplingCounters;
import io.fanout.message.BatchHeader;
import io.fanout.message.MessageEncoder;
import io.fanout.message.NodeData;
import io.fanout.message.TypedSample;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * A typed batch after its last hop as its message: the batch as a {@link TypedSample}, node features and the seed
 * type's labels included, encoded by the message layer's one encoder, so its bytes are the memory store's typed
 * k-hop operator's for the same batch; counted in the job's metrics.
 */
public class TypedMessageFunction extends RichMapFunction<TypedPartialBatch, EncodedMessage> {
    private static final long serialVersionUID = 1L;

    private final TypedLayout layout;
    /** The node files' dtype (with any node data). */
    private final FeatureDType dtype;
    /** uint8: [node type] the per-column scale and offset of its node file; else null. */
    private final float[][] scale;
    private final float[][] offset;
    /** [node type] the feature width of its node file (0 without features or without a file). */
    private final int[] dims;
    private io.fanout.batch.TrainerShares shares = io.fanout.batch.TrainerShares.ONE;

    private transient SamplingCounters counters;

    TypedMessageFunction(TypedLayout layout, FeatureDType dtype, float[][] scale, float[][] offset, int[] dims) {
        this.layout = layout;
        this.dims = dims.clone();
        this.dtype = dtype;
        this.scale = scale;
        this.offset = offset;
    }

    /** Messages carry their batch's trainer share, as the memory store's do. */
    TypedMessageFunction withTrainers(io.fanout.batch.TrainerShares shares) {
        this.shares = shares == null ? io.fanout.batch.TrainerShares.ONE : shares;
        return this;
    }

    @Override
    public void open(OpenContext openContext) {
        counters = new SamplingCounters(getRuntimeContext(), null);
    }

    @Override
    public EncodedMessage map(TypedPartialBatch batch) {
        TypedSample sample = new TypedSample(layout.nodeTypes.get(layout.seedType));
        int numNodes = 0;
        for (int t = 0; t < layout.nodeTypes.size(); t++) {
            numNodes += batch.ids[t].length;
            sample.nodes(layout.nodeTypes.get(t), batch.ids[t], batch.numSampledNodes[t],
                    nodeData(batch, t, dims[t], dtype, scale, offset, layout.seedType));
        }
        int numEdges = 0;
        for (int r = 0; r < layout.reported.size(); r++) {
            numEdges += batch.rows[r].length;
            sample.edges(layout.reported.get(r).toString(), batch.rows[r], batch.cols[r], batch.numSampledEdges[r]);
        }
        byte[] payload = MessageEncoder.encode(sample,
                BatchHeader.of(batch.seeds, batch.inputIds, batch.epoch, batch.batchId, batch.numBatches), shares);
        counters.onBatch(batch.seeds.length, numNodes, numEdges, payload.length);
        return new EncodedMessage(batch.epoch, batch.batchId, batch.numBatches, payload);
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
