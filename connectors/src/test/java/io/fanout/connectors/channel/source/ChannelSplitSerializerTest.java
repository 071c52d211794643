package io.fanout.connectors.channel.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The versioned checkpoint formats of channel source splits and enumerator state, byte for byte. */
class ChannelSplitSerializerTest {
    private static final ChannelSplitSerializer SPLITS = ChannelSplitSerializer.INSTANCE;

    @Test
    void fileSplitHasTheDocumentedLayout() throws IOException {
        byte[] bytes = SPLITS.serialize(ChannelSplit.file("/d/a.samples", 1032, 7));
        assertThat(HexFormat.of().formatHex(bytes)).isEqualTo("01" + "0000000c" + HexFormat.of().formatHex("/d/a.samples".getBytes())
                + "0000000000000408" + "0000000000000007");
        assertThat(SPLITS.deserialize(1, bytes)).isEqualTo(ChannelSplit.file("/d/a.samples", 1032, 7));
    }

    @Test
    void endpointSplitKeepsItsKeyRuns() throws IOException {
        BatchKeySet keys = new BatchKeySet();
        for (int b = 0; b < 100; b++) {
            keys.add(0, b);
        }
        keys.add(1, 3);
        keys.add(1, 5);
        keys.add(1, 4); // joins [3,4) and [5,6)
        assertThat(keys.runs()).hasSize(2);
        assertThat(keys.size()).isEqualTo(103);
        assertThat(keys.add(0, 50)).isFalse();
        assertThat(keys.contains(1, 4)).isTrue();
        assertThat(keys.contains(1, 6)).isFalse();
        ChannelSplit split = ChannelSplit.endpoint(3, "h\u00f6st", 4711, keys, 0x1234_5678_9abcL);
        byte[] bytes = SPLITS.serialize(split);
        assertThat(bytes).hasSize(1 + 4 + 4 + 5 + 4 + 4 + 2 * 16 + 8);
        ChannelSplit back = SPLITS.deserialize(2, bytes);
        assertThat(back).isEqualTo(split);
        assertThat(back.session()).isEqualTo(0x1234_5678_9abcL); // the channel session to resume after a restore
        // a version-1 split (no session) still reads, with no session to resume
        ChannelSplit v1 = SPLITS.deserialize(1, java.util.Arrays.copyOf(bytes, bytes.length - 8));
        assertThat(v1).isEqualTo(split.withProgress(keys, 0));
        assertThat(back.received().size()).isEqualTo(103);
        assertThat(back.splitId()).isEqualTo("endpoint-3");
    }

    @Test
    void enumeratorStateRoundTrips() throws IOException {
        ChannelEnumeratorState state = new ChannelEnumeratorState(true,
                List.of(ChannelSplit.file("x.samples", 0, 0), ChannelSplit.endpoint(0, "127.0.0.1", 9000, null)));
        ChannelEnumeratorStateSerializer ser = ChannelEnumeratorStateSerializer.INSTANCE;
        assertThat(ser.deserialize(2, ser.serialize(state))).isEqualTo(state);
        assertThat(ser.deserialize(2, ser.serialize(ChannelEnumeratorState.initial()))).isEqualTo(ChannelEnumeratorState.initial());
    }

    @Test
    void unknownVersionsAndCorruptBytesAreClearErrors() throws IOException {
        byte[] ok = SPLITS.serialize(ChannelSplit.file("a", 0, 0));
        assertThatThrownBy(() -> SPLITS.deserialize(3, ok)).isInstanceOf(IOException.class).hasMessageContaining("version 3");
        assertThatThrownBy(() -> SPLITS.deserialize(1, new byte[] {9})).isInstanceOf(IOException.class).hasMessageContaining("unknown kind 9");
        byte[] trailing = java.util.Arrays.copyOf(ok, ok.length + 1);
        assertThatThrownBy(() -> SPLITS.deserialize(1, trailing)).hasMessageContaining("trailing");
        assertThatThrownBy(() -> ChannelEnumeratorStateSerializer.INSTANCE.deserialize(7, new byte[0])).hasMessageContaining("version 7");
    }
}
