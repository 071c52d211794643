package io.fanout.flink.source.reader;

import io.fanout.flink.source.split.SeedBatchSplit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

/**
 * The split handling both seed sources' readers share: splits are ranges of units (batches, or chunks of a seed
 * file) of one epoch; one unit is emitted per poll; the next split is asked for only when the last one is done, so
 * one request is outstanding at a time; the checkpointed state is each unfinished split with its next unit, so a
 * restored reader neither repeats nor skips a unit.
 */
abstract class EpochSplitReader<T> implements SourceReader<T, SeedBatchSplit> {
    private final SourceReaderContext context;
    private final ArrayDeque<SeedBatchSplit> queued = new ArrayDeque<>();

    /** The split being emitted, or null; its next unit is {@link #next}. */
    private SeedBatchSplit current;
    private int next;
    private boolean noMoreSplits;
    private CompletableFuture<Void> availability = new CompletableFuture<>();

    EpochSplitReader(SourceReaderContext context) {
        this.context = context;
    }

    /** Makes {@code split} current, from its next unit on. */
    abstract void open(SeedBatchSplit split) throws Exception;

    /** Emits unit {@code unit} of the current split (units come in order from the one {@link #open} gave). */
    abstract void emit(SeedBatchSplit split, int unit, ReaderOutput<T> output) throws Exception;

    /** The current split is done (or the reader closes): release what {@link #open} took. */
    void closeSplit() throws Exception {}

    @Override
    public void start() {
        // Restored splits arrive through addSplits before start; ask only if there are none.
        if (queued.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        if (current == null && !moveToNextSplit()) {
            return idleStatus();
        }
        emit(current, next++, output);
        if (next >= current.endBatch()) {
            current = null;
            closeSplit();
            if (queued.isEmpty() && !noMoreSplits) {
                context.sendSplitRequest();
            }
        }
        return current != null || !queued.isEmpty() ? InputStatus.MORE_AVAILABLE : idleStatus();
    }

    /** Without a split: more input may still come unless the enumerator said there is none. */
    private InputStatus idleStatus() {
        if (noMoreSplits) {
            return InputStatus.END_OF_INPUT;
        }
        if (availability.isDone()) {
            availability = new CompletableFuture<>();
        }
        return InputStatus.NOTHING_AVAILABLE;
    }

    private boolean moveToNextSplit() throws Exception {
        SeedBatchSplit split = queued.poll();
        if (split == null) {
            return false;
        }
        current = split;
        next = split.nextBatch();
        open(split);
        return true;
    }

    @Override
    public List<SeedBatchSplit> snapshotState(long checkpointId) {
        List<SeedBatchSplit> state = new ArrayList<>(queued.size() + 1);
        if (current != null) {
            state.add(current.withNextBatch(next));
        }
        state.addAll(queued);
        return state;
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        return availability;
    }

    @Override
    public void addSplits(List<SeedBatchSplit> splits) {
        for (SeedBatchSplit split : splits) {
            if (!split.isFinished()) {
                queued.add(split);
            }
        }
        availability.complete(null);
    }

    @Override
    public void notifyNoMoreSplits() {
        noMoreSplits = true;
        availability.complete(null);
    }

    @Override
    public void close() throws Exception {
        closeSplit();
    }
}
