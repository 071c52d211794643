package io.fanout.connectors.channel.source;

import io.fanout.connectors.file.SamplesFile;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.UserCodeClassLoader;

/** Messages and {@code .samples} files as the job writes them, and a reader context / output for driving a reader by hand. */
final class SourceTestSupport {
    private SourceTestSupport() {}

    /** A k-hop-like message carrying its keys in #META tensors, as KHopSamplingFunction encodes them. */
    static EncodedMessage sample(int epoch, int batch, int numBatches) {
        TensorMessage m = new TensorMessage()
                .putInt64(MessageKeys.IDS, new int[] {batch, batch + 1, batch + 2})
                .putInt64(MessageKeys.ROWS, new long[] {0, 0})
                .putInt64(MessageKeys.COLS, new long[] {1, 2})
                .putInt64(MessageKeys.BATCH, new int[] {batch})
                .putInt64(MessageKeys.IS_HETERO, 0)
                .putInt64(MessageKeys.META_EPOCH, epoch)
                .putInt64(MessageKeys.META_BATCH_ID, batch)
                .putInt64(MessageKeys.META_NUM_BATCHES, numBatches);
        return new EncodedMessage(epoch, batch, numBatches, SafetensorsCodec.encode(m));
    }

    /** Writes {@code samples} as one {@code .samples} file. */
    static Path writeFile(Path file, List<EncodedMessage> samples) throws IOException {
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file)) {
            for (EncodedMessage s : samples) {
                SamplesFile.writeRecord(out, s.payload);
            }
        }
        return file;
    }

    /** A reader context that counts split requests. */
    static final class Context implements SourceReaderContext {
        int splitRequests;

        @Override
        public SourceReaderMetricGroup metricGroup() {
            return UnregisteredMetricsGroup.createSourceReaderMetricGroup();
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return 0;
        }

        @Override
        public int currentParallelism() {
            return 1;
        }

        @Override
        public void sendSplitRequest() {
            splitRequests++;
        }

        @Override
        public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {
            throw new UnsupportedOperationException("the channel source sends no source events");
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return new UserCodeClassLoader() {
                @Override
                public ClassLoader asClassLoader() {
                    return SourceTestSupport.class.getClassLoader();
                }

                @Override
                public void registerReleaseHookIfAbsent(String name, Runnable hook) {}
            };
        }
    }

    /** Collects what a reader emits. */
    static final class Output implements ReaderOutput<EncodedMessage> {
        final List<EncodedMessage> records = new ArrayList<>();

        @Override
        public void collect(EncodedMessage record) {
            records.add(record);
        }

        @Override
        public void collect(EncodedMessage record, long timestamp) {
            records.add(record);
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}

        @Override
        public SourceOutput<EncodedMessage> createOutputForSplit(String splitId) {
            return this;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }
}
