package io.fanout.connectors.channel.shm;

import io.fanout.connectors.channel.options.ShmSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Flink Sink V2 that hands sampled-subgraph messages to trainers on the same host through
 * shared-memory rings: subtask i writes {@code <shm-dir>/<name>-<i>.ring} (docs/shm-ring.md),
 * read in place by {@code fanout_client.ShmRingReader} / {@code ShmClient}.
 */
public final class ShmChannelSink implements Sink<EncodedMessage> {
    private static final long serialVersionUID = 1L;

    private final ShmSinkOptions options;

    public ShmChannelSink(ShmSinkOptions options) {
        this.options = options;
    }

    public ShmSinkOptions options() {
        return options;
    }

    @Override
    public SinkWriter<EncodedMessage> createWriter(WriterInitContext context) throws IOException {
        TaskInfo task = context.getTaskInfo();
        ShmChannelWriter writer = new ShmChannelWriter(options, task.getIndexOfThisSubtask(), task.getNumberOfParallelSubtasks());
        writer.registerMetrics(context.metricGroup());
        return writer;
    }
}
