package io.fanout.connectors.channel.shm;

import io.fanout.connectors.channel.options.ShmSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of one {@link ShmChannelSink} subtask: a thin Flink adapter over one {@link ShmRing}.
 * {@code write} blocks while the ring is full (back-pressure); {@code flush(true)} marks the end of
 * the stream and blocks until the trainer read everything; {@code close} deletes the ring file.
 */
public final class ShmChannelWriter implements SinkWriter<EncodedMessage> {
    private static final Logger LOG = LoggerFactory.getLogger(ShmChannelWriter.class);

    private final ShmSinkOptions options;
    private final ShmRing ring;

    /** Creates the ring of subtask {@code index} of {@code parallelism}. Usable without Flink (tests, tools). */
    public ShmChannelWriter(ShmSinkOptions options, int index, int parallelism) throws IOException {
        this.options = options;
        this.ring = ShmRing.create(options.ringPath(index), options.ringBytes(), index, parallelism);
        LOG.info("shared-memory channel ring {} of {} bytes created", ring.path(), ring.capacity());
    }

    /**
     * Publishes the gauges {@code <name>_qsize} (messages written and not yet released by the
     * trainer, GLT's qsize), {@code <name>_bytes_used} and {@code <name>_capacity_bytes}; the hook any
     * sink owning a ring can call.
     */
    public static void registerMetrics(MetricGroup group, String name, ShmRing ring) {
        group.gauge(name + "_qsize", ring::qsize);
        group.gauge(name + "_bytes_used", ring::bytesUsed);
        group.gauge(name + "_capacity_bytes", ring::capacity);
    }

    void registerMetrics(MetricGroup group) {
        registerMetrics(group, options.name(), ring);
    }

    /** The ring this writer fills. */
    public ShmRing ring() {
        return ring;
    }

    /** Copies {@code sample} into the ring, blocking while it is full; {@code context} may be null. */
    @Override
    public void write(EncodedMessage sample, Context context) throws InterruptedException {
        if (sample == null || sample.payload == null) {
            throw new IllegalArgumentException("shared-memory channel sink got a sample without payload: " + sample);
        }
        ring.write(sample);
    }

    /**
     * Nothing to flush at a checkpoint: unlike the TCP channel (whose writer state keeps unacknowledged
     * messages and serves them again after a restore), a ring has no replay across a failure: a restarted sink
     * makes a fresh ring and messages the reader had not released are lost (shm-ring.md). At end of input,
     * marks the stream ended and blocks until the trainer released every message.
     */
    @Override
    public void flush(boolean endOfInput) throws InterruptedException {
        if (endOfInput) {
            ring.finish();
            LOG.info("{}: input ended, {} messages written; waiting for the reader to drain {} messages", ring.path(), ring.written(),
                    ring.qsize());
            ring.awaitDrained(-1);
            LOG.info("{}: drained", ring.path());
        }
    }

    /** Deletes the ring file; a ring whose input did not end (cancel, failure) is marked aborted first. */
    @Override
    public void close() throws IOException {
        ring.close();
    }
}
