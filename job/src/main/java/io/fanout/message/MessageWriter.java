package io.fanout.message;

import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageBuffer;

/**
 * One producer's encoder into one reused buffer: each message it returns is borrowed
 * ({@link EncodedMessage#borrowing}), valid until its next {@link #write}, for sinks that write the bytes out at
 * once or copy them to keep them. Not thread-safe: one per sampler subtask.
 */
public final class MessageWriter {
    private final MessageBuffer buffer = new MessageBuffer();

    /** {@link MessageEncoder#encode}'s bytes of {@code sample} as a borrowed message of batch {@code header}. */
    public EncodedMessage write(Sample sample, BatchHeader header, TrainerShares shares) {
        int length = MessageEncoder.encode(sample, header, shares, buffer);
        return EncodedMessage.borrowing(header.epoch(), header.batchId(), header.numBatches(), buffer.bytes(), length);
    }
}
