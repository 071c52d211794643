package io.fanout.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.flink.source.split.SeedBatchSplit;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class SeedBatchEnumeratorStateSerializerTest {
    private final SeedBatchEnumeratorStateSerializer serializer = SeedBatchEnumeratorStateSerializer.INSTANCE;

    @Test
    void roundTripOfInitialAndPendingStates() throws IOException {
        List<SeedBatchEnumeratorState> states = List.of(
                SeedBatchEnumeratorState.initial(),
                new SeedBatchEnumeratorState(2, 170, List.of(new SeedBatchSplit(0, 85, 170, 90), SeedBatchSplit.of(1, 0, 85))),
                new SeedBatchEnumeratorState(5, 0, List.of()));
        for (SeedBatchEnumeratorState state : states) {
            assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(state))).isEqualTo(state);
        }
    }

    @Test
    void versionOneLayoutIsCursorCountAndSplits() {
        byte[] bytes = serializer.serialize(new SeedBatchEnumeratorState(1, 2, List.of(new SeedBatchSplit(0, 3, 5, 4))));
        assertThat(bytes).containsExactly(0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 5, 0, 0, 0, 4);
    }

    @Test
    void unknownVersionOrTruncatedBytesAreRejected() {
        byte[] bytes = serializer.serialize(new SeedBatchEnumeratorState(1, 2, List.of(SeedBatchSplit.of(0, 3, 5))));
        assertThatThrownBy(() -> serializer.deserialize(9, bytes)).isInstanceOf(IOException.class).hasMessageContaining("version 9");
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 1);
        assertThatThrownBy(() -> serializer.deserialize(1, truncated)).isInstanceOf(IOException.class).hasMessageContaining("corrupt");
        assertThatThrownBy(() -> serializer.deserialize(1, new byte[5])).isInstanceOf(IOException.class).hasMessageContaining("corrupt");
    }
}
