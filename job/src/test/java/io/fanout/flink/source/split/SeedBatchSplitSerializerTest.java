package io.fanout.flink.source.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class SeedBatchSplitSerializerTest {
    private final SeedBatchSplitSerializer serializer = SeedBatchSplitSerializer.INSTANCE;

    @Test
    void roundTripKeepsRangeAndPosition() throws IOException {
        SeedBatchSplit[] splits = {
            SeedBatchSplit.of(0, 0, 6),
            new SeedBatchSplit(3, 85, 170, 101),
            new SeedBatchSplit(Integer.MAX_VALUE - 1, Integer.MAX_VALUE - 10, Integer.MAX_VALUE, Integer.MAX_VALUE),
        };
        for (SeedBatchSplit split : splits) {
            SeedBatchSplit back = serializer.deserialize(serializer.getVersion(), serializer.serialize(split));
            assertThat(back).isEqualTo(split);
            assertThat(back.splitId()).isEqualTo(split.splitId());
            assertThat(back.nextBatch()).isEqualTo(split.nextBatch());
        }
    }

    @Test
    void versionOneLayoutIsFourBigEndianInts() {
        assertThat(serializer.getVersion()).isEqualTo(1);
        assertThat(serializer.serialize(new SeedBatchSplit(1, 2, 0x0300, 0x0201)))
                .containsExactly(0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0, 2, 1);
    }

    @Test
    void unknownVersionOrCorruptBytesAreRejected() {
        byte[] bytes = serializer.serialize(SeedBatchSplit.of(0, 0, 6));
        assertThatThrownBy(() -> serializer.deserialize(2, bytes)).isInstanceOf(IOException.class).hasMessageContaining("version 2");
        assertThatThrownBy(() -> serializer.deserialize(1, new byte[15])).isInstanceOf(IOException.class).hasMessageContaining("15 bytes");
        // next batch 7 lies outside [0, 6)+end: a corrupt position must not restore silently.
        byte[] badNext = serializer.serialize(new SeedBatchSplit(0, 0, 6, 6));
        badNext[15] = 7;
        assertThatThrownBy(() -> serializer.deserialize(1, badNext)).isInstanceOf(IOException.class).hasMessageContaining("next 7");
    }

    @Test
    void splitIdNamesEpochAndFirstBatchAndSurvivesProgress() {
        SeedBatchSplit split = SeedBatchSplit.of(2, 40, 50);
        assertThat(split.splitId()).isEqualTo("epoch-2-batch-40");
        assertThat(split.withNextBatch(45).splitId()).isEqualTo(split.splitId());
        assertThat(split.withNextBatch(50).isFinished()).isTrue();
        assertThatThrownBy(() -> SeedBatchSplit.of(0, 5, 5)).isInstanceOf(IllegalArgumentException.class);
    }
}
