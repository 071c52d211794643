package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.sampling.partitioned.NeighborBuckets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputViewStreamWrapper;
import org.junit.jupiter.api.Test;

/** Flink's serializer checks on {@link GroupIndexEntrySerializer}, and the bytes per group it saves. */
class GroupIndexEntrySerializerTest extends LongArraySerializerTestBase {

    @Override
    protected TypeSerializer<long[]> createSerializer() {
        return GroupIndexEntrySerializer.INSTANCE;
    }

    @Override
    protected long[][] getTestData() {
        return new long[][] {
            {}, {0}, {-1}, NeighborBuckets.GroupIndex.inline(7L << 40 | 6_500_000, new long[] {3, -9, 1 << 20}),
            NeighborBuckets.GroupIndex.reference(3L << 40 | 123, 900), {Long.MIN_VALUE, Long.MAX_VALUE, 0, -64},
            {Long.MAX_VALUE}, {(1L << 40) - 1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5},
            NeighborBuckets.GroupIndex.inline(2L << 40 | 99, CompactLongArraySerializerTest.mixedSizes(3000, 3)),
        };
    }

    @Test
    void theBytesAreTheLayoutWrittenByHand() throws IOException {
        long[] neighbours = CompactLongArraySerializerTest.mixedSizes(2000, 5);
        long[] entry = NeighborBuckets.GroupIndex.inline(9L << 40 | 4_000_000, neighbours);
        long[] varints = new long[3 + neighbours.length];
        varints[0] = (long) entry.length << 1; // an inline entry: the low bit clear
        varints[1] = 9;
        varints[2] = 4_000_000;
        for (int i = 0; i < neighbours.length; i++) {
            varints[3 + i] = (neighbours[i] << 1) ^ (neighbours[i] >> 63);
        }
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        GroupIndexEntrySerializer.INSTANCE.serialize(entry,
                new DataOutputViewStreamWrapper(stream));
        assertThat(stream.toByteArray()).isEqualTo(CompactLongArraySerializerTest.leb128(varints));
        long[] reference = NeighborBuckets.GroupIndex.reference(9L << 40 | 4_000_000, 700);
        stream.reset();
        GroupIndexEntrySerializer.INSTANCE.serialize(reference,
                new DataOutputViewStreamWrapper(stream));
        assertThat(stream.toByteArray())
                .isEqualTo(CompactLongArraySerializerTest.leb128((long) reference.length << 1 | 1, 9, 4_000_000, 700 << 1));
    }

    @Test
    void anOrderKeyTakesFileAndOffsetBytesNotSeven() throws IOException {
        // Part 7 of a few MB, byte offset 6.5 M (23 bits): one varint of the whole key takes 7 bytes, file and
        // offset 1 + 4.
        long[] inline = NeighborBuckets.GroupIndex.inline(7L << 40 | 6_500_000, new long[] {200_000});
        assertThat(bytes(CompactLongArraySerializer.INSTANCE, inline)).isEqualTo(1 + 7 + 3);
        assertThat(bytes(GroupIndexEntrySerializer.INSTANCE, inline)).isEqualTo(1 + 1 + 4 + 3);
        long[] reference = NeighborBuckets.GroupIndex.reference(7L << 40 | 6_500_000, 1000);
        assertThat(bytes(GroupIndexEntrySerializer.INSTANCE, reference)).isEqualTo(1 + 1 + 4 + 2);
    }
}
