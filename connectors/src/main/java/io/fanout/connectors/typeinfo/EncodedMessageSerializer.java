package io.fanout.connectors.typeinfo;

import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink's serializer of {@link EncodedMessage}, owned or borrowed: it writes a borrowed message's bytes from the
 * producer's buffer and copies them where Flink copies a record (between chained operators without object reuse),
 * so what it reads back or copies is always an owned message. Layout: epoch, batch id, batch count, length (ints),
 * then the blob.
 */
public final class EncodedMessageSerializer extends TypeSerializerSingleton<EncodedMessage> {
    private static final long serialVersionUID = 1L;
    public static final EncodedMessageSerializer INSTANCE = new EncodedMessageSerializer();

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public EncodedMessage createInstance() {
        return new EncodedMessage();
    }

    @Override
    public EncodedMessage copy(EncodedMessage from) {
        byte[] bytes = from.bytes();
        return new EncodedMessage(from.epoch, from.batchId, from.numBatches,
                bytes == null ? null : Arrays.copyOf(bytes, from.length()));
    }

    @Override
    public EncodedMessage copy(EncodedMessage from, EncodedMessage reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(EncodedMessage record, DataOutputView target) throws IOException {
        target.writeInt(record.epoch);
        target.writeInt(record.batchId);
        target.writeInt(record.numBatches);
        byte[] bytes = record.bytes();
        if (bytes == null) {
            target.writeInt(-1);
            return;
        }
        target.writeInt(record.length());
        target.write(bytes, 0, record.length());
    }

    @Override
    public EncodedMessage deserialize(DataInputView source) throws IOException {
        int epoch = source.readInt();
        int batchId = source.readInt();
        int numBatches = source.readInt();
        int length = source.readInt();
        byte[] payload = null;
        if (length >= 0) {
            payload = new byte[length];
            source.readFully(payload);
        }
        return new EncodedMessage(epoch, batchId, numBatches, payload);
    }

    @Override
    public EncodedMessage deserialize(EncodedMessage reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        target.write(source, 12);
        int length = source.readInt();
        target.writeInt(length);
        if (length > 0) {
            target.write(source, length);
        }
    }

    @Override
    public TypeSerializerSnapshot<EncodedMessage> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Restores this serializer from a checkpoint or savepoint (no parameters). */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<EncodedMessage> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
