package io.fanout.connectors.channel.protocol;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reads channel frames from a stream, enforcing a maximum frame size before allocating.
 * Not thread-safe: one reader per connection.
 */
public final class FrameReader {
    private final InputStream in;
    private final int maxFrameBytes;
    private final byte[] lengthBytes = new byte[4];

    /** @param maxFrameBytes largest accepted value of a frame's length field (type + body) */
    public FrameReader(InputStream in, int maxFrameBytes) {
        if (maxFrameBytes < 1) {
            throw new IllegalArgumentException("maxFrameBytes must be at least 1, got " + maxFrameBytes);
        }
        this.in = in;
        this.maxFrameBytes = maxFrameBytes;
    }

    /**
     * The next frame, or null if the stream ended cleanly before a frame began.
     *
     * @throws ProtocolException on a zero or oversized length, an unknown type or a malformed body
     * @throws EOFException when the stream ends inside a frame
     */
    public Frame read() throws IOException {
        int first = in.read();
        if (first < 0) {
            return null;
        }
        lengthBytes[0] = (byte) first;
        readFully(lengthBytes, 1, 3, "frame length");
        long length = Integer.toUnsignedLong(ByteBuffer.wrap(lengthBytes).order(ByteOrder.LITTLE_ENDIAN).getInt());
        if (length == 0) {
            throw new ProtocolException("frame length 0: a frame has at least its type byte");
        }
        if (length > maxFrameBytes) {
            throw new ProtocolException("frame of " + length + " bytes exceeds the limit of " + maxFrameBytes + " bytes");
        }
        int code = in.read();
        if (code < 0) {
            throw new EOFException("stream ended before the type of a " + length + "-byte frame");
        }
        FrameType type = FrameType.ofCode(code);
        if (type == null) {
            throw new ProtocolException("unknown frame type " + code + " (length " + length + ")");
        }
        byte[] body = new byte[(int) length - 1];
        readFully(body, 0, body.length, type + " frame body");
        return decodeBody(type, body);
    }

    /** Decodes the body of a frame of {@code type}. */
    public static Frame decodeBody(FrameType type, byte[] body) throws ProtocolException {
        ByteBuffer b = ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN);
        switch (type) {
            case HELLO: {
                need(type, body, 4, false);
                int version = Short.toUnsignedInt(b.getShort());
                int tokenLength = Short.toUnsignedInt(b.getShort());
                int rest = body.length - 4 - tokenLength;
                // Version 1 HELLOs end after the token; version 2 adds the u64 session id; a
                // data-parallel trainer's HELLO then i32 rank and i32 world size.
                if (rest != 0 && rest != 8 && rest != 16) {
                    throw new ProtocolException("HELLO token length " + tokenLength + " but " + (body.length - 4) + " bytes follow");
                }
                String token = new String(body, 4, tokenLength, StandardCharsets.UTF_8);
                if (rest == 0) {
                    return new Frame.Hello(version, token);
                }
                b.position(4 + tokenLength);
                long session = b.getLong();
                if (rest == 8) {
                    return new Frame.Hello(version, token, session);
                }
                int rank = b.getInt();
                int worldSize = b.getInt();
                if (worldSize < 1) {
                    throw new ProtocolException("HELLO world size " + worldSize + ", expected at least 1");
                }
                return new Frame.Hello(version, token, session, rank, worldSize);
            }
            case WELCOME:
                need(type, body, 19, true);
                return new Frame.Welcome(Short.toUnsignedInt(b.getShort()), b.getInt(), b.getInt(), b.getLong(), b.get() != 0);
            case FETCH:
                // 12 bytes from version 2 clients, 16 with the epoch limit of version 3.
                if (body.length != 12 && body.length != 16) {
                    throw new ProtocolException("FETCH body of " + body.length + " bytes, expected 12 (version 2) or 16");
                }
                return new Frame.Fetch(Integer.toUnsignedLong(b.getInt()), b.getLong(),
                        body.length == 16 ? b.getInt() : ChannelProtocol.ANY_EPOCH);
            case MESSAGE: {
                need(type, body, ChannelProtocol.MESSAGE_BODY_HEAD_BYTES, false);
                long seq = b.getLong();
                int epoch = b.getInt();
                int batchId = b.getInt();
                int numBatches = b.getInt();
                byte[] payload = new byte[body.length - ChannelProtocol.MESSAGE_BODY_HEAD_BYTES];
                b.get(payload);
                return new Frame.Message(seq, epoch, batchId, numBatches, payload);
            }
            case END_OF_EPOCH:
                need(type, body, 4, true);
                return new Frame.EndOfEpoch(b.getInt());
            case END_OF_STREAM:
                need(type, body, 0, true);
                return new Frame.EndOfStream();
            case ERROR:
                return new Frame.Error(new String(body, StandardCharsets.UTF_8));
            case HEARTBEAT:
                need(type, body, 0, true);
                return new Frame.Heartbeat();
            default:
                throw new ProtocolException("unhandled frame type " + type);
        }
    }

    private static void need(FrameType type, byte[] body, int size, boolean exact) throws ProtocolException {
        if (exact ? body.length != size : body.length < size) {
            throw new ProtocolException(type + " body of " + body.length + " bytes, expected " + (exact ? "" : "at least ") + size);
        }
    }

    private void readFully(byte[] buf, int off, int len, String what) throws IOException {
        int done = 0;
        while (done < len) {
            int r = in.read(buf, off + done, len - done);
            if (r < 0) {
                throw new EOFException("stream ended inside the " + what + ": got " + done + " of " + len + " bytes");
            }
            done += r;
        }
    }
}
