package io.fanout.connectors.channel.endpoint;

import java.util.TreeMap;

/**
 * When an epoch is over at this endpoint: the sink's watermark says every message of epochs up to
 * {@code w} has been put, and END_OF_EPOCH(e) may go out once no message of an epoch up to {@code e}
 * is still buffered or unacknowledged. Guarded by the endpoint lock.
 */
final class EpochGate {
    /** Messages not yet acknowledged (buffered or unacked) per epoch. */
    private final TreeMap<Integer, Integer> pendingPerEpoch = new TreeMap<>();
    /** Every message of epochs up to this one has been put. */
    private int watermark = -1;
    /** END_OF_EPOCH has been announced up to this epoch. */
    private int ended = -1;

    int watermark() {
        return watermark;
    }

    int ended() {
        return ended;
    }

    /** A message of {@code epoch} is now held. */
    void added(int epoch) {
        pendingPerEpoch.merge(epoch, 1, Integer::sum);
    }

    /** A message of {@code epoch} was acknowledged. */
    void acknowledged(int epoch) {
        pendingPerEpoch.computeIfPresent(epoch, (k, v) -> v == 1 ? null : v - 1);
    }

    /** Raises the watermark (never lowers it); true if it moved. */
    boolean advance(int epoch) {
        if (epoch > watermark) {
            watermark = epoch;
            return true;
        }
        return false;
    }

    /** Moves the ended epoch as far as the watermark and the pending messages allow; true if it moved. */
    boolean update() {
        int candidate = watermark;
        if (!pendingPerEpoch.isEmpty()) {
            candidate = Math.min(candidate, pendingPerEpoch.firstKey() - 1);
        }
        if (candidate > ended) {
            ended = candidate;
            return true;
        }
        return false;
    }
}
