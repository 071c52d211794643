package io.fanout.flink.partitioned;

import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.typeinfo.EncodedMessageTypeInfo;
import io.fanout.flink.operator.GraphSamplingFunction.SamplingCounters;
import io.fanout.message.BatchHeader;
import io.fanout.message.MessageWriter;
import io.fanout.message.Sample;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;

/**
 * The last stage of a partitioned batch: its sample encoded by the message layer's one encoder, counted in the job's
 * metrics and emitted as a borrowed message ({@link MessageWriter}: one reused buffer per subtask, as the memory
 * store's samplers emit theirs). Hence its result type is {@link EncodedMessageTypeInfo#TYPE}, whose serializer
 * copies or writes the borrowed bytes wherever Flink copies or ships a record.
 *
 * @param <T> the finished batch
 */
public abstract class MessageStageFunction<T> extends RichMapFunction<T, EncodedMessage>
        implements ResultTypeQueryable<EncodedMessage> {
    private static final long serialVersionUID = 1L;

    private transient SamplingCounters counters;
    private transient MessageWriter writer;

    @Override
    public void open(OpenContext openContext) {
        counters = new SamplingCounters(getRuntimeContext(), null);
        writer = new MessageWriter();
    }

    @Override
    public TypeInformation<EncodedMessage> getProducedType() {
        return EncodedMessageTypeInfo.TYPE;
    }

    /** {@code sample} as the borrowed message of batch {@code header}, counted with its seeds, nodes and edges. */
    protected final EncodedMessage write(Sample sample, BatchHeader header, TrainerShares shares, int numSeeds,
            int numNodes, int numEdges) {
        EncodedMessage message = writer.write(sample, header, shares);
        counters.onBatch(numSeeds, numNodes, numEdges, message.length());
        return message;
    }
}
