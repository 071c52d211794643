package io.fanout.connectors.channel.sink;

import io.fanout.connectors.message.EncodedSample;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.MetricGroup;

/**
 * The writer of one {@link ChannelSink} subtask: a thin Flink adapter over one
 * {@link ChannelEndpoint}. {@code write} blocks while the endpoint's buffer is full (back-pressure);
 * {@code flush(true)} blocks until the buffer is delivered and marks the endpoint finished.
 */
public final class ChannelSinkWriter implements SinkWriter<EncodedSample> {
    private final ChannelEndpoint endpoint;

    /**
     * Opens the endpoint of subtask {@code index} of {@code parallelism}: listens and registers.
     * Usable without Flink (tests, tools).
     */
    public ChannelSinkWriter(ChannelSinkOptions options, int index, int parallelism, String jobId) throws IOException {
        this.endpoint = new ChannelEndpoint(options, index, parallelism, jobId);
    }

    /** Publishes gauges: {@code channelQueueSize} (GLT's qsize), {@code channelQueueBytes}, {@code channelClients}, {@code channelDelivered}. */
    void registerMetrics(MetricGroup group) {
        group.gauge("channelQueueSize", endpoint::buffered);
        group.gauge("channelQueueBytes", endpoint::bufferedBytes);
        group.gauge("channelClients", endpoint::connectedClients);
        group.gauge("channelDelivered", endpoint::delivered);
    }

    /** The endpoint this writer feeds. */
    public ChannelEndpoint endpoint() {
        return endpoint;
    }

    /** Buffers {@code sample}, blocking while the buffer is full; {@code context} may be null. */
    @Override
    public void write(EncodedSample sample, Context context) throws IOException, InterruptedException {
        if (sample == null || sample.payload == null) {
            throw new IllegalArgumentException("channel sink got a sample without payload: " + sample);
        }
        // A fresh shell: with object reuse the caller may refill the same EncodedSample object (the
        // payload array itself must not be reused upstream; encoders allocate one per message).
        endpoint.put(new EncodedSample(sample.epoch, sample.batchId, sample.numBatches, sample.payload));
    }

    /**
     * Nothing to flush at a checkpoint (v1 gives no delivery guarantee for buffered messages); at end
     * of input, blocks until every buffered message reached a client, then marks the endpoint finished.
     */
    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        if (endOfInput) {
            endpoint.finishAndDrain();
        }
    }

    /** Lingers for late clients if the input ended and was delivered, then closes the server. */
    @Override
    public void close() {
        endpoint.close();
    }
}
