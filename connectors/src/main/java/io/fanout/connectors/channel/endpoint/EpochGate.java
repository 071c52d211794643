package io.fanout.connectors.channel.endpoint;

import java.util.Arrays;
import java.util.TreeMap;

/**
 * When an epoch is over at this endpoint: the sink's watermark says every message of epochs up to
 * {@code w} has been put, and END_OF_EPOCH(e) may go out once no message of an epoch up to {@code e}
 * is still buffered or unacknowledged. With several data-parallel trainers each rank's epoch ends on
 * its own share (batch id mod trainers), so a rank never waits for another's batches to be consumed.
 * Guarded by the endpoint lock.
 */
final class EpochGate {
    private final int trainers;
    /** Messages not yet acknowledged (buffered or unacked) per epoch. */
    private final TreeMap<Integer, Integer> pendingPerEpoch = new TreeMap<>();
    /** The same per rank (batch id mod trainers); empty with one trainer. */
    private final TreeMap<Integer, Integer>[] pendingPerRank;
    /** Every message of epochs up to this one has been put. */
    private int watermark = -1;

    /** END_OF_EPOCH has been announced up to this epoch. */
    private int ended = -1;
    /** The same per rank. */
    private final int[] endedPerRank;

    @SuppressWarnings("unchecked")
    EpochGate(int trainers) {
        this.trainers = trainers;
        int ranks = trainers > 1 ? trainers : 0;
        this.pendingPerRank = new TreeMap[ranks];
        for (int r = 0; r < ranks; r++) {
            pendingPerRank[r] = new TreeMap<>();
        }
        this.endedPerRank = new int[ranks];
        Arrays.fill(endedPerRank, -1);
    }

    int watermark() {
        return watermark;
    }

    int ended() {
        return ended;
    }

    /** The epoch ended for a session of {@code rank} (a session without a rank takes every message: the endpoint's). */
    int ended(int rank) {
        return rank < 0 || endedPerRank.length == 0 ? ended : endedPerRank[rank];
    }

    /** A message of {@code epoch} and {@code batchId} is now held. */
    void added(int epoch, int batchId) {
        pendingPerEpoch.merge(epoch, 1, Integer::sum);
        if (pendingPerRank.length > 0) {
            pendingPerRank[Math.floorMod(batchId, trainers)].merge(epoch, 1, Integer::sum);
        }
    }

    /** A message of {@code epoch} and {@code batchId} was acknowledged. */
    void acknowledged(int epoch, int batchId) {
        pendingPerEpoch.computeIfPresent(epoch, (k, v) -> v == 1 ? null : v - 1);
        if (pendingPerRank.length > 0) {
            pendingPerRank[Math.floorMod(batchId, trainers)].computeIfPresent(epoch, (k, v) -> v == 1 ? null : v - 1);
        }
    }

    /** Raises the watermark (never lowers it); true if it moved. */
    boolean advance(int epoch) {
        if (epoch > watermark) {
            watermark = epoch;
            return true;
        }
        return false;
    }

    /** Moves the ended epochs as far as the watermark and the pending messages allow; true if one moved. */
    boolean update() {
        boolean moved = false;
        int candidate = endable(pendingPerEpoch);
        if (candidate > ended) {
            ended = candidate;
            moved = true;
        }
        for (int r = 0; r < endedPerRank.length; r++) {
            int c = endable(pendingPerRank[r]);
            if (c > endedPerRank[r]) {
                endedPerRank[r] = c;
                moved = true;
            }
        }
        return moved;
    }

    /** The ended epoch per rank, for logs ("" with one trainer). */
    String perRank() {
        return endedPerRank.length == 0 ? "" : " (per rank " + Arrays.toString(endedPerRank) + ")";
    }

    private int endable(TreeMap<Integer, Integer> pending) {
        return pending.isEmpty() ? watermark : Math.min(watermark, pending.firstKey() - 1);
    }
}
