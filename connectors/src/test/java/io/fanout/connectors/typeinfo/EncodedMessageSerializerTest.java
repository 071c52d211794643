package io.fanout.connectors.typeinfo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageBuffer;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.Tensor;
import io.fanout.connectors.message.TensorMessage;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Borrowed messages through their serializer: what Flink copies, serializes or writes holds the exact blob. */
class EncodedMessageSerializerTest {
    private static TensorMessage message(int nodes) {
        long[] ids = new long[nodes];
        Arrays.setAll(ids, i -> 3L * i + 1);
        return new TensorMessage().put("ids", Tensor.ofInt64(ids));
    }

    @Test
    void encodingIntoAReusedBufferGivesTheSameBytesAsAFreshArray() {
        MessageBuffer buffer = new MessageBuffer();
        for (int nodes : new int[] {1000, 10, 1200, 5000}) {
            byte[] fresh = SafetensorsCodec.encode(message(nodes));
            int length = SafetensorsCodec.encode(message(nodes), buffer);
            assertThat(length).isEqualTo(fresh.length);
            assertThat(Arrays.copyOf(buffer.bytes(), length)).isEqualTo(fresh);
            assertThat(buffer.capacity()).isGreaterThanOrEqualTo(length);
        }
    }

    @Test
    void aBorrowedMessageIsCopiedSerializedAndWrittenAsItsOwnedForm() throws Exception {
        MessageBuffer buffer = new MessageBuffer();
        SafetensorsCodec.encode(message(5000), buffer); // the buffer is larger than the next message
        int length = SafetensorsCodec.encode(message(100), buffer);
        byte[] blob = SafetensorsCodec.encode(message(100));
        EncodedMessage owned = new EncodedMessage(2, 7, 9, blob);
        EncodedMessage borrowed = EncodedMessage.borrowing(2, 7, 9, buffer.bytes(), length);
        assertThat(borrowed.isBorrowed()).isTrue();
        assertThat(borrowed.payload).isNull();
        assertThat(borrowed.length()).isEqualTo(blob.length).isLessThan(buffer.capacity());
        assertThat(borrowed).isEqualTo(owned).hasSameHashCodeAs(owned);

        EncodedMessageSerializer serializer = EncodedMessageSerializer.INSTANCE;
        EncodedMessage copy = serializer.copy(borrowed);
        assertThat(copy.isBorrowed()).isFalse();
        assertThat(copy.payload).isEqualTo(blob).isNotSameAs(buffer.bytes());

        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(borrowed, out);
        EncodedMessage back = serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(back.payload).isEqualTo(blob);
        assertThat(new int[] {back.epoch, back.batchId, back.numBatches}).containsExactly(2, 7, 9);
        DataOutputSerializer copied = new DataOutputSerializer(out.length()); // write(DataInputView, n) does not grow it
        serializer.copy(new DataInputDeserializer(out.getCopyOfBuffer()), copied);
        assertThat(copied.getCopyOfBuffer()).isEqualTo(out.getCopyOfBuffer());

        ByteArrayOutputStream written = new ByteArrayOutputStream();
        borrowed.writeTo(written);
        assertThat(written.toByteArray()).isEqualTo(blob);

        // A sink that keeps the message takes its own copy; the producer may then reuse its buffer.
        byte[] kept = borrowed.payload();
        assertThat(borrowed.isBorrowed()).isFalse();
        Arrays.fill(buffer.bytes(), (byte) 0);
        assertThat(kept).isEqualTo(blob);
        assertThat(borrowed.payload()).isSameAs(kept);
    }

    @Test
    void aMessageWithoutPayloadSurvivesTheRoundTrip() throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(16);
        EncodedMessageSerializer.INSTANCE.serialize(new EncodedMessage(1, 2, 3, null), out);
        EncodedMessage back = EncodedMessageSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(back.payload).isNull();
        assertThat(back.length()).isZero();
    }
}
