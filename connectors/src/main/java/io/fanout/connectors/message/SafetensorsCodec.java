package io.fanout.connectors.message;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Encodes a {@link TensorMessage} as a safetensors blob and decodes one back.
 *
 * <p>Layout: u64 little-endian header length N; N bytes of compact UTF-8 JSON
 * {@code {"name":{"dtype":"I64","shape":[3],"data_offsets":[0,24]},...}} padded with spaces so
 * that 8+N is a multiple of 8; then the tensor data, little-endian, contiguous from offset 0.
 * Tensors are ordered by name (String order) in both the header and the data, so one message
 * always encodes to the same bytes, whatever its insertion order. Blobs load with
 * {@code safetensors.numpy.load(blob)}.
 */
public final class SafetensorsCodec {
    /** The header key safetensors reserves for string metadata (skipped on decode, never written). */
    public static final String METADATA_KEY = "__metadata__";
    /** The official reader's header size limit. */
    public static final int MAX_HEADER_BYTES = 100_000_000;

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private SafetensorsCodec() {}

    /** Encodes {@code message} into one freshly allocated byte array. */
    public static byte[] encode(TensorMessage message) {
        Layout layout = new Layout(message);
        byte[] blob = new byte[layout.total];
        layout.writeTo(blob);
        return blob;
    }

    /**
     * Encodes {@code message} into {@code buffer} from its first byte, growing it where the message does not fit,
     * and returns the message's length: the allocation-free form for a producer that hands each message on before
     * encoding the next (bytes written to memory the cache holds, not to a fresh array per message).
     */
    public static int encode(TensorMessage message, MessageBuffer buffer) {
        Layout layout = new Layout(message);
        layout.writeTo(buffer.reserve(layout.total));
        return layout.total;
    }

    /** A message's header bytes, tensors in name order and total size, computed once before its bytes are written. */
    private static final class Layout {
        final Tensor[] tensors;
        final byte[] headerBytes;
        final int padded;
        final int total;

        Layout(TensorMessage message) {
            String[] names = message.names().toArray(new String[0]);
            Arrays.sort(names);
            tensors = new Tensor[names.length];
            StringBuilder header = new StringBuilder(64 + 64 * names.length).append('{');
            long offset = 0;
            for (int i = 0; i < names.length; i++) {
                Tensor t = message.get(names[i]);
                tensors[i] = t;
                if (i > 0) {
                    header.append(',');
                }
                appendJsonString(header, names[i]);
                header.append(":{\"dtype\":\"").append(t.dtype().safetensorsName()).append("\",\"shape\":[");
                long[] shape = t.shape();
                for (int d = 0; d < shape.length; d++) {
                    if (d > 0) {
                        header.append(',');
                    }
                    header.append(shape[d]);
                }
                long end = offset + t.byteSize();
                header.append("],\"data_offsets\":[").append(offset).append(',').append(end).append("]}");
                offset = end;
            }
            header.append('}');
            headerBytes = header.toString().getBytes(StandardCharsets.UTF_8);
            padded = (headerBytes.length + 7) & ~7; // 8 + N stays a multiple of 8
            long size = 8L + padded + offset;
            if (size > Integer.MAX_VALUE - 16) {
                throw new IllegalArgumentException("message of " + size + " bytes is too large for one blob (max 2 GiB)");
            }
            total = (int) size;
        }

        /** Writes the message into {@code blob[0, total)}. */
        void writeTo(byte[] blob) {
            LONG_LE.set(blob, 0, (long) padded);
            System.arraycopy(headerBytes, 0, blob, 8, headerBytes.length);
            Arrays.fill(blob, 8 + headerBytes.length, 8 + padded, (byte) ' ');
            int pos = 8 + padded;
            for (Tensor t : tensors) {
                t.writeTo(blob, pos);
                pos += (int) t.byteSize();
            }
        }
    }

