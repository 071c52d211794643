package io.fanout.connectors.channel.source;

import io.fanout.connectors.file.SamplesFile;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.Tensor;
import io.fanout.connectors.message.TensorMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;

/**
 * Reads {@code .samples} file splits one after another, from the checkpointed byte offset, a batch of
 * records per fetch, each with the offset after it (so the emitted position is always a record boundary).
 */
final class FileSplitReader implements SplitReader<ChannelRecord, ChannelSplit> {
    /** Records per fetch: enough to amortise the hand-over, few enough to keep the queue's memory small. */
    private static final int RECORDS_PER_FETCH = 64;

    private final ArrayDeque<ChannelSplit> queued = new ArrayDeque<>();
    private ChannelSplit current;
    private SamplesFile.Reader reader;

    @Override
    public RecordsWithSplitIds<ChannelRecord> fetch() throws IOException {
        RecordsBySplits.Builder<ChannelRecord> out = new RecordsBySplits.Builder<>();
        if (current == null) {
            current = queued.poll();
            if (current == null) {
                return out.build();
            }
            reader = SamplesFile.open(Path.of(current.path()), current.byteOffset());
        }
        try {
            for (int i = 0; i < RECORDS_PER_FETCH; i++) {
                long at = reader.offset();
                if (!reader.hasNext()) {
                    out.addFinishedSplit(current.splitId());
                    reader.close();
                    reader = null;
                    current = null;
                    break;
                }
                byte[] blob = reader.next();
                out.add(current.splitId(), new ChannelRecord(decodeKeys(blob, current.path(), at), -1, reader.offset()));
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return out.build();
    }

    /** Reads the keys a blob carries ({@code #META.epoch/batch_id/num_batches}); errors name file and byte. */
    static EncodedMessage decodeKeys(byte[] blob, String path, long offset) throws IOException {
        try {
            TensorMessage m = SafetensorsCodec.decode(blob);
            return new EncodedMessage(meta(m, MessageKeys.META_EPOCH), meta(m, MessageKeys.META_BATCH_ID), meta(m, MessageKeys.META_NUM_BATCHES), blob);
        } catch (IllegalArgumentException e) {
            throw new IOException(path + ": record at byte " + offset + ": " + e.getMessage(), e);
        }
    }

    private static int meta(TensorMessage m, String key) {
        Tensor t = m.get(key);
        if (t == null || t.numElements() != 1) {
            throw new IllegalArgumentException("message has no one-element " + key + " tensor");
        }
        return Math.toIntExact(t.asLongArray()[0]);
    }

    @Override
    public void handleSplitsChanges(SplitsChange<ChannelSplit> change) {
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException("channel source: " + change.getClass().getSimpleName() + " of file splits");
        }
        queued.addAll(change.splits());
    }

    @Override
    public void wakeUp() {
        // fetch never blocks: nothing to wake
    }

    @Override
    public void close() throws IOException {
        if (reader != null) {
            reader.close();
        }
    }
}
