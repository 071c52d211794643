package io.fanout.connectors.message;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Sampling-error messages (GiGL's {@code #SAMPLING_ERROR}): when sampling a batch fails, the trainer
 * gets a message carrying the error text instead of waiting for a batch that never comes.
 */
public final class SamplingErrors {
    private SamplingErrors() {}

    private static final byte[] KEY = ("\"" + MessageKeys.SAMPLING_ERROR + "\"").getBytes(StandardCharsets.UTF_8);

    /** The blob of a sampling-error message: uint8 UTF-8 {@code text} plus the batch's metadata keys. */
    public static byte[] encode(int epoch, int batchId, int numBatches, String text) {
        return SafetensorsCodec.encode(message(epoch, batchId, numBatches, text));
    }

    /** The sampling-error message before encoding, for a caller that adds metadata keys of its own. */
    public static TensorMessage message(int epoch, int batchId, int numBatches, String text) {
        return new TensorMessage()
                .putString(MessageKeys.SAMPLING_ERROR, text)
                .putInt64(MessageKeys.META_EPOCH, new long[] {epoch})
                .putInt64(MessageKeys.META_BATCH_ID, new long[] {batchId})
                .putInt64(MessageKeys.META_NUM_BATCHES, new long[] {numBatches});
    }

    /** Whether {@code blob} carries {@code #SAMPLING_ERROR}: looks at the safetensors header only, no decoding. */
    public static boolean isSamplingError(byte[] blob) {
        if (blob == null || blob.length < 8) {
            return false;
        }
        long headerLength = ByteBuffer.wrap(blob, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        int end = (int) Math.min(blob.length, 8 + Math.max(0, Math.min(headerLength, Integer.MAX_VALUE)));
        outer:
        for (int i = 8; i + KEY.length <= end; i++) {
            for (int j = 0; j < KEY.length; j++) {
                if (blob[i + j] != KEY[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /** The error text of a sampling-error blob. */
    public static String text(byte[] blob) {
        return SafetensorsCodec.decode(blob).getString(MessageKeys.SAMPLING_ERROR);
    }
}
