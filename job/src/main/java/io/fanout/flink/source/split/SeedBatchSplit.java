package io.fanout.flink.source.split;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A contiguous range of batch ids of one epoch, with the next batch to emit: the unit the seed
 * source hands to readers and checkpoints, so a restore neither repeats nor skips a batch.
 */
public final class SeedBatchSplit implements SourceSplit {
    private final int epoch;
    private final int firstBatch;
    private final int endBatch;
    private final int nextBatch;

    /** A split of batches {@code [firstBatch, endBatch)} of {@code epoch}, next to emit {@code nextBatch}. */
    public SeedBatchSplit(int epoch, int firstBatch, int endBatch, int nextBatch) {
        if (epoch < 0 || firstBatch < 0 || endBatch <= firstBatch || nextBatch < firstBatch || nextBatch > endBatch) {
            throw new IllegalArgumentException("invalid seed batch split: epoch " + epoch + ", batches ["
                    + firstBatch + ", " + endBatch + "), next " + nextBatch);
        }
        this.epoch = epoch;
        this.firstBatch = firstBatch;
        this.endBatch = endBatch;
        this.nextBatch = nextBatch;
    }

    /** A fresh split of batches {@code [firstBatch, endBatch)} of {@code epoch}. */
    public static SeedBatchSplit of(int epoch, int firstBatch, int endBatch) {
        return new SeedBatchSplit(epoch, firstBatch, endBatch, firstBatch);
    }

    /** Unique per (epoch, first batch): the range a split was created with never changes. */
    @Override
    public String splitId() {
        return "epoch-" + epoch + "-batch-" + firstBatch;
    }

    public int epoch() {
        return epoch;
    }

    public int firstBatch() {
        return firstBatch;
    }

    /** One past the last batch id of this split. */
    public int endBatch() {
        return endBatch;
    }

    /** The next batch id to emit; equals {@link #endBatch()} once the split is done. */
    public int nextBatch() {
        return nextBatch;
    }

    public boolean isFinished() {
        return nextBatch >= endBatch;
    }

    /** This split with its position moved to {@code nextBatch} (the state a reader checkpoints). */
    public SeedBatchSplit withNextBatch(int next) {
        return new SeedBatchSplit(epoch, firstBatch, endBatch, next);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SeedBatchSplit)) {
            return false;
        }
        SeedBatchSplit s = (SeedBatchSplit) o;
        return epoch == s.epoch && firstBatch == s.firstBatch && endBatch == s.endBatch && nextBatch == s.nextBatch;
    }

    @Override
    public int hashCode() {
        return ((epoch * 31 + firstBatch) * 31 + endBatch) * 31 + nextBatch;
    }

    @Override
    public String toString() {
        return "SeedBatchSplit{epoch " + epoch + ", batches [" + firstBatch + ", " + endBatch + "), next " + nextBatch + "}";
    }
}
