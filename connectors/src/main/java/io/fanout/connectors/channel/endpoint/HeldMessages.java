package io.fanout.connectors.channel.endpoint;

import io.fanout.connectors.message.EncodedMessage;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Predicate;

/**
 * What an endpoint holds for its clients: the buffer of messages not yet sent, and the count and
 * bytes of those sent but not acknowledged (kept by their sessions). Buffered plus unacknowledged is
 * what the capacity and byte bounds limit. Guarded by the endpoint lock.
 */
final class HeldMessages {
    private final ArrayDeque<EncodedMessage> buffer = new ArrayDeque<>();
    private long bufferedBytes;
    private int unackedCount;
    private long unackedBytes;
    private long peakBytes;

    /** Appends a message to the buffer. */
    void add(EncodedMessage s) {
        buffer.addLast(s);
        bufferedBytes += s.payload.length;
        peakBytes = Math.max(peakBytes, bufferedBytes + unackedBytes);
    }

    /** Whether a message of {@code payloadBytes} fits the bounds; one larger than the byte bound fits once nothing is held. */
    boolean hasRoomFor(int payloadBytes, int capacity, long maxBytes) {
        int held = count();
        return held < capacity && (held == 0 || bytes() + payloadBytes <= maxBytes);
    }

    /**
     * Takes the next buffered message a client reading {@code maxEpoch} may get, of its share
     * ({@code share} says which); it is unacknowledged from now on.
     */
    EncodedMessage takeForSending(int maxEpoch, Predicate<EncodedMessage> share) {
        EncodedMessage s = EpochQueues.pollEligible(buffer, m -> m.epoch, maxEpoch, share);
        if (s != null) {
            bufferedBytes -= s.payload.length;
            unackedCount++;
            unackedBytes += s.payload.length;
        }
        return s;
    }

    /** An unacknowledged message was acknowledged: it is no longer held. */
    void acknowledged(EncodedMessage s) {
        unackedCount--;
        unackedBytes -= s.payload.length;
    }

    /** Unacknowledged messages (in order) go back to the front of the buffer, for any client. */
    void requeueFront(List<EncodedMessage> messages) {
        for (int i = messages.size() - 1; i >= 0; i--) {
            EncodedMessage s = messages.get(i);
            buffer.addFirst(s);
            bufferedBytes += s.payload.length;
            unackedCount--;
            unackedBytes -= s.payload.length;
        }
    }

    /** Whether a buffered message of {@code share} is of an epoch up to {@code maxEpoch}. */
    boolean bufferHoldsEpochUpTo(int maxEpoch, Predicate<EncodedMessage> share) {
        for (EncodedMessage m : buffer) {
            if (m.epoch <= maxEpoch && share.test(m)) {
                return true;
            }
        }
        return false;
    }

    /** The buffered messages, in order (guarded by the endpoint lock: do not keep). */
    Iterable<EncodedMessage> buffer() {
        return buffer;
    }

    /** Nothing buffered and nothing unacknowledged. */
    boolean isEmpty() {
        return buffer.isEmpty() && unackedCount == 0;
    }

    /** Messages held: buffered plus unacknowledged. */
    int count() {
        return buffer.size() + unackedCount;
    }

    /** Bytes held: buffered plus unacknowledged. */
    long bytes() {
        return bufferedBytes + unackedBytes;
    }

    int buffered() {
        return buffer.size();
    }

    long bufferedBytes() {
        return bufferedBytes;
    }

    int unacked() {
        return unackedCount;
    }

    long peakBytes() {
        return peakBytes;
    }

    /** The buffered messages in order (for a snapshot). */
    List<EncodedMessage> bufferedMessages() {
        return List.copyOf(buffer);
    }
}
