package io.fanout.flink.partitioned;

import io.fanout.connectors.message.EncodedSample;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.SampleMessage;
import io.fanout.connectors.message.Tensor;
import io.fanout.flink.operator.GraphSamplingFunction;
import io.fanout.flink.operator.GraphSamplingFunction.SamplingCounters;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

/**
 * A batch after its last hop as its message: the keys and bytes the in-memory store's k-hop operator writes for
 * the same batch ({@link io.fanout.flink.operator.KHopSamplingFunction}), counted in the job's metrics.
 */
public class MessageFunction extends RichMapFunction<PartialBatch, EncodedSample> {
    private static final long serialVersionUID = 1L;

    private transient SamplingCounters counters;

    @Override
    public void open(OpenContext openContext) {
        counters = new SamplingCounters(getRuntimeContext(), null);
    }

    @Override
    public EncodedSample map(PartialBatch batch) {
        SampleMessage message = new SampleMessage()
                .putInt64(MessageKeys.IDS, batch.ids)
                .putInt64(MessageKeys.ROWS, batch.rows)
                .putInt64(MessageKeys.COLS, batch.cols)
                .putInt64(MessageKeys.NUM_SAMPLED_NODES, batch.numSampledNodes)
                .putInt64(MessageKeys.NUM_SAMPLED_EDGES, batch.numSampledEdges);
        GraphSamplingFunction.withBatchMetadata(message, Tensor.ofInt64(batch.seeds), batch.inputIds, batch.epoch,
                batch.batchId, batch.numBatches);
        byte[] payload = SafetensorsCodec.encode(message);
        counters.onBatch(batch.seeds.length, batch.ids.length, batch.rows.length, payload.length);
        return new EncodedSample(batch.epoch, batch.batchId, batch.numBatches, payload);
    }
}
