package io.fanout.flink.source.enumerator;

import io.fanout.flink.source.split.SeedBatchSplit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import javax.annotation.Nullable;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SupportsBatchSnapshot;

/**
 * Cuts the epochs of a batch plan into splits of consecutive batch ids and hands them out, one per
 * reader request, in (epoch, batch) order.
 *
 * <p>Splits are cut lazily from a cursor, so the state stays a few ints however many epochs run, and
 * epoch {@code e}'s splits are always assigned before epoch {@code e+1}'s. Several splits per reader
 * per epoch let a fast reader take more of an epoch than a slow one. Splits handed back by a failed
 * reader go out again before any new split.
 */
public final class SeedBatchEnumerator implements SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState>,
        SupportsBatchSnapshot {

    /** Target number of splits each reader gets per epoch (fewer when an epoch has fewer batches). */
    public static final int SPLITS_PER_READER_PER_EPOCH = 4;

    private static final Comparator<SeedBatchSplit> ASSIGNMENT_ORDER =
            Comparator.comparingInt(SeedBatchSplit::epoch).thenComparingInt(SeedBatchSplit::firstBatch);

    private final SplitEnumeratorContext<SeedBatchSplit> context;
    private final int numBatches;
    private final int epochs;
    private final int batchesPerSplit;
    private final TreeSet<SeedBatchSplit> pending = new TreeSet<>(ASSIGNMENT_ORDER);
    private int nextEpoch;
    private int nextBatch;

    /**
     * @param numBatches batches per epoch of the plan
     * @param epochs epochs of the plan
     * @param state where to resume ({@link SeedBatchEnumeratorState#initial()} for a new job)
     */
    public SeedBatchEnumerator(SplitEnumeratorContext<SeedBatchSplit> context, int numBatches, int epochs,
            SeedBatchEnumeratorState state) {
        this(context, numBatches, epochs, batchesPerSplit(numBatches, context.currentParallelism()), state);
    }

    /**
     * As above with splits of {@code batchesPerSplit} units. The seed file source hands out chunks of its file this
     * way (its "batches" are chunk indices), one split per epoch for a file that must be read in sequence.
     */
    public SeedBatchEnumerator(SplitEnumeratorContext<SeedBatchSplit> context, int numBatches, int epochs,
            int batchesPerSplit, SeedBatchEnumeratorState state) {
        if (numBatches < 1 || epochs < 1 || batchesPerSplit < 1) {
            throw new IllegalArgumentException("numBatches, epochs and batchesPerSplit must be >= 1, got " + numBatches
                    + ", " + epochs + ", " + batchesPerSplit);
        }
        this.context = context;
        this.numBatches = numBatches;
        this.epochs = epochs;
        this.batchesPerSplit = batchesPerSplit;
        this.nextEpoch = state.nextEpoch();
        this.nextBatch = state.nextBatch();
        this.pending.addAll(state.pendingSplits());
    }

    /** Split length giving each of {@code parallelism} readers about {@link #SPLITS_PER_READER_PER_EPOCH} splits per epoch. */
    public static int batchesPerSplit(int numBatches, int parallelism) {
        long targetSplits = (long) Math.max(1, parallelism) * SPLITS_PER_READER_PER_EPOCH;
        return (int) Math.max(1, (numBatches + targetSplits - 1) / targetSplits);
    }

    @Override
    public void start() {}

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        SeedBatchSplit split = nextSplit();
        if (split != null) {
            context.assignSplit(split, subtaskId);
        } else {
            context.signalNoMoreSplits(subtaskId);
        }
    }

    /** The next split in assignment order, or null when every batch of every epoch is assigned. */
    private SeedBatchSplit nextSplit() {
        if (!pending.isEmpty()) {
            return pending.pollFirst();
        }
        if (nextEpoch >= epochs) {
            return null;
        }
        int end = Math.min(nextBatch + batchesPerSplit, numBatches);
        SeedBatchSplit split = SeedBatchSplit.of(nextEpoch, nextBatch, end);
        if (end == numBatches) {
            nextEpoch++;
            nextBatch = 0;
        } else {
            nextBatch = end;
        }
        return split;
    }

    @Override
    public void addSplitsBack(List<SeedBatchSplit> splits, int subtaskId) {
        pending.addAll(splits);
    }

    @Override
    public void addReader(int subtaskId) {
        // Readers ask for splits themselves (on start and when a split is done), so one request is
        // never answered twice after a restore.
    }

    @Override
    public SeedBatchEnumeratorState snapshotState(long checkpointId) {
        return new SeedBatchEnumeratorState(nextEpoch, nextBatch, new ArrayList<>(pending));
    }

    @Override
    public void close() {}
}
