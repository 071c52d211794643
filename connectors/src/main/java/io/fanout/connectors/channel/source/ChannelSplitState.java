package io.fanout.connectors.channel.source;

import java.util.Arrays;

/**
 * The mutable progress of one {@link ChannelSplit} while it is read, owned by the task thread: a file's
 * byte offset and record count, or an endpoint's emitted keys and the seqs delivered since the last
 * checkpoint (acknowledged to the endpoint only when a checkpoint that covers them completes).
 */
final class ChannelSplitState {
    final ChannelSplit split;
    long byteOffset;
    long records;
    final BatchKeySet received;
    private long[] unacked = new long[16];
    private int unackedCount;

    ChannelSplitState(ChannelSplit split) {
        this.split = split;
        this.byteOffset = split.byteOffset();
        this.records = split.records();
        this.received = split.kind() == ChannelSplit.Kind.ENDPOINT ? split.received().copy() : null;
    }

    boolean isFile() {
        return split.kind() == ChannelSplit.Kind.FILE;
    }

    /** A message of this session was emitted or dropped as a copy: acknowledge it after the next checkpoint. */
    void delivered(long seq) {
        if (unackedCount == unacked.length) {
            unacked = Arrays.copyOf(unacked, unackedCount * 2);
        }
        unacked[unackedCount++] = seq;
    }

    /** The seqs delivered since the last call, which the checkpoint being taken now covers. */
    long[] takeDelivered() {
        long[] out = Arrays.copyOf(unacked, unackedCount);
        unackedCount = 0;
        return out;
    }

    /** The split as checkpointed: the position reached, or the emitted keys and the session to resume. */
    ChannelSplit toSplit(long session) {
        return isFile() ? split.withFilePosition(byteOffset, records) : split.withProgress(received.copy(), session);
    }
}
