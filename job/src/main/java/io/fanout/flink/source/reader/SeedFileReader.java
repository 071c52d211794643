package io.fanout.flink.source.reader;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.EpochOrder;
import io.fanout.batch.SeedFile;
import io.fanout.batch.SeedSlot;
import io.fanout.flink.source.split.SeedBatchSplit;
import java.io.IOException;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * Reads chunks of a {@link SeedFile} for one epoch at a time and emits each seed (with its time, from a timed file) as
 * a {@link SeedSlot} per place it fills: the batch and place the epoch's order ({@link EpochOrder#slotOf}) gives its
 * position, and the places of padding batches that take it again ({@link BatchPlan#forEachPlace}). One chunk per poll.
 *
 * <p>Its splits are {@link SeedBatchSplit}s whose "batches" are chunk indices of the file; the checkpointed state is
 * each unfinished split with its next chunk ({@link EpochSplitReader}), so a restored reader re-reads no chunk it
 * emitted before the checkpoint and skips none.
 */
public final class SeedFileReader extends EpochSplitReader<SeedSlot> {
    private final SeedFile file;
    private final BatchPlan plan;

    private SeedFile.Cursor cursor;
    private EpochOrder order;

    public SeedFileReader(SourceReaderContext context, SeedFile file, BatchPlan plan) {
        super(context);
        this.file = file;
        this.plan = plan;
    }

    @Override
    void open(SeedBatchSplit split) throws IOException {
        try {
            cursor = file.open(split.nextBatch());
        } catch (SeedFile.SeedFileChangedException e) {
            throw new SuppressRestartsException(e); // the same on every attempt: fail now, naming the file
        }
        if (order == null || order.epoch() != split.epoch()) {
            order = plan.order(split.epoch());
        }
    }

    @Override
    void emit(SeedBatchSplit split, int chunk, ReaderOutput<SeedSlot> output) throws IOException {
        long[] ids;
        try {
            ids = cursor.nextChunk();
        } catch (SeedFile.SeedFileChangedException | IllegalArgumentException e) {
            throw new SuppressRestartsException(e);
        }
        long[] times = cursor.lastTimes(); // null for an untimed file
        int epoch = split.epoch();
        long first = file.firstPosition(chunk);
        for (int i = 0; i < ids.length; i++) {
            int position = (int) (first + i);
            long id = ids[i];
            long time = times == null ? 0 : times[i];
            // Its own batch unless drop-last dropped it, and each padding batch that takes it again.
            plan.forEachPlace(order.slotOf(position),
                    (batch, index) -> output.collect(new SeedSlot(epoch, batch, index, position, id, time)));
        }
    }

    @Override
    void closeSplit() throws IOException {
        if (cursor != null) {
            cursor.close();
            cursor = null;
        }
    }
}
