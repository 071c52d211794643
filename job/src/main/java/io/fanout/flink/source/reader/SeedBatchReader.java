package io.fanout.flink.source.reader;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.EpochOrder;
import io.fanout.batch.SeedBatch;
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
 * Emits the batches of its assigned splits, one {@link SeedBatch} per poll, asking the enumerator
 * for the next split when it runs out.
 *
 * <p>Batches are computed from the {@link BatchPlan} on the spot, so a split is only four ints; the
 * current epoch's {@link EpochOrder} is kept so an epoch's shuffle is paid once per reader. The
 * checkpointed state is each unfinished split with its next batch id, so a restored reader resumes
 * at exactly the batch after the last one emitted before the checkpoint.
 */
public final class SeedBatchReader implements SourceReader<SeedBatch, SeedBatchSplit> {
    private final SourceReaderContext context;
    private final BatchPlan plan;
    private final ArrayDeque<SeedBatchSplit> queued = new ArrayDeque<>();

    /** The split being emitted, or null; its position is {@link #next}. */
    private SeedBatchSplit current;
    private int next;
    private EpochOrder order;
    private boolean noMoreSplits;
    private CompletableFuture<Void> availability = new CompletableFuture<>();

    public SeedBatchReader(SourceReaderContext context, BatchPlan plan) {
        this.context = context;
        this.plan = plan;
    }

    @Override
    public void start() {
        // Restored splits arrive through addSplits before start; ask only if there are none.
        if (queued.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<SeedBatch> output) {
        if (current == null && !moveToNextSplit()) {
            return idleStatus();
        }
        int batchId = next++;
        output.collect(new SeedBatch(current.epoch(), batchId, plan.numBatches(), order.seedsOf(batchId),
                order.inputIdsOf(batchId)));
        if (next >= current.endBatch()) {
            finishSplit();
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

    private boolean moveToNextSplit() {
        SeedBatchSplit split = queued.poll();
        if (split == null) {
            return false;
        }
        current = split;
        next = split.nextBatch();
        if (order == null || order.epoch() != split.epoch()) {
            order = plan.order(split.epoch());
        }
        return true;
    }

    private void finishSplit() {
        current = null;
        // Ask for more only here, not on every idle poll, so one request is outstanding at a time.
        if (queued.isEmpty() && !noMoreSplits) {
            context.sendSplitRequest();
        }
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
    public void close() {}
}
