package io.fanout.flink.partitioned;

import io.fanout.connectors.message.DType;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.Tensor;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.features.FeatureDType;
import io.fanout.flink.operator.GraphSamplingFunction;
import io.fanout.flink.operator.GraphSamplingFunction.SamplingCounters;
import io.fanout.graph.typed.EdgeType;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * A typed batch after its last hop as its message: the keys and bytes the in-memory store's typed k-hop operator
 * writes for the same batch ({@link io.fanout.flink.operator.HeteroKHopSamplingFunction#toMessage}), node
 * features and the seed type's labels included, counted in the job's metrics.
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
        TensorMessage message = new TensorMessage();
        int numNodes = 0;
        for (int t = 0; t < layout.nodeTypes.size(); t++) {
            String prefix = layout.nodeTypes.get(t) + ".";
            long[] ids = batch.ids[t];
            numNodes += ids.length;
            message.put(prefix + MessageKeys.IDS, Tensor.ofInt64(ids))
                    .putInt64(prefix + MessageKeys.NUM_SAMPLED_NODES, batch.numSampledNodes[t]);
            if (batch.nlabels != null && batch.nlabels[t] != null) {
                putNodeData(message, batch, t, prefix, dims[t], dtype, scale, offset, layout.seedType);
            }
        }
        // Reported edge types in name order, as the memory store's sample holds them.
        Map<EdgeType, Integer> byReported = new TreeMap<>();
        for (int r = 0; r < layout.reported.size(); r++) {
            byReported.put(layout.reported.get(r), r);
        }
        int numEdges = 0;
        for (Map.Entry<EdgeType, Integer> e : byReported.entrySet()) {
            String prefix = e.getKey() + ".";
            int r = e.getValue();
            numEdges += batch.rows[r].length;
            message.put(prefix + MessageKeys.ROWS, Tensor.ofInt64(batch.rows[r]))
                    .put(prefix + MessageKeys.COLS, Tensor.ofInt64(batch.cols[r]))
                    .putInt64(prefix + MessageKeys.NUM_SAMPLED_EDGES, batch.numSampledEdges[r]);
        }
        String seedType = layout.nodeTypes.get(layout.seedType);
        GraphSamplingFunction.withBatchMetadata(message, seedType + "." + MessageKeys.BATCH, true,
                Tensor.ofInt64(batch.seeds), batch.inputIds, batch.epoch, batch.batchId, batch.numBatches);
        GraphSamplingFunction.withTrainerMetadata(message, shares, batch.batchId);
        byte[] payload = SafetensorsCodec.encode(message);
        counters.onBatch(batch.seeds.length, numNodes, numEdges, payload.length);
        return new EncodedMessage(batch.epoch, batch.batchId, batch.numBatches, payload);
    }

    /**
     * The in-memory store's typed withNodeData: features of every type with a file, labels of the seed type (the
     * k-hop and PPR messages share it).
     */
    static void putNodeData(TensorMessage message, TypedPartialBatch batch, int t, String prefix, int dim,
            FeatureDType dtype, float[][] scale, float[][] offset, int seedType) {
        int n = batch.ids[t].length;
        if (dim > 0) {
            message.put(prefix + MessageKeys.NFEATS, Tensor.ofBytes(DType.valueOf(dtype.safetensorsName()),
                    new long[] {n, dim}, batch.nfeats[t]));
            if (dtype == FeatureDType.UINT8) {
                String meta = "#META.";
                message.putFloat32(meta + prefix + MessageKeys.META_NFEATS_SCALE.substring(meta.length()),
                        scale[t], dim);
                message.putFloat32(meta + prefix + MessageKeys.META_NFEATS_OFFSET.substring(meta.length()),
                        offset[t], dim);
            }
        }
        if (t == seedType) {
            message.putInt64(prefix + MessageKeys.NLABELS, batch.nlabels[t]);
        }
    }
}
