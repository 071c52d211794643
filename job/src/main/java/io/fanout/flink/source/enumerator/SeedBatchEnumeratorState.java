package io.fanout.flink.source.enumerator;

import io.fanout.flink.source.split.SeedBatchSplit;
import java.util.List;

/**
 * What the seed batch enumerator checkpoints: the first batch not yet cut into a split
 * ({@code nextEpoch}, {@code nextBatch}) and the splits handed back by failed readers, still to be
 * reassigned. Splits held by readers are in the readers' own state.
 */
public final class SeedBatchEnumeratorState {
    private final int nextEpoch;
    private final int nextBatch;
    private final List<SeedBatchSplit> pendingSplits;

    public SeedBatchEnumeratorState(int nextEpoch, int nextBatch, List<SeedBatchSplit> pendingSplits) {
        if (nextEpoch < 0 || nextBatch < 0) {
            throw new IllegalArgumentException("invalid enumerator cursor: epoch " + nextEpoch + ", batch " + nextBatch);
        }
        this.nextEpoch = nextEpoch;
        this.nextBatch = nextBatch;
        this.pendingSplits = List.copyOf(pendingSplits);
    }

    /** The state of a fresh job: nothing cut, nothing pending. */
    public static SeedBatchEnumeratorState initial() {
        return startingAt(0);
    }

    /** The state of a fresh job that starts at {@code epoch} (--start-epoch): the epochs before it are never cut. */
    public static SeedBatchEnumeratorState startingAt(int epoch) {
        return new SeedBatchEnumeratorState(epoch, 0, List.of());
    }

    /** Epoch of the first batch not yet in any split. */
    public int nextEpoch() {
        return nextEpoch;
    }

    /** First batch id of {@link #nextEpoch()} not yet in any split. */
    public int nextBatch() {
        return nextBatch;
    }

    /** Splits to assign before new ones are cut, in assignment order. */
    public List<SeedBatchSplit> pendingSplits() {
        return pendingSplits;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SeedBatchEnumeratorState)) {
            return false;
        }
        SeedBatchEnumeratorState s = (SeedBatchEnumeratorState) o;
        return nextEpoch == s.nextEpoch && nextBatch == s.nextBatch && pendingSplits.equals(s.pendingSplits);
    }

    @Override
    public int hashCode() {
        return (nextEpoch * 31 + nextBatch) * 31 + pendingSplits.hashCode();
    }

    @Override
    public String toString() {
        return "SeedBatchEnumeratorState{next epoch " + nextEpoch + " batch " + nextBatch + ", pending " + pendingSplits + "}";
    }
}
