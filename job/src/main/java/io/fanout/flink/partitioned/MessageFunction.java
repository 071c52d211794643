package io.fanout.flink.partitioned;

import io.fanout.connectors.message.DType;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.message.Tensor;
import io.fanout.features.FeatureDType;
import io.fanout.flink.operator.GraphSamplingFunction;
import io.fanout.flink.operator.GraphSamplingFunction.SamplingCounters;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * A batch after its last hop as its message: the keys and bytes the in-memory store's k-hop operator writes for
 * the same batch ({@link io.fanout.flink.operator.KHopSamplingFunction}), node features and labels included,
 * counted in the job's metrics.
 */
public class MessageFunction extends RichMapFunction<PartialBatch, EncodedMessage> {
    private static final long serialVersionUID = 1L;

    /** The node file's dtype, or null without one. */
    private final FeatureDType dtype;
    /** uint8: the per-column scale and offset messages carry; else null. */
    private final float[] scale;
    private final float[] offset;
    /** With graph updates: messages carry {@code #META.graph_version}. */
    private boolean graphVersions;
    /** The batches' trainer shares ({@code #META.trainers}, {@code #META.padded} with several trainers). */
    private io.fanout.batch.TrainerShares shares = io.fanout.batch.TrainerShares.ONE;

    private transient SamplingCounters counters;

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
    public MessageFunction withTrainers(io.fanout.batch.TrainerShares shares) {
        this.shares = shares == null ? io.fanout.batch.TrainerShares.ONE : shares;
        return this;
    }

    @Override
    public void open(OpenContext openContext) {
        counters = new SamplingCounters(getRuntimeContext(), null);
    }

    @Override
    public EncodedMessage map(PartialBatch batch) {
        if (batch.pprEdgeIndex != null) {
            return pprMessage(batch);
        }
        TensorMessage message = new TensorMessage()
                .putInt64(MessageKeys.IDS, batch.ids)
                .putInt64(MessageKeys.ROWS, batch.rows)
                .putInt64(MessageKeys.COLS, batch.cols)
                .putInt64(MessageKeys.NUM_SAMPLED_NODES, batch.numSampledNodes)
                .putInt64(MessageKeys.NUM_SAMPLED_EDGES, batch.numSampledEdges);
        putNodeData(message, batch);
        GraphSamplingFunction.withBatchMetadata(message, Tensor.ofInt64(batch.seeds), batch.inputIds, batch.epoch,
                batch.batchId, batch.numBatches);
        if (graphVersions) {
            message.putInt64(MessageKeys.META_GRAPH_VERSION, new long[] {batch.graphVersion});
        }
        GraphSamplingFunction.withTrainerMetadata(message, shares, batch.batchId);
        byte[] payload = SafetensorsCodec.encode(message);
        counters.onBatch(batch.seeds.length, batch.ids.length, batch.rows.length, payload.length);
        return new EncodedMessage(batch.epoch, batch.batchId, batch.numBatches, payload);
    }

    /** The in-memory PPR operator's message ({@link io.fanout.flink.operator.PprSamplingFunction}): same keys, same order. */
    private EncodedMessage pprMessage(PartialBatch batch) {
        int n = batch.pprEdgeIndex.length / 2;
        TensorMessage message = new TensorMessage().putInt64(MessageKeys.IDS, batch.ids);
        putNodeData(message, batch);
        message.put(MessageKeys.ROWS, Tensor.ofInt64(new long[0]))
                .put(MessageKeys.COLS, Tensor.ofInt64(new long[0]))
                .put(MessageKeys.META_EDGE_INDEX, Tensor.ofInt64(batch.pprEdgeIndex, new long[] {2, n}))
                .put(MessageKeys.META_EDGE_ATTR, Tensor.ofFloat64(batch.pprEdgeAttr, new long[] {n, 2}));
        GraphSamplingFunction.withBatchMetadata(message, Tensor.ofInt64(batch.seeds), batch.inputIds, batch.epoch,
                batch.batchId, batch.numBatches);
        if (graphVersions) {
            message.putInt64(MessageKeys.META_GRAPH_VERSION, new long[] {batch.graphVersion});
        }
        GraphSamplingFunction.withTrainerMetadata(message, shares, batch.batchId);
        byte[] payload = SafetensorsCodec.encode(message);
        counters.onBatch(batch.seeds.length, batch.ids.length, n, payload.length);
        return new EncodedMessage(batch.epoch, batch.batchId, batch.numBatches, payload);
    }

    private void putNodeData(TensorMessage message, PartialBatch batch) {
        if (batch.nlabels != null) { // the in-memory store's withNodeData, same keys in the same order
            int n = batch.ids.length;
            int dim = batch.nfeats.length / n / dtype.bytes();
            if (dim > 0) {
                message.put(MessageKeys.NFEATS, Tensor.ofBytes(DType.valueOf(dtype.safetensorsName()),
                        new long[] {n, dim}, batch.nfeats));
                if (dtype == FeatureDType.UINT8) {
                    message.putFloat32(MessageKeys.META_NFEATS_SCALE, scale, dim);
                    message.putFloat32(MessageKeys.META_NFEATS_OFFSET, offset, dim);
                }
            }
            message.putInt64(MessageKeys.NLABELS, batch.nlabels);
        }
    }
}
