package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
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
            mixedSizes(3000, 1), // several of VarintWriter's 4 KiB blocks
        };
    }

    /** {@code n} values whose varints take 1 to 10 bytes, negative ones included. */
    static long[] mixedSizes(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long[] values = new long[n];
        for (int i = 0; i < n; i++) {
            values[i] = random.nextLong() >> random.nextInt(64);
        }
        return values;
    }

    /** The layout written by hand: the length, then each value zig-zagged, as unsigned LEB128 varints. */
    static byte[] leb128(long... varints) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (long v : varints) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) (v & 0x7F) | 0x80);
                v >>>= 7;
            }
            out.write((int) v);
        }
        return out.toByteArray();
    }

    @Test
    void theBytesAreTheLayoutWrittenByHandWhateverTheTargetAndLength() throws IOException {
        for (long[] value : new long[][] {{}, {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE}, mixedSizes(5000, 7)}) {
            long[] varints = new long[value.length + 1];
            varints[0] = value.length;
            for (int i = 0; i < value.length; i++) {
                varints[i + 1] = (value[i] << 1) ^ (value[i] >> 63);
            }
            byte[] expected = leb128(varints);
            // A stream target (as a heap-backend checkpoint writes) and Flink's in-memory one (RocksDB values).
            ByteArrayOutputStream stream = new ByteArrayOutputStream();
            CompactLongArraySerializer.INSTANCE.serialize(value,
                    new DataOutputViewStreamWrapper(stream));
            assertThat(stream.toByteArray()).isEqualTo(expected);
            DataOutputSerializer memory = new DataOutputSerializer(16);
            CompactLongArraySerializer.INSTANCE.serialize(value, memory);
            assertThat(memory.getCopyOfBuffer()).isEqualTo(expected);
            DataOutputSerializer copied = new DataOutputSerializer(16);
            CompactLongArraySerializer.INSTANCE.copy(new DataInputDeserializer(expected), copied);
            assertThat(copied.getCopyOfBuffer()).isEqualTo(expected);
        }
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
        byte[] cut = Arrays.copyOf(out.getCopyOfBuffer(), out.length() - 2);
        assertThatThrownBy(() -> CompactLongArraySerializer.INSTANCE.deserialize(new DataInputDeserializer(cut)))
                .isInstanceOf(IOException.class);
    }
}
