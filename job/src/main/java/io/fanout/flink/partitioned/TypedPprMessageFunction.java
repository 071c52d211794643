package io.fanout.flink.partitioned;

import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.Tensor;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.features.FeatureDType;
import io.fanout.flink.operator.GraphSamplingFunction;
import io.fanout.flink.operator.GraphSamplingFunction.SamplingCounters;
import io.fanout.flink.operator.TypedPprSamplingFunction;
import io.fanout.graph.typed.EdgeType;
import io.fanout.sampling.ppr.TypedPprSubgraph;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * A typed PPR batch after its selection (and node data) as its message: the keys and bytes the memory store's
 * {@link TypedPprSamplingFunction#toMessage} writes for the same batch (per node type ids, counts and node data;
 * per node type the PPR edges and weights; with sampled edges, per reported edge type rows, cols and counts).
 */
public class TypedPprMessageFunction extends RichMapFunction<TypedPartialBatch, EncodedMessage> {
    private static final long serialVersionUID = 1L;

    private final TypedLayout layout;
    private final boolean includeSampledEdges;
    private final FeatureDType dtype;
    private final float[][] scale;
    private final float[][] offset;
    private final int[] dims;
    private final TrainerShares shares;

    private transient SamplingCounters counters;

    TypedPprMessageFunction(TypedLayout layout, boolean includeSampledEdges, FeatureDType dtype, float[][] scale,
            float[][] offset, int[] dims, TrainerShares shares) {
        this.layout = layout;
        this.includeSampledEdges = includeSampledEdges;
        this.dtype = dtype;
        this.scale = scale;
        this.offset = offset;
        this.dims = dims.clone();
        this.shares = shares == null ? TrainerShares.ONE : shares;
    }

    @Override
    public void open(OpenContext openContext) {
        counters = new SamplingCounters(getRuntimeContext(), null);
    }

    @Override
    public EncodedMessage map(TypedPartialBatch batch) {
        TensorMessage message = new TensorMessage();
        String seedType = layout.nodeTypes.get(layout.seedType);
        int numNodes = 0;
        for (int t = 0; t < layout.nodeTypes.size(); t++) {
            String prefix = layout.nodeTypes.get(t) + ".";
            long[] ids = batch.ids[t];
            numNodes += ids.length;
            message.put(prefix + MessageKeys.IDS, Tensor.ofInt64(ids))
                    .putInt64(prefix + MessageKeys.NUM_SAMPLED_NODES, new long[] {ids.length});
            if (batch.nlabels != null && batch.nlabels[t] != null) {
                TypedMessageFunction.putNodeData(message, batch, t, prefix, dims[t], dtype, scale, offset,
                        layout.seedType);
            }
        }
        int numEdges = 0;
        for (int t = 0; t < layout.nodeTypes.size(); t++) {
            String type = TypedPprSubgraph.pprEdgeType(seedType, layout.nodeTypes.get(t));
            long n = batch.pprEdgeIndex[t].length / 2;
            numEdges += (int) n;
            message.put(TypedPprSamplingFunction.PPR_EDGE_INDEX + type,
                            Tensor.ofInt64(batch.pprEdgeIndex[t], new long[] {2, n}))
                    .put(TypedPprSamplingFunction.PPR_WEIGHT + type,
                            Tensor.ofFloat64(batch.pprWeights[t], new long[] {n, batch.pprColumns}));
        }
        if (includeSampledEdges) {
            // Reported edge types in name order, as the memory store's sample holds them.
            Map<EdgeType, Integer> byReported = new TreeMap<>();
            for (int r = 0; r < layout.reported.size(); r++) {
                byReported.put(layout.reported.get(r), r);
            }
            for (Map.Entry<EdgeType, Integer> e : byReported.entrySet()) {
                String prefix = e.getKey() + ".";
                int m = e.getValue();
                numEdges += batch.rows[m].length;
                message.put(prefix + MessageKeys.ROWS, Tensor.ofInt64(batch.rows[m]))
                        .put(prefix + MessageKeys.COLS, Tensor.ofInt64(batch.cols[m]))
                        .putInt64(prefix + MessageKeys.NUM_SAMPLED_EDGES, new long[] {batch.rows[m].length});
            }
        }
        GraphSamplingFunction.withBatchMetadata(message, seedType + "." + MessageKeys.BATCH, true,
                Tensor.ofInt64(batch.seeds), batch.inputIds, batch.epoch, batch.batchId, batch.numBatches);
        GraphSamplingFunction.withTrainerMetadata(message, shares, batch.batchId);
        byte[] payload = SafetensorsCodec.encode(message);
        counters.onBatch(batch.seeds.length, numNodes, numEdges, payload.length);
        return new EncodedMessage(batch.epoch, batch.batchId, batch.numBatches, payload);
    }
}
