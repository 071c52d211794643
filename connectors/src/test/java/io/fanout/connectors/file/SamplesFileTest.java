package io.fanout.connectors.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.SafetensorsCodecTest;
import io.fanout.connectors.message.TensorMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SamplesFileTest {
    @TempDir
    Path dir;

    @Test
    void recordsRoundTripInOrder() throws IOException {
        Path f = dir.resolve("part-0.samples");
        List<byte[]> blobs = new ArrayList<>();
        for (int b = 0; b < 5; b++) {
            blobs.add(SafetensorsCodec.encode(new TensorMessage().putInt64(MessageKeys.META_BATCH_ID, b).putInt64("ids", new long[b])));
        }
        try (OutputStream out = Files.newOutputStream(f)) {
            for (byte[] blob : blobs) {
                SamplesFile.writeRecord(out, blob);
            }
        }
        assertThat(Files.size(f)).isEqualTo(blobs.stream().mapToLong(b -> 8 + b.length).sum());
        List<byte[]> back = new ArrayList<>();
        try (SamplesFile.Reader r = SamplesFile.open(f)) {
            r.forEachRemaining(back::add);
        }
        assertThat(back).hasSize(5);
        for (int b = 0; b < 5; b++) {
            assertThat(back.get(b)).isEqualTo(blobs.get(b));
            assertThat(SafetensorsCodec.decode(back.get(b)).get(MessageKeys.META_BATCH_ID).asLongArray()).containsExactly(b);
        }
    }

    @Test
    void goldenRecordLayout() throws IOException {
        byte[] blob = HexFormat.of().parseHex(SafetensorsCodecTest.GOLDEN_HEX);
        Path f = dir.resolve("one.samples");
        try (OutputStream out = Files.newOutputStream(f)) {
            SamplesFile.writeRecord(out, blob);
        }
        byte[] bytes = Files.readAllBytes(f);
        assertThat(HexFormat.of().formatHex(bytes, 0, 8)).isEqualTo("9800000000000000"); // 152 bytes follow
        assertThat(Arrays.copyOfRange(bytes, 8, bytes.length)).isEqualTo(blob);
    }

    @Test
    void truncatedFileNamesTheFileAndOffset() throws IOException {
        Path f = dir.resolve("bad.samples");
        try (OutputStream out = Files.newOutputStream(f)) {
            SamplesFile.writeRecord(out, new byte[16]);
            out.write(new byte[] {(byte) 100, 0, 0, 0, 0, 0, 0, 0, 1, 2});
        }
        try (SamplesFile.Reader r = SamplesFile.open(f)) {
            assertThat(r.next()).hasSize(16);
            assertThatThrownBy(r::hasNext).isInstanceOf(UncheckedIOException.class).hasMessageContaining("bad.samples")
                    .hasMessageContaining("record at byte 24 claims 100 bytes, 2 remain");
        }
    }
}
