package io.fanout.connectors.message;

/**
 * A byte array that one producer encodes message after message into ({@link SafetensorsCodec#encode(TensorMessage,
 * MessageBuffer)}), grown to the largest message so far and never shrunk.
 *
 * <p>Why: a message of ego_twitter_u [15,10], batch 512, is about 1.4 MB, and writing each into a fresh array is
 * writing memory the cache does not hold (a read of every line before its write, and evictions of the sampler's own
 * arrays): in one sampler thread, sampling then encoding ran 71.7 M sampled edges/s into fresh arrays against 81.2 M
 * into one reused array (the sampling alone 89.1 M). Not thread-safe: one per producer.
 */
public final class MessageBuffer {
    private byte[] bytes = new byte[0];

    /** The array, at least {@code length} long (its contents are not kept when it grows). */
    byte[] reserve(int length) {
        if (bytes.length < length) {
            // A quarter more than asked: a batch a little larger than the last does not grow it again.
            bytes = new byte[(int) Math.min(Integer.MAX_VALUE - 16, length + (long) (length >>> 2))];
        }
        return bytes;
    }

    /** The array the last message was encoded into (valid until the next encode). */
    public byte[] bytes() {
        return bytes;
    }

    /** The bytes it holds now (the largest message so far, and a quarter more). */
    public int capacity() {
        return bytes.length;
    }
}
