package io.fanout.flink.source.reader;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.EpochOrder;
import io.fanout.batch.SeedFile;
import io.fanout.batch.SeedSlot;
import io.fanout.flink.source.split.SeedBatchSplit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * Reads chunks of a {@link SeedFile} for one epoch at a time and emits each seed as a {@link SeedSlot}: the batch and
 * place the epoch's order ({@link EpochOrder#slotOf}) gives its position. One chunk per poll.
 *
 * <p>Its splits are {@link SeedBatchSplit}s whose "batches" are chunk indices of the file; the checkpointed state is
 * each unfinished split with its next chunk, so a restored reader re-reads no chunk it emitted before the
 * checkpoint and skips none.
 */
public final class SeedFileReader implements SourceReader<SeedSlot, SeedBatchSplit> {
    private final SourceReaderContext context;
    private final SeedFile file;
    private final BatchPlan plan;
    private final ArrayDeque<SeedBatchSplit> queued = new ArrayDeque<>();

    private SeedBatchSplit current;
    private SeedFile.Cursor cursor;
    private EpochOrder order;
    private boolean noMoreSplits;
    private CompletableFuture<Void> availability = new CompletableFuture<>();

    public SeedFileReader(SourceReaderContext context, SeedFile file, BatchPlan plan) {
        this.context = context;
        this.file = file;
        this.plan = plan;
    }

    @Override
    public void start() {
        if (queued.isEmpty()) {
            context.sendSplitRequest();
        }
    }

    @Override
    public InputStatus pollNext(ReaderOutput<SeedSlot> output) throws IOException {
        if (current == null && !moveToNextSplit()) {
            return idleStatus();
        }
        int chunk = cursor.chunk();
        long[] ids;
        try {
            ids = cursor.nextChunk();
        } catch (SeedFile.SeedFileChangedException | IllegalArgumentException e) {
            throw new SuppressRestartsException(e); // the same on every attempt: fail now, naming the file
        }
        int epoch = current.epoch();
        int batchSize = plan.batchSize();
        int numBatches = plan.numBatches();
        long first = file.firstPosition(chunk);
        for (int i = 0; i < ids.length; i++) {
            int position = (int) (first + i);
            long slot = order.slotOf(position);
            long batch = slot / batchSize;
            if (batch < numBatches) { // else dropped: drop_last's short batch
                output.collect(new SeedSlot(epoch, (int) batch, (int) (slot % batchSize), position, ids[i]));
            }
        }
        if (cursor.chunk() >= current.endBatch()) {
            finishSplit();
        }
        return current != null || !queued.isEmpty() ? InputStatus.MORE_AVAILABLE : idleStatus();
    }

    private InputStatus idleStatus() {
        if (noMoreSplits) {
            return InputStatus.END_OF_INPUT;
        }
        if (availability.isDone()) {
            availability = new CompletableFuture<>();
        }
        return InputStatus.NOTHING_AVAILABLE;
    }

    private boolean moveToNextSplit() throws IOException {
        SeedBatchSplit split = queued.poll();
        if (split == null) {
            return false;
        }
        current = split;
        try {
            cursor = file.open(split.nextBatch());
        } catch (SeedFile.SeedFileChangedException e) {
            throw new SuppressRestartsException(e);
        }
        if (order == null || order.epoch() != split.epoch()) {
            order = plan.order(split.epoch());
        }
        return true;
    }

    private void finishSplit() throws IOException {
        current = null;
        closeCursor();
        if (queued.isEmpty() && !noMoreSplits) {
            context.sendSplitRequest();
        }
    }

    private void closeCursor() throws IOException {
        if (cursor != null) {
            cursor.close();
            cursor = null;
        }
    }

    @Override
    public List<SeedBatchSplit> snapshotState(long checkpointId) {
        List<SeedBatchSplit> state = new ArrayList<>(queued.size() + 1);
        if (current != null) {
            state.add(current.withNextBatch(cursor.chunk()));
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
    public void close() {
        try {
            closeCursor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
