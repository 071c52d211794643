package io.fanout.connectors.message;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;

/**
 * One sampled-subgraph message already encoded as a safetensors blob, with the keys a channel or a
 * file needs without decoding it: the record every Fanout sink consumes.
 *
 * <p>Owned (the usual form): {@link #payload} is the blob, exactly. A Flink POJO (public fields, no-arg
 * constructor): serialized by Flink's PojoSerializer with a primitive byte-array field, never by reflective Kryo.
 *
 * <p>Borrowed ({@link #borrowing}): the blob is the first {@link #length()} bytes of a producer's
 * {@link MessageBuffer}, valid only until the producer's next message, and {@link #payload} is null until
 * {@link #payload()} copies it. The in-memory samplers emit borrowed messages to the sinks chained to them, which
 * write the bytes out at once ({@link #writeTo}) or, to keep them, call {@link #payload()} (the channel's held
 * messages). A borrowed message must travel with the serializer of {@code connectors.typeinfo.EncodedMessageTypeInfo}, which copies or
 * serializes its bytes; Flink's POJO serializer would drop them.
 */
public class EncodedMessage {
    /** Epoch of the batch, from 0. */
    public int epoch;
    /** Batch index within the epoch, from 0. */
    public int batchId;
    /** Number of batches in the epoch. */
    public int numBatches;
    /** The safetensors blob (see docs/message-format.md); null while the message is borrowed. */
    public byte[] payload;

    /** A borrowed message's buffer (its bytes are [0, borrowedLength)), or null. */
    private transient byte[] borrowed;
    private transient int borrowedLength;

    public EncodedMessage() {}

    public EncodedMessage(int epoch, int batchId, int numBatches, byte[] payload) {
        this.epoch = epoch;
        this.batchId = batchId;
        this.numBatches = numBatches;
        this.payload = payload;
    }

    /** A borrowed message of the first {@code length} bytes of {@code buffer} (valid until the producer reuses it). */
    public static EncodedMessage borrowing(int epoch, int batchId, int numBatches, byte[] buffer, int length) {
        if (length < 0 || length > buffer.length) {
            throw new IllegalArgumentException("message of " + length + " bytes in a buffer of " + buffer.length);
        }
        EncodedMessage m = new EncodedMessage(epoch, batchId, numBatches, null);
        m.borrowed = buffer;
        m.borrowedLength = length;
        return m;
    }

    /** True while the blob is still the producer's buffer (before {@link #payload()}). */
    public boolean isBorrowed() {
        return borrowed != null;
    }

    /** The blob's length in bytes (0 without a payload). */
    public int length() {
        return borrowed != null ? borrowedLength : payload == null ? 0 : payload.length;
    }

    /**
     * The blob as an array this message owns: a borrowed message copies its bytes here, once, and is owned from
     * then on (every sink chained to the producer sees the same message object, so a later one finds it owned).
     */
    public byte[] payload() {
        if (borrowed != null) {
            payload = Arrays.copyOf(borrowed, borrowedLength);
            borrowed = null;
            borrowedLength = 0;
        }
        return payload;
    }

    /** Writes the blob to {@code out} without copying it. */
    public void writeTo(OutputStream out) throws IOException {
        if (borrowed != null) {
            out.write(borrowed, 0, borrowedLength);
        } else {
            out.write(payload);
        }
    }

    /** The array holding the blob from index 0, owned or borrowed (read its first {@link #length()} bytes now). */
    public byte[] bytes() {
        return borrowed != null ? borrowed : payload;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof EncodedMessage)) {
            return false;
        }
        EncodedMessage s = (EncodedMessage) o;
        if (epoch != s.epoch || batchId != s.batchId || numBatches != s.numBatches) {
            return false;
        }
        byte[] a = bytes();
        byte[] b = s.bytes();
        if (a == null || b == null) {
            return a == b;
        }
        return Arrays.equals(a, 0, length(), b, 0, s.length());
    }

    @Override
    public int hashCode() {
        byte[] b = bytes();
        int h = 1;
        for (int i = 0, n = length(); i < n; i++) {
            h = 31 * h + b[i];
        }
        return 31 * (31 * epoch + batchId) + (b == null ? 0 : h);
    }

    @Override
    public String toString() {
        return "EncodedMessage{epoch=" + epoch + ", batchId=" + batchId + "/" + numBatches + ", bytes=" + length()
                + (borrowed != null ? ", borrowed" : "") + "}";
    }
}
