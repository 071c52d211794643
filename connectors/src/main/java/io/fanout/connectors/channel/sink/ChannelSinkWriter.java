package io.fanout.connectors.channel.sink;

import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MeterView;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The writer of one {@link ChannelSink} subtask: a thin Flink adapter over one
 * {@link ChannelEndpoint}. {@code write} blocks while the endpoint is full (back-pressure);
 * watermarks (the epoch as event time) tell the endpoint which epochs are complete; checkpoints
 * keep buffered and unacknowledged messages; {@code flush(true)} blocks until everything is
 * delivered and marks the endpoint finished.
 */
public final class ChannelSinkWriter implements StatefulSinkWriter<EncodedMessage, ChannelEndpoint.Snapshot> {
    private final ChannelEndpoint endpoint;
    /** Input ordered by epoch: a message of epoch e ends epoch e - 1 ({@link ChannelSink#withEpochOrderedInput()}). */
    boolean epochOrderedInput;

    /**
     * Opens the endpoint of subtask {@code index} of {@code parallelism}: listens and registers.
     * Usable without Flink (tests, tools).
     */
    public ChannelSinkWriter(ChannelSinkOptions options, int index, int parallelism, String jobId) throws IOException {
        this(options, index, parallelism, jobId, null);
    }

    /** As above, re-buffering the messages of a restored checkpoint ({@code restored} may be null). */
    public ChannelSinkWriter(ChannelSinkOptions options, int index, int parallelism, String jobId, ChannelEndpoint.Snapshot restored)
            throws IOException {
        this.endpoint = new ChannelEndpoint(options, index, parallelism, jobId, restored);
    }

    /**
     * Publishes the endpoint's metrics in group {@code channel}: meters {@code messagesSent} and
     * {@code bytesSent} (per second), gauges {@code queueDepth} / {@code queueBytes} (buffered plus
     * unacknowledged), {@code connectedClients}, {@code endedEpoch}, and histogram
     * {@code fetchLatencyMs} (how long a client's credit waited for a message).
     */
    void registerMetrics(MetricGroup parent) {
        MetricGroup group = parent.addGroup("channel");
        Counter messages = group.counter("messagesSentTotal");
        Counter bytes = group.counter("bytesSentTotal");
        group.meter("messagesSent", new MeterView(messages));
        group.meter("bytesSent", new MeterView(bytes));
        group.gauge("queueDepth", endpoint::held);
        group.gauge("queueBytes", endpoint::heldBytes);
        group.gauge("peakQueueBytes", endpoint::peakHeldBytes);
        group.gauge("connectedClients", endpoint::connectedClients);
        group.gauge("endedEpoch", endpoint::endedEpoch);
        Histogram latency = group.histogram("fetchLatencyMs", new DescriptiveStatisticsHistogram(1024));
        endpoint.setListener(new ChannelEndpoint.Listener() {
            @Override
            public void onSent(int payloadBytes) {
                messages.inc();
                bytes.inc(payloadBytes);
            }

            @Override
            public void onFetchLatency(long nanos) {
                latency.update(nanos / 1_000_000);
            }
        });
    }

    /** The endpoint this writer feeds. */
    public ChannelEndpoint endpoint() {
        return endpoint;
    }

    /** Buffers {@code sample}, blocking while the buffer is full; {@code context} may be null. */
    @Override
    public void write(EncodedMessage sample, Context context) throws IOException, InterruptedException {
        if (sample == null || sample.bytes() == null) {
            throw new IllegalArgumentException("channel sink got a sample without payload: " + sample);
        }
        // A fresh shell over an owned payload: the endpoint holds the message until a trainer acknowledges it, so
        // a borrowed one copies its bytes out of the sampler's buffer here (payload()), and with object reuse the
        // caller may refill the same EncodedMessage object.
        if (epochOrderedInput && sample.epoch > 0) {
            // Before put, which may block: a client that reads epoch e - 1 must learn it ended even while
            // this endpoint is full of epoch-e messages it does not take yet.
            endpoint.advanceWatermark(sample.epoch - 1);
        }
        endpoint.put(new EncodedMessage(sample.epoch, sample.batchId, sample.numBatches, sample.payload()));
    }

    /**
     * Event time is the epoch: watermark {@code w} means every message of epochs up to {@code w}
     * has been written. The final {@code Long.MAX_VALUE} watermark is left to {@link #flush}(true),
     * which ends the stream.
     */
    @Override
    public void writeWatermark(Watermark watermark) {
        long w = watermark.getTimestamp();
        if (w >= 0 && w < Integer.MAX_VALUE) {
            endpoint.advanceWatermark((int) w);
        }
    }

    /**
     * Nothing to flush at a checkpoint (the state keeps what is not acknowledged); at end of input,
     * blocks until every message was delivered and acknowledged, then marks the endpoint finished.
     */
    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        if (endOfInput) {
            endpoint.finishAndDrain();
        }
    }

    @Override
    public List<ChannelEndpoint.Snapshot> snapshotState(long checkpointId) {
        return List.of(endpoint.snapshot());
    }

    /** Lingers for late clients if the input ended and was delivered, then closes the server. */
    @Override
    public void close() {
        endpoint.close();
    }
}
