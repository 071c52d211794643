package io.fanout.connectors.message;

import java.util.Arrays;

/**
 * One sampled-subgraph message already encoded as a safetensors blob, with the keys a channel or a
 * file needs without decoding it: the record every Fanout sink consumes.
 *
 * <p>A Flink POJO (public fields, no-arg constructor): serialized by Flink's PojoSerializer with a
 * primitive byte-array field, never by reflective Kryo.
 */
public class EncodedMessage {
    /** Epoch of the batch, from 0. */
    public int epoch;
    /** Batch index within the epoch, from 0. */
    public int batchId;
    /** Number of batches in the epoch. */
    public int numBatches;
    /** The safetensors blob (see docs/message-format.md). */
    public byte[] payload;

    public EncodedMessage() {}

    public EncodedMessage(int epoch, int batchId, int numBatches, byte[] payload) {
        this.epoch = epoch;
        this.batchId = batchId;
        this.numBatches = numBatches;
        this.payload = payload;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof EncodedMessage)) {
            return false;
        }
        EncodedMessage s = (EncodedMessage) o;
        return epoch == s.epoch && batchId == s.batchId && numBatches == s.numBatches && Arrays.equals(payload, s.payload);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * epoch + batchId) + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "EncodedMessage{epoch=" + epoch + ", batchId=" + batchId + "/" + numBatches + ", bytes="
                + (payload == null ? 0 : payload.length) + "}";
    }
}
