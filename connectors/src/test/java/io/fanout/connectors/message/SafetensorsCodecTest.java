package io.fanout.connectors.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

public class SafetensorsCodecTest {

    /** The worked example of message-format.md: {#IS_HETERO: I64 [1] = [0], ids: I64 [2] = [7, 42]}. */
    public static final String GOLDEN_HEX = "7800000000000000"
            + "7b222349535f48455445524f223a7b226474797065223a22493634222c227368617065223a5b315d2c"
            + "22646174615f6f666673657473223a5b302c385d7d2c22696473223a7b226474797065223a22493634"
            + "222c227368617065223a5b325d2c22646174615f6f666673657473223a5b382c32345d7d7d20"
            + "0000000000000000" + "0700000000000000" + "2a00000000000000";

    @Test
    void goldenBlobDecodesToKnownValues() {
        byte[] blob = HexFormat.of().parseHex(GOLDEN_HEX);
        TensorMessage m = SafetensorsCodec.decode(blob);
        assertThat(m.names()).containsExactly("#IS_HETERO", "ids");
        assertThat(m.get("ids").dtype()).isEqualTo(DType.I64);
        assertThat(m.get("ids").shape()).containsExactly(2);
        assertThat(m.get("ids").asLongArray()).containsExactly(7, 42);
        assertThat(m.get("#IS_HETERO").asLongArray()).containsExactly(0);
    }

    @Test
    void goldenBlobIsWhatTheEncoderWrites() {
        TensorMessage m = new TensorMessage().putInt64(MessageKeys.IDS, new int[] {7, 42}).putInt64(MessageKeys.IS_HETERO, 0);
        assertThat(HexFormat.of().formatHex(SafetensorsCodec.encode(m))).isEqualTo(GOLDEN_HEX);
    }

    @Test
    void roundTripsEveryDtypeIncludingEmptyAndScalarTensors() {
        TensorMessage m = new TensorMessage()
                .putInt64("i64", new long[] {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE}, 2, 2)
                .putInt64("i64_from_int", new int[] {Integer.MIN_VALUE, -5, Integer.MAX_VALUE})
                .putInt32("i32", new int[] {-3, 0, 1 << 30})
                .putFloat64("f64", new double[] {-0.0, Math.PI, Double.NaN, Double.POSITIVE_INFINITY, 1e-300, 6}, 3, 2)
                .putFloat32("f32", new float[] {1.5f, -2.25f})
                .putUInt8("u8", new byte[] {0, 1, (byte) 255})
                .putInt64("empty_i64", new long[0])
                .putFloat64("empty_2d", new double[0], 0, 2)
                .put("scalar_i64", Tensor.scalarInt64(-9))
                .put("scalar_f64", Tensor.scalarFloat64(0.5))
                .put("bool", Tensor.ofBytes(DType.BOOL, new long[] {3}, new byte[] {1, 0, 1}))
                .put("i8", Tensor.ofBytes(DType.I8, new long[] {2}, new byte[] {-128, 127}))
                .put("i16", Tensor.ofBytes(DType.I16, new long[] {1}, new byte[] {(byte) 0xfe, (byte) 0xff}))
                .put("u16", Tensor.ofBytes(DType.U16, new long[] {1}, new byte[] {(byte) 0xfe, (byte) 0xff}))
                .put("f16", Tensor.ofBytes(DType.F16, new long[] {1}, new byte[] {0x00, 0x3c}))
                .put("bf16", Tensor.ofBytes(DType.BF16, new long[] {1}, new byte[] {(byte) 0x80, 0x3f}))
                .put("u32", Tensor.ofBytes(DType.U32, new long[] {1}, new byte[] {-1, -1, -1, -1}))
                .put("u64", Tensor.ofBytes(DType.U64, new long[] {1}, new byte[] {-1, -1, -1, -1, -1, -1, -1, -1}))
                .put("empty_u8_scalarless", Tensor.ofBytes(DType.U8, new long[] {0}, new byte[0]));
        byte[] blob = SafetensorsCodec.encode(m);
        assertThat((8 + ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).getLong(0)) % 8).isZero();
        TensorMessage back = SafetensorsCodec.decode(blob);

