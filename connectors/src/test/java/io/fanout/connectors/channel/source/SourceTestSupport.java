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
import java.util.List;

/** Messages and {@code .samples} files as the job writes them (readers are driven with Flink's TestingReaderContext/Output). */
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
}
