package io.fanout.connectors.channel.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameCodecTest {

    private static FrameReader reader(byte[] bytes, int max) {
        return new FrameReader(new ByteArrayInputStream(bytes), max);
    }

    @Test
    void everyFrameTypeRoundTripsThroughOneStream() throws IOException {
        List<Frame> frames = List.of(
                new Frame.Hello(2, "sécret", 0x1234_5678_9abc_def0L),
                new Frame.Hello(2, ""),
                new Frame.Hello(3, "tok", 5L, 1, 2),
                new Frame.Welcome(2, 3, 4, -5L, true),
                new Frame.Welcome(2, 0, 1, 7L, false),
                new Frame.Fetch(ChannelProtocol.MAX_CREDITS, 99),
                new Frame.Message(1, 2, 17, 40, new byte[] {1, 2, 3, 4, 5}),
                new Frame.Message(Long.MAX_VALUE, -1, Integer.MAX_VALUE, 0, new byte[0]),
                new Frame.EndOfEpoch(7),
                new Frame.EndOfStream(),
                new Frame.Heartbeat(),
                new Frame.Error("bad version 9"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FrameWriter w = new FrameWriter(out);
        for (Frame f : frames) {
            w.write(f);
        }
        FrameReader r = reader(out.toByteArray(), ChannelProtocol.DEFAULT_MAX_FRAME_BYTES);
        for (Frame f : frames) {
            assertThat(r.read()).isEqualTo(f);
        }
        assertThat(r.read()).as("clean end of stream").isNull();
    }

    @Test
    void wireLayoutMatchesTheSpec() throws ProtocolException {
        // length 15 (type + u16 version + u16 token length + token + u64 session), type 1; little-endian.
        assertThat(HexFormat.of().formatHex(FrameWriter.encode(new Frame.Hello(2, "ab", 1))))
                .isEqualTo("0f000000" + "01" + "0200" + "0200" + "6162" + "0100000000000000");
        // A data-parallel trainer's HELLO: then i32 rank, i32 world size.
        assertThat(HexFormat.of().formatHex(FrameWriter.encode(new Frame.Hello(3, "ab", 1, 1, 2))))
                .isEqualTo("17000000" + "01" + "0300" + "0200" + "6162" + "0100000000000000" + "01000000" + "02000000");
        assertThat(HexFormat.of().formatHex(FrameWriter.encode(new Frame.Welcome(2, 2, 3, 9, true))))
                .isEqualTo("14000000" + "02" + "0200" + "02000000" + "03000000" + "0900000000000000" + "01");
        assertThat(HexFormat.of().formatHex(FrameWriter.encode(new Frame.Fetch(258, 3))))
                .isEqualTo("11000000" + "03" + "02010000" + "0300000000000000" + "ffffff7f");
        assertThat(HexFormat.of().formatHex(FrameWriter.encode(new Frame.Fetch(1, 0, 2))))
                .isEqualTo("11000000" + "03" + "01000000" + "0000000000000000" + "02000000");
        assertThat(HexFormat.of().formatHex(FrameWriter.encode(new Frame.EndOfEpoch(4)))).isEqualTo("05000000" + "05" + "04000000");
        assertThat(HexFormat.of().formatHex(FrameWriter.encode(new Frame.EndOfStream()))).isEqualTo("01000000" + "06");
        assertThat(HexFormat.of().formatHex(FrameWriter.encode(new Frame.Heartbeat()))).isEqualTo("01000000" + "08");
        assertThat(HexFormat.of().formatHex(FrameWriter.encode(new Frame.Message(5, 1, 2, 3, new byte[] {(byte) 0xab}))))
                .isEqualTo("16000000" + "04" + "0500000000000000" + "01000000" + "02000000" + "03000000" + "ab");
        assertThat(FrameWriter.wireSize(new Frame.Message(0, 0, 0, 0, new byte[100]))).isEqualTo(125);
        // A version 2 FETCH has no epoch limit: any epoch.
        assertThat(FrameReader.decodeBody(FrameType.FETCH, HexFormat.of().parseHex("02010000" + "0300000000000000")))
                .isEqualTo(new Frame.Fetch(258, 3, ChannelProtocol.ANY_EPOCH));
    }

    @Test
    void writeMessageEqualsTheGenericEncoding() throws IOException {
        byte[] payload = new byte[1000];
        Arrays.fill(payload, (byte) 7);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new FrameWriter(out).writeMessage(3, 4, 5, 6, payload);
        assertThat(out.toByteArray()).isEqualTo(FrameWriter.encode(new Frame.Message(3, 4, 5, 6, payload)));
    }

    @Test
    void bufferedMessagesLeaveTogetherAtFlush() throws IOException {
        byte[] payload = new byte[1000];
        Arrays.fill(payload, (byte) 9);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        FrameWriter writer = new FrameWriter(new java.io.BufferedOutputStream(wire, 1 << 16));
        writer.bufferMessage(1, 0, 10, 3, payload);
        writer.bufferMessage(2, 0, 11, 3, payload);
        assertThat(wire.size()).as("nothing sent before flush").isZero();
        writer.flush();
        FrameReader reader = reader(wire.toByteArray(), ChannelProtocol.DEFAULT_MAX_FRAME_BYTES);
        assertThat(reader.read()).isEqualTo(new Frame.Message(1, 0, 10, 3, payload));
        assertThat(reader.read()).isEqualTo(new Frame.Message(2, 0, 11, 3, payload));
        assertThat(reader.read()).isNull();
    }

    @Test
    void oversizedFrameIsRejectedBeforeAllocating() {
        byte[] bytes = HexFormat.of().parseHex("ffffff7f04");
        assertThatThrownBy(() -> reader(bytes, 1024).read()).isInstanceOf(ProtocolException.class)
                .hasMessage("frame of 2147483647 bytes exceeds the limit of 1024 bytes");
        // An HTTP request is garbage: "GET " read as a length is ~542 MB.
        assertThatThrownBy(() -> reader("GET / HTTP/1.1\r\n\r\n".getBytes(), ChannelProtocol.DEFAULT_MAX_FRAME_BYTES).read())
                .isInstanceOf(ProtocolException.class).hasMessageContaining("exceeds the limit of 268435456 bytes");
        byte[] exactlyAtLimit = FrameWriter.encode(new Frame.Message(0, 0, 0, 0, new byte[1024 - 21]));
        assertThatThrownBy(() -> reader(exactlyAtLimit, 1023).read()).isInstanceOf(ProtocolException.class);
    }

    @Test
    void frameAtTheLimitIsAccepted() throws IOException {
        byte[] atLimit = FrameWriter.encode(new Frame.Message(0, 0, 0, 0, new byte[1024 - 21]));
        assertThat(((Frame.Message) reader(atLimit, 1024).read()).payload()).hasSize(1003);
    }

    @Test
    void truncatedFramesAreEofErrors() {
        byte[] whole = FrameWriter.encode(new Frame.Message(1, 1, 2, 3, new byte[10]));
        assertThatThrownBy(() -> reader(Arrays.copyOf(whole, 2), 1 << 20).read()).isInstanceOf(EOFException.class)
                .hasMessageContaining("frame length");
        assertThatThrownBy(() -> reader(Arrays.copyOf(whole, 4), 1 << 20).read()).isInstanceOf(EOFException.class)
                .hasMessageContaining("before the type");
        assertThatThrownBy(() -> reader(Arrays.copyOf(whole, whole.length - 1), 1 << 20).read()).isInstanceOf(EOFException.class)
                .hasMessageContaining("MESSAGE frame body: got 29 of 30 bytes");
    }

    @Test
    void garbageIsAProtocolError() {
        assertThatThrownBy(() -> reader(HexFormat.of().parseHex("00000000"), 1024).read()).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("frame length 0");
        assertThatThrownBy(() -> reader(HexFormat.of().parseHex("0100000063"), 1024).read()).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("unknown frame type 99");
        assertThatThrownBy(() -> reader(HexFormat.of().parseHex("030000000301ff"), 1024).read()).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("FETCH body of 2 bytes, expected 12 (version 2) or 16");
        assertThatThrownBy(() -> reader(HexFormat.of().parseHex("07000000" + "01" + "0100" + "0500" + "6162"), 1024).read())
                .isInstanceOf(ProtocolException.class).hasMessageContaining("HELLO token length 5 but 2 bytes follow");
        assertThatThrownBy(() -> reader(HexFormat.of().parseHex("0500000004" + "01020304"), 1024).read())
                .isInstanceOf(ProtocolException.class).hasMessageContaining("MESSAGE body of 4 bytes, expected at least 20");
    }

    @Test
    void versionOneHelloIsStillReadSoTheServerCanRefuseIt() throws IOException {
        // v1 layout: u16 version, u16 token length, token (no session id).
        Frame f = reader(HexFormat.of().parseHex("07000000" + "01" + "0100" + "0200" + "6162"), 1024).read();
        assertThat(f).isEqualTo(new Frame.Hello(1, "ab", ChannelProtocol.NEW_SESSION));
    }

    @Test
    void invalidFrameValuesAreRefusedWhenBuilt() {
        assertThatThrownBy(() -> new Frame.Fetch(-1)).hasMessageContaining("not a u32");
        assertThatThrownBy(() -> new Frame.Hello(70000, "")).hasMessageContaining("not a u16");
    }
}
