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
 * epoch {@code e}'s splits are always assigned before epoch {@code e+1}'s. Splits handed back by a failed
 * reader go out again before any new split.
 */
public final class SeedBatchEnumerator implements SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState>,
        SupportsBatchSnapshot {

    /**
     * Splits of seed batches each reader gets per epoch: one. Every split costs a request to the enumerator and a
     * new split output in Flink's source operator, and the readers' work is only the permutation, far below the
     * samplers' (a reader that finishes early just takes the next epoch's split), so smaller splits balance
     * nothing. With 4 per reader per epoch, ego_twitter_u [15,10] jobs sampled 5-6 % slower at p=2 (126-127 M
     * against 133-134 M sampled edges/s, means of 10 warm jobs per side in alternated JVMs; the p=2 JVMs left
     * 0.8-0.95 instead of 0.5-0.6 core-s of five-second windows idle) and 2 % slower at p=1, with the same
     * messages. Pacing ({@code fanout.max-batches-per-second}) caps the readers' rate, whatever their splits.
     */
    public static final int SPLITS_PER_READER_PER_EPOCH = 1;
    /**
     * Splits of a seed file's chunks each reader gets per epoch ({@code SeedFileSource}): several, because a
     * reader there reads and parses its chunks, and one on a slower disk or busier machine should take fewer.
     */
    public static final int CHUNK_SPLITS_PER_READER_PER_EPOCH = 4;

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
        return unitsPerSplit(numBatches, parallelism, SPLITS_PER_READER_PER_EPOCH);
    }

    /** Split length giving each of {@code parallelism} readers about {@code splitsPerReader} splits of an epoch's units. */
    public static int unitsPerSplit(int units, int parallelism, int splitsPerReader) {
        long targetSplits = (long) Math.max(1, parallelism) * Math.max(1, splitsPerReader);
        return (int) Math.max(1, (units + targetSplits - 1) / targetSplits);
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
