package io.fanout.connectors.channel.shm;

import io.fanout.connectors.channel.options.ShmSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer of one {@link ShmChannelSink} subtask: a thin Flink adapter over one {@link ShmRing}, or with
 * {@code trainers} N > 1 over N rings, one per data-parallel rank (batch b goes to ring b mod N), so each
 * rank's reader reads only its share.
 * {@code write} blocks while the ring is full (back-pressure); {@code flush(true)} marks the end of
 * the stream and blocks until the trainer read everything; {@code close} deletes the ring file.
 */
public final class ShmChannelWriter implements SinkWriter<EncodedMessage> {
    private static final Logger LOG = LoggerFactory.getLogger(ShmChannelWriter.class);

    private final ShmSinkOptions options;
    private final ShmRing ring;
    /** One ring per rank (index = rank); just {@link #ring} without ranks. */
    private final ShmRing[] rings;

    /** Creates the ring(s) of subtask {@code index} of {@code parallelism}. Usable without Flink (tests, tools). */
    public ShmChannelWriter(ShmSinkOptions options, int index, int parallelism) throws IOException {
        this.options = options;
        int trainers = options.trainers();
        this.rings = new ShmRing[trainers];
        try {
            for (int r = 0; r < trainers; r++) {
                rings[r] = trainers == 1 ? ShmRing.create(options.ringPath(index), options.ringBytes(), index, parallelism)
                        : ShmRing.create(options.ringPath(index, r), options.ringBytes(), index, parallelism, r, trainers);
                LOG.info("shared-memory channel ring {} of {} bytes created", rings[r].path(), rings[r].capacity());
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        this.ring = rings[0];
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
        if (rings.length == 1) {
            registerMetrics(group, options.name(), ring);
            return;
        }
        for (ShmRing r : rings) {
            registerMetrics(group, options.name() + "_rank" + r.rank(), r);
        }
    }

    /** The ring this writer fills (rank 0's with ranks). */
    public ShmRing ring() {
        return ring;
    }

    /** The ring of {@code rank} (0 without ranks). */
    public ShmRing ring(int rank) {
        return rings[rank];
    }

    /** Copies {@code sample} into the ring, blocking while it is full; {@code context} may be null. */
    @Override
    public void write(EncodedMessage sample, Context context) throws InterruptedException {
        if (sample == null || sample.bytes() == null) {
            throw new IllegalArgumentException("shared-memory channel sink got a sample without payload: " + sample);
        }
        rings[rings.length == 1 ? 0 : Math.floorMod(sample.batchId, rings.length)].write(sample);
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
            for (ShmRing r : rings) {
                r.finish();
                LOG.info("{}: input ended, {} messages written; waiting for the reader to drain {} messages", r.path(), r.written(),
                        r.qsize());
            }
            for (ShmRing r : rings) {
                r.awaitDrained(-1);
                LOG.info("{}: drained", r.path());
            }
        }
    }

    /** Deletes the ring files; a ring whose input did not end (cancel, failure) is marked aborted first. */
    @Override
    public void close() throws IOException {
        IOException first = null;
        for (ShmRing r : rings) {
            if (r == null) {
                continue;
            }
            try {
                r.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
