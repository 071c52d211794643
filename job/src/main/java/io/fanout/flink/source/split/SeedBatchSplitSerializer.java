package io.fanout.flink.source.split;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Checkpoint format of a {@link SeedBatchSplit}.
 *
 * <p>Version 1: four big-endian int32 {@code epoch, firstBatch, endBatch, nextBatch} (16 bytes).
 */
public final class SeedBatchSplitSerializer implements SimpleVersionedSerializer<SeedBatchSplit> {
    public static final SeedBatchSplitSerializer INSTANCE = new SeedBatchSplitSerializer();

    public static final int VERSION = 1;
    /** Bytes of one split in version 1. */
    public static final int SPLIT_BYTES = 16;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(SeedBatchSplit split) {
        ByteBuffer buf = ByteBuffer.allocate(SPLIT_BYTES);
        write(split, buf);
        return buf.array();
    }

    @Override
    public SeedBatchSplit deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION) {
            throw new IOException("unknown seed batch split format version " + version + " (this build reads " + VERSION + ")");
        }
        if (serialized.length != SPLIT_BYTES) {
            throw new IOException("corrupt seed batch split: " + serialized.length + " bytes, expected " + SPLIT_BYTES);
        }
        return read(ByteBuffer.wrap(serialized));
    }

    /** Writes the version-1 layout of {@code split} at the buffer's position (shared with the enumerator state). */
    public static void write(SeedBatchSplit split, ByteBuffer buf) {
        buf.putInt(split.epoch()).putInt(split.firstBatch()).putInt(split.endBatch()).putInt(split.nextBatch());
    }

    /** Reads a version-1 split at the buffer's position. */
    public static SeedBatchSplit read(ByteBuffer buf) throws IOException {
        int epoch = buf.getInt();
        int first = buf.getInt();
        int end = buf.getInt();
        int next = buf.getInt();
        try {
            return new SeedBatchSplit(epoch, first, end, next);
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt seed batch split: " + e.getMessage(), e);
        }
    }
}