    /** JSON string literal: quotes, backslash and control characters escaped; other text as UTF-8. */
    private static void appendJsonString(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                case '\b':
                    sb.append("\\b");
                    break;
                case '\f':
                    sb.append("\\f");
                    break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    /** Decodes a whole blob; the tensors are read-only views of {@code blob} (do not modify it afterwards). */
    public static TensorMessage decode(byte[] blob) {
        return decode(blob, 0, blob.length);
    }

    /** Decodes the blob at {@code blob[offset..offset+length)}. */
    public static TensorMessage decode(byte[] blob, int offset, int length) {
        if (offset < 0 || length < 0 || offset + length > blob.length || offset + length < 0) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + "+" + length + ") of a " + blob.length + "-byte array");
        }
        return decode(ByteBuffer.wrap(blob, offset, length));
    }

    /**
     * Decodes the blob between {@code buffer}'s position and limit (the buffer's position is not
     * changed); {@code IllegalArgumentException} with the reason when it is not a valid safetensors blob.
     */
    public static TensorMessage decode(ByteBuffer buffer) {
        ByteBuffer blob = buffer.slice().order(ByteOrder.LITTLE_ENDIAN);
        int size = blob.remaining();
        if (size < 8) {
            throw new IllegalArgumentException("not a safetensors blob: " + size + " bytes, shorter than the 8-byte header length");
        }
        long n = blob.getLong(0);
        if (n < 2 || n > MAX_HEADER_BYTES || n > size - 8) {
            throw new IllegalArgumentException("not a safetensors blob: header length " + Long.toUnsignedString(n) + " in a blob of "
                    + size + " bytes");
        }
        int headerLength = (int) n;
        byte[] header = new byte[headerLength];
        blob.get(8, header);
        if (header[0] != '{') {
            throw new IllegalArgumentException("not a safetensors blob: header does not start with '{' (byte 0x"
                    + Integer.toHexString(header[0] & 0xff) + ")");
        }
        JsonNode root;
        try {
            root = JSON.readTree(header);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("safetensors header is not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("safetensors header is not readable: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("safetensors header is not a JSON object");
        }
        int dataStart = 8 + headerLength;
        long dataLength = size - dataStart;
        TreeMap<String, Tensor> tensors = new TreeMap<>();
        List<Object[]> spans = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            String name = e.getKey();
            if (name.equals(METADATA_KEY)) {
                continue;
            }
            JsonNode info = e.getValue();
            if (!info.isObject()) {
                throw bad(name, "entry is not an object");
            }
            JsonNode dtypeNode = info.get("dtype");
            if (dtypeNode == null || !dtypeNode.isTextual()) {
                throw bad(name, "missing \"dtype\" string");
            }
            DType dtype;
            try {
                dtype = DType.fromSafetensors(dtypeNode.textValue());
            } catch (IllegalArgumentException ex) {
                throw bad(name, ex.getMessage());
            }
            long[] shape = longArray(name, info.get("shape"), "shape", -1);
            long[] range = longArray(name, info.get("data_offsets"), "data_offsets", 2);
            if (range[0] > range[1] || range[1] > dataLength) {
                throw bad(name, "data_offsets " + Arrays.toString(range) + " out of range of " + dataLength + " data bytes");
            }
            long bytes = dtype.size();
            try {
                for (long d : shape) {
                    bytes = Math.multiplyExact(bytes, d);
                }
            } catch (ArithmeticException ex) {
                throw bad(name, "shape " + Arrays.toString(shape) + " is too large");
            }
            if (bytes != range[1] - range[0]) {
                throw bad(name, dtype + " shape " + Arrays.toString(shape) + " needs " + bytes
                        + " bytes, data_offsets " + Arrays.toString(range) + " span " + (range[1] - range[0]));
            }
            spans.add(new Object[] {name, range});
            tensors.put(name, Tensor.view(dtype, shape, blob, dataStart + (int) range[0], (int) (range[1] - range[0])));
        }
        // The official reader requires the tensors to tile the data exactly, in offset order.
        spans.sort((a, b) -> {
            long[] x = (long[]) a[1];
            long[] y = (long[]) b[1];
            return x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]);
        });
        long expected = 0;
        for (Object[] s : spans) {
            long[] r = (long[]) s[1];
            if (r[0] != expected) {
                throw bad((String) s[0], "data_offsets " + Arrays.toString(r) + " are not contiguous: expected start " + expected);
            }
            expected = r[1];
        }
        if (expected != dataLength) {
            throw new IllegalArgumentException("safetensors blob has " + dataLength + " data bytes but its tensors cover " + expected);
        }
        TensorMessage message = new TensorMessage();
        tensors.forEach(message::put);
        return message;
    }

    private static long[] longArray(String name, JsonNode node, String field, int requiredLength) {
        if (node == null || !node.isArray() || (requiredLength >= 0 && node.size() != requiredLength)) {
            throw bad(name, "\"" + field + "\" must be an array" + (requiredLength >= 0 ? " of " + requiredLength : "")
                    + " of non-negative integers, got " + node);
        }
        long[] out = new long[node.size()];
        for (int i = 0; i < out.length; i++) {
            JsonNode v = node.get(i);
            if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 0) {
                throw bad(name, "\"" + field + "\" must hold non-negative integers, got " + node);
            }
            out[i] = v.longValue();
        }
        return out;
    }

    private static IllegalArgumentException bad(String name, String why) {
        return new IllegalArgumentException("safetensors tensor \"" + name + "\": " + why);
    }
}
