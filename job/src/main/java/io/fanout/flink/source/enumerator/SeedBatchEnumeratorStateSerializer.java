package io.fanout.flink.source.enumerator;

import io.fanout.flink.source.split.SeedBatchSplit;
import io.fanout.flink.source.split.SeedBatchSplitSerializer;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Checkpoint format of a {@link SeedBatchEnumeratorState}.
 *
 * <p>Version 1, big-endian: int32 {@code nextEpoch}, int32 {@code nextBatch}, int32 {@code count},
 * then {@code count} pending splits in the 16-byte layout of {@link SeedBatchSplitSerializer} v1.
 */
public final class SeedBatchEnumeratorStateSerializer implements SimpleVersionedSerializer<SeedBatchEnumeratorState> {
    public static final SeedBatchEnumeratorStateSerializer INSTANCE = new SeedBatchEnumeratorStateSerializer();

    public static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(SeedBatchEnumeratorState state) {
        List<SeedBatchSplit> pending = state.pendingSplits();
        ByteBuffer buf = ByteBuffer.allocate(12 + pending.size() * SeedBatchSplitSerializer.SPLIT_BYTES);
        buf.putInt(state.nextEpoch()).putInt(state.nextBatch()).putInt(pending.size());
        for (SeedBatchSplit split : pending) {
            SeedBatchSplitSerializer.write(split, buf);
        }
        return buf.array();
    }

    @Override
    public SeedBatchEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION) {
            throw new IOException("unknown seed batch enumerator state version " + version + " (this build reads " + VERSION + ")");
        }
        try {
            ByteBuffer buf = ByteBuffer.wrap(serialized);
            int nextEpoch = buf.getInt();
            int nextBatch = buf.getInt();
            int count = buf.getInt();
            if (count < 0 || buf.remaining() != (long) count * SeedBatchSplitSerializer.SPLIT_BYTES) {
                throw new IOException("corrupt seed batch enumerator state: " + count + " splits in "
                        + serialized.length + " bytes");
            }
            List<SeedBatchSplit> pending = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                pending.add(SeedBatchSplitSerializer.read(buf));
            }
            return new SeedBatchEnumeratorState(nextEpoch, nextBatch, pending);
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new IOException("corrupt seed batch enumerator state (" + serialized.length + " bytes)", e);
        }
    }
}
