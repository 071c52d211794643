package io.fanout.connectors.channel.protocol;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes channel frames to a stream and flushes after each, except {@link #bufferMessage}, which
 * leaves several MESSAGE frames to one {@link #flush}. Not thread-safe: one writer per connection,
 * used by one thread at a time.
 */
public final class FrameWriter {
    private final OutputStream out;
    private final byte[] messageHeader = new byte[ChannelProtocol.MESSAGE_HEADER_BYTES];

    public FrameWriter(OutputStream out) {
        this.out = out;
    }

    /** Writes one frame. */
    public void write(Frame frame) throws IOException {
        if (frame instanceof Frame.Message m) {
            writeMessage(m.seq(), m.epoch(), m.batchId(), m.numBatches(), m.payload());
        } else {
            out.write(encode(frame));
            out.flush();
        }
    }

    /** Writes a MESSAGE frame without copying {@code payload}, and flushes. */
    public void writeMessage(long seq, int epoch, int batchId, int numBatches, byte[] payload) throws IOException {
        bufferMessage(seq, epoch, batchId, numBatches, payload);
        out.flush();
    }

    /**
     * Writes a MESSAGE frame without copying {@code payload} and without flushing: the server's hot
     * path, where the messages ready at once leave in one flush (one system call for many small ones).
     */
    public void bufferMessage(long seq, int epoch, int batchId, int numBatches, byte[] payload) throws IOException {
        long length = 1L + ChannelProtocol.MESSAGE_BODY_HEAD_BYTES + payload.length;
        if (length > 0xffff_ffffL) {
            throw new IllegalArgumentException("message of " + payload.length + " bytes does not fit in one frame");
        }
        ByteBuffer.wrap(messageHeader).order(ByteOrder.LITTLE_ENDIAN).putInt((int) length).put((byte) FrameType.MESSAGE.code())
                .putLong(seq).putInt(epoch).putInt(batchId).putInt(numBatches);
        out.write(messageHeader);
        out.write(payload);
    }

    /** Sends what {@link #bufferMessage} left in the stream's buffer. */
    public void flush() throws IOException {
        out.flush();
    }

    /** Number of bytes of {@code frame} on the wire, length field included. */
    public static long wireSize(Frame frame) {
        if (frame instanceof Frame.Message m) {
            return ChannelProtocol.MESSAGE_HEADER_BYTES + (long) m.payload().length;
        }
        return encode(frame).length;
    }

    /** The complete wire bytes of one frame (length field included). */
    public static byte[] encode(Frame frame) {
        byte[] body;
        ByteBuffer b;
        switch (frame.type()) {
            case HELLO: {
                Frame.Hello h = (Frame.Hello) frame;
                byte[] token = h.token().getBytes(StandardCharsets.UTF_8);
                if (token.length > 0xffff) {
                    throw new IllegalArgumentException("token of " + token.length + " bytes is longer than 65535");
                }
                b = body(4 + token.length + 8 + (h.ranked() ? 8 : 0)).putShort((short) h.version()).putShort((short) token.length)
                        .put(token).putLong(h.sessionId());
                if (h.ranked()) {
                    b.putInt(h.rank()).putInt(h.worldSize());
                }
                break;
            }
            case WELCOME: {
                Frame.Welcome w = (Frame.Welcome) frame;
                b = body(19).putShort((short) w.version()).putInt(w.endpointIndex()).putInt(w.numEndpoints())
                        .putLong(w.sessionId()).put((byte) (w.resumed() ? 1 : 0));
                break;
            }
            case FETCH: {
                Frame.Fetch f = (Frame.Fetch) frame;
                b = body(16).putInt((int) f.credits()).putLong(f.ackedSeq()).putInt(f.maxEpoch());
                break;
            }
            case MESSAGE: {
                Frame.Message m = (Frame.Message) frame;
                b = body(ChannelProtocol.MESSAGE_BODY_HEAD_BYTES + m.payload().length).putLong(m.seq()).putInt(m.epoch()).putInt(m.batchId()).putInt(m.numBatches()).put(m.payload());
                break;
            }
            case END_OF_EPOCH:
                b = body(4).putInt(((Frame.EndOfEpoch) frame).epoch());
                break;
            case END_OF_STREAM:
            case HEARTBEAT:
                b = body(0);
                break;
            case ERROR: {
                byte[] text = ((Frame.Error) frame).text().getBytes(StandardCharsets.UTF_8);
                b = body(text.length).put(text);
                break;
            }
            default:
                throw new IllegalStateException("unhandled frame type " + frame.type());
        }
        body = b.array();
        ByteBuffer whole = ByteBuffer.allocate(4 + 1 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        whole.putInt(1 + body.length).put((byte) frame.type().code()).put(body);
        return whole.array();
    }

    private static ByteBuffer body(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }
}