        assertThat(back).isEqualTo(m);
        for (DType t : DType.values()) {
            assertThat(back.names().stream().map(back::get).map(Tensor::dtype)).as("dtype %s covered", t).contains(t);
        }
        assertThat(back.get("i64").asLongArray()).containsExactly(Long.MIN_VALUE, -1, 0, Long.MAX_VALUE);
        assertThat(back.get("i64").shape()).containsExactly(2, 2);
        assertThat(back.get("i64_from_int").dtype()).isEqualTo(DType.I64);
        assertThat(back.get("i64_from_int").asLongArray()).containsExactly(Integer.MIN_VALUE, -5, Integer.MAX_VALUE);
        assertThat(back.get("i64_from_int").asIntArray()).containsExactly(Integer.MIN_VALUE, -5, Integer.MAX_VALUE);
        assertThat(back.get("i32").asIntArray()).containsExactly(-3, 0, 1 << 30);
        assertThat(back.get("f64").asDoubleArray()).containsExactly(-0.0, Math.PI, Double.NaN, Double.POSITIVE_INFINITY, 1e-300, 6);
        assertThat(Double.doubleToRawLongBits(back.get("f64").asDoubleArray()[0])).isEqualTo(Double.doubleToRawLongBits(-0.0));
        assertThat(back.get("f32").asFloatArray()).containsExactly(1.5f, -2.25f);
        assertThat(back.get("f32").asDoubleArray()).containsExactly(1.5, -2.25);
        assertThat(back.get("u8").asByteArray()).containsExactly(0, 1, 255);
        assertThat(back.get("u8").asLongArray()).containsExactly(0, 1, 255);
        assertThat(back.get("empty_i64").asLongArray()).isEmpty();
        assertThat(back.get("empty_2d").shape()).containsExactly(0, 2);
        assertThat(back.get("scalar_i64").shape()).isEmpty();
        assertThat(back.get("scalar_i64").asLongArray()).containsExactly(-9);
        assertThat(back.get("scalar_f64").asDoubleArray()).containsExactly(0.5);
        assertThat(back.get("i8").asLongArray()).containsExactly(-128, 127);
        assertThat(back.get("i16").asLongArray()).containsExactly(-2);
        assertThat(back.get("u16").asLongArray()).containsExactly(65534);
        assertThat(back.get("u32").asLongArray()).containsExactly(4294967295L);
        assertThat(back.get("bool").asIntArray()).containsExactly(1, 0, 1);
        assertThat(back.get("f16").asByteArray()).containsExactly(0x00, 0x3c);
    }

    @Test
    void int64FromIntIsWidenedNotTruncated() {
        byte[] blob = SafetensorsCodec.encode(new TensorMessage().putInt64("x", new int[] {-1}));
        // -1 as int64 little-endian is eight 0xff bytes, not four.
        assertThat(blob).endsWith((byte) -1, (byte) -1, (byte) -1, (byte) -1, (byte) -1, (byte) -1, (byte) -1, (byte) -1);
        assertThat(SafetensorsCodec.decode(blob).get("x").byteSize()).isEqualTo(8);
    }

    @Test
    void asIntArrayRejectsValuesThatDoNotFit() {
        Tensor t = SafetensorsCodec.decode(SafetensorsCodec.encode(new TensorMessage().putInt64("x", new long[] {1L << 40}))).get("x");
        assertThat(t.asLongArray()).containsExactly(1L << 40);
        assertThatThrownBy(t::asIntArray).isInstanceOf(ArithmeticException.class).hasMessageContaining("1099511627776");
    }

    @Test
    void encodingIsDeterministicWhateverThePutOrder() {
        long[] ids = {5, 6, 7};
        TensorMessage a = new TensorMessage().putInt64("ids", ids).putInt64("#META.epoch", 3).putFloat64("w", new double[] {1, 2})
                .putInt64("batch", new int[] {5});
        TensorMessage b = new TensorMessage().putInt64("batch", new long[] {5}).putFloat64("w", new double[] {1, 2})
                .putInt64("#META.epoch", 3).putInt64("ids", new int[] {5, 6, 7});
        byte[] ea = SafetensorsCodec.encode(a);
        assertThat(SafetensorsCodec.encode(b)).isEqualTo(ea);
        assertThat(SafetensorsCodec.encode(a)).isEqualTo(ea);
        assertThat(SafetensorsCodec.encode(SafetensorsCodec.decode(ea))).isEqualTo(ea);
        assertThat(SafetensorsCodec.decode(ea).names()).containsExactly("#META.epoch", "batch", "ids", "w");
    }

    @Test
    void namesNeedingJsonEscapesRoundTrip() {
        String odd = "quote\" back\\slash\nnewline\u0001ctl é ✓ paper__cites__paper";
        TensorMessage m = new TensorMessage().putInt64(odd, new long[] {1});
        byte[] blob = SafetensorsCodec.encode(m);
        String header = new String(blob, 8, (int) ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN).getLong(0), StandardCharsets.UTF_8);
        assertThat(header).contains("quote\\\" back\\\\slash\\nnewline\\u0001ctl é ✓");
        assertThat(SafetensorsCodec.decode(blob).names()).containsExactly(odd);
    }

    @Test
    void decodesFromAnOffsetAndAByteBuffer() {
        byte[] blob = HexFormat.of().parseHex(GOLDEN_HEX);
        byte[] framed = new byte[blob.length + 13];
        System.arraycopy(blob, 0, framed, 5, blob.length);
        assertThat(SafetensorsCodec.decode(framed, 5, blob.length).get("ids").asLongArray()).containsExactly(7, 42);
        ByteBuffer bb = ByteBuffer.wrap(framed, 5, blob.length);
        assertThat(SafetensorsCodec.decode(bb).get("ids").asLongArray()).containsExactly(7, 42);
        assertThat(bb.position()).isEqualTo(5);
    }

    @Test
    void reservedAndEmptyNamesAreRefused() {
        assertThatThrownBy(() -> new TensorMessage().putInt64("__metadata__", 1)).hasMessageContaining("reserved");
        assertThatThrownBy(() -> new TensorMessage().putInt64("", 1)).hasMessageContaining("empty");
        assertThatThrownBy(() -> new TensorMessage().putInt64("x", new long[] {1, 2, 3}, 2, 2)).hasMessageContaining("needs 4 elements");
    }

    @Test
    void stringTensorsCarryUtf8() {
        TensorMessage m = new TensorMessage().putString(MessageKeys.SAMPLING_ERROR, "boom: ✗");
        TensorMessage back = SafetensorsCodec.decode(SafetensorsCodec.encode(m));
        assertThat(back.get(MessageKeys.SAMPLING_ERROR).dtype()).isEqualTo(DType.U8);
        assertThat(back.getString(MessageKeys.SAMPLING_ERROR)).isEqualTo("boom: ✗");
    }

    @Test
    void metadataEntryIsSkipped() {
        byte[] blob = blob("{\"__metadata__\":{\"k\":\"v\"},\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", new byte[] {4, 5});
        assertThat(SafetensorsCodec.decode(blob).names()).containsExactly("a");
    }

    // ---- malformed blobs

    static byte[] blob(String header, byte[] data) {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(8 + h.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(h.length).put(h).put(data);
        return b.array();
    }

    @Test
    void rejectsBlobShorterThanTheLengthField() {
        assertThatThrownBy(() -> SafetensorsCodec.decode(new byte[5])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("5 bytes");
    }

    @Test
    void rejectsHeaderLengthBeyondTheBlob() {
        byte[] b = blob("{}", new byte[0]);
        b[0] = 100;
        assertThatThrownBy(() -> SafetensorsCodec.decode(b)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header length 100 in a blob of 10 bytes");
        byte[] neg = blob("{}", new byte[0]);
        neg[7] = (byte) 0x80;
        assertThatThrownBy(() -> SafetensorsCodec.decode(neg)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header length 9223372036854775810");
    }

    @Test
    void rejectsInvalidJson() {
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("{\"a\":", new byte[0]))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("{} x", new byte[0]))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("[1,2]", new byte[0]))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not start with '{'");
        String dup = "{\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},\"a\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}}";
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob(dup, new byte[0]))).hasMessageContaining("Duplicate field 'a'");
    }

    @Test
    void rejectsUnknownDtype() {
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("{\"a\":{\"dtype\":\"Q7\",\"shape\":[1],\"data_offsets\":[0,1]}}", new byte[1])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tensor \"a\"").hasMessageContaining("unknown safetensors dtype \"Q7\"");
    }

    @Test
    void rejectsOffsetsOutOfRangeOrNotContiguousOrMismatchedWithTheShape() {
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", new byte[2])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("out of range of 2 data bytes");
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}", new byte[2])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not contiguous: expected start 0");
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("{\"a\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,2]}}", new byte[2])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs 4 bytes");
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", new byte[3])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 data bytes but its tensors cover 1");
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("{\"a\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,1]}}", new byte[1])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("non-negative integers");
        assertThatThrownBy(() -> SafetensorsCodec.decode(blob("{\"a\":{\"dtype\":\"U8\",\"shape\":[1]}}", new byte[1])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"data_offsets\" must be an array of 2");
    }
}
