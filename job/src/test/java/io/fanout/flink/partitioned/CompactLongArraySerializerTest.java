package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** Flink's serializer checks on {@link CompactLongArraySerializer}, and the sizes it exists for. */
class CompactLongArraySerializerTest extends LongArraySerializerTestBase {

    @Override
    protected TypeSerializer<long[]> createSerializer() {
        return CompactLongArraySerializer.INSTANCE;
    }

    @Override
    protected long[][] getTestData() {
        return new long[][] {
            {}, {0}, {-1, 1}, {Long.MIN_VALUE, Long.MAX_VALUE, 0, -64, 63, 64, -65},
            {1L << 40 | 12345, 7, 1 << 20, (1 << 20) - 1}, {5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5},
        };
    }

    @Test
    void idsBelowTwoToTheTwentyTakeAtMostThreeBytesNotEight() throws IOException {
        long[] neighbours = new long[64];
        for (int i = 0; i < neighbours.length; i++) {
            neighbours[i] = (1L << 20) - 1 - i * 9973L;
        }
        // One length byte, then at most 3 bytes a neighbour: under 3/8 of Flink's 4 + 8 x 64 bytes.
        assertThat(bytes(CompactLongArraySerializer.INSTANCE, neighbours)).isLessThanOrEqualTo(1 + 3 * 64);
        assertThat(bytes(CompactLongArraySerializer.INSTANCE, new long[] {Long.MIN_VALUE})).isEqualTo(1 + 10);
    }

    @Test
    void aTruncatedValueFailsInsteadOfReadingGarbage() throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        CompactLongArraySerializer.INSTANCE.serialize(new long[] {1L << 50, 2}, out);
        byte[] cut = java.util.Arrays.copyOf(out.getCopyOfBuffer(), out.length() - 2);
        assertThatThrownBy(() -> CompactLongArraySerializer.INSTANCE.deserialize(new DataInputDeserializer(cut)))
                .isInstanceOf(IOException.class);
    }
}
