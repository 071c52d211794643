package io.fanout.connectors.channel.sink;

import io.fanout.connectors.message.EncodedSample;
import java.io.IOException;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Flink Sink V2 that serves sampled-subgraph messages to pulling trainers over the channel protocol
 * (connectors/CHANNEL.md): every subtask is one endpoint registered in the registry directory.
 */
public final class ChannelSink implements Sink<EncodedSample> {
    private static final long serialVersionUID = 1L;

    private final ChannelSinkOptions options;

    public ChannelSink(ChannelSinkOptions options) {
        this.options = options;
    }

    public ChannelSinkOptions options() {
        return options;
    }

    @Override
    public SinkWriter<EncodedSample> createWriter(WriterInitContext context) throws IOException {
        TaskInfo task = context.getTaskInfo();
        ChannelSinkWriter writer = new ChannelSinkWriter(options, task.getIndexOfThisSubtask(), task.getNumberOfParallelSubtasks(),
                context.getJobInfo().getJobId().toString());
        writer.registerMetrics(context.metricGroup());
        return writer;
    }
}
