package io.fanout.connectors.channel.sink;

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
 * (connectors/CHANNEL.md): every subtask is one endpoint registered in the registry directory. Its
 * writer state keeps buffered and unacknowledged messages, so a restart from a checkpoint loses none.
 */
public final class ChannelSink implements Sink<EncodedMessage>, SupportsWriterState<EncodedMessage, ChannelEndpoint.Snapshot> {
    private static final long serialVersionUID = 1L;

    private final ChannelSinkOptions options;

    public ChannelSink(ChannelSinkOptions options) {
        this.options = options;
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
        writer.registerMetrics(context.metricGroup());
        return writer;
    }

    @Override
    public SimpleVersionedSerializer<ChannelEndpoint.Snapshot> getWriterStateSerializer() {
        return ChannelWriterStateSerializer.INSTANCE;
    }
}
