package io.fanout.connectors.channel.sink;

import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import java.util.Collection;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Flink Sink V2 that serves sampled-subgraph messages to pulling trainers over the channel protocol
 * (docs/channel-protocol.md): every subtask is one endpoint registered in the registry directory. Its
 * writer state keeps buffered and unacknowledged messages, so a restart from a checkpoint loses none.
 */
public final class ChannelSink implements Sink<EncodedMessage>, SupportsWriterState<EncodedMessage, ChannelEndpoint.Snapshot> {
    private static final long serialVersionUID = 1L;

    private final ChannelSinkOptions options;
    private final boolean epochOrderedInput;

    public ChannelSink(ChannelSinkOptions options) {
        this(options, false);
    }

    private ChannelSink(ChannelSinkOptions options, boolean epochOrderedInput) {
        this.options = options;
        this.epochOrderedInput = epochOrderedInput;
    }

    /**
     * This sink, told that each subtask's input is ordered by epoch (no message of epoch {@code e} after one
     * of a later epoch), so a message of epoch {@code e} also says every message of epochs before {@code e}
     * was written. Without it, an endpoint full of later-epoch messages, which a client reading the current
     * epoch does not take, would block its writer before the watermark ending the current epoch could reach
     * it: a deadlock. The job's samplers guarantee the order ({@code GraphSamplingFunction}).
     */
    public ChannelSink withEpochOrderedInput() {
        return new ChannelSink(options, true);
    }

    public ChannelSinkOptions options() {
        return options;
    }

    @Override
    public StatefulSinkWriter<EncodedMessage, ChannelEndpoint.Snapshot> createWriter(WriterInitContext context) throws IOException {
        return restoreWriter(context, null);
    }

    @Override
    public StatefulSinkWriter<EncodedMessage, ChannelEndpoint.Snapshot> restoreWriter(WriterInitContext context,
            Collection<ChannelEndpoint.Snapshot> recoveredState) throws IOException {
        TaskInfo task = context.getTaskInfo();
        ChannelSinkWriter writer = new ChannelSinkWriter(options, task.getIndexOfThisSubtask(), task.getNumberOfParallelSubtasks(),
                context.getJobInfo().getJobId().toString(), ChannelEndpoint.merge(recoveredState));
        writer.epochOrderedInput = epochOrderedInput;
        writer.registerMetrics(context.metricGroup());
        return writer;
    }

    @Override
    public SimpleVersionedSerializer<ChannelEndpoint.Snapshot> getWriterStateSerializer() {
        return ChannelWriterStateSerializer.INSTANCE;
    }
}
