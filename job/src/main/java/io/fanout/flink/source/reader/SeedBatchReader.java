package io.fanout.flink.source.reader;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.EpochOrder;
import io.fanout.batch.SeedBatch;
import io.fanout.flink.source.split.SeedBatchSplit;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;

/**
 * Emits the batches of its assigned splits, one {@link SeedBatch} per poll, asking the enumerator
 * for the next split when it runs out.
 *
 * <p>Batches are computed from the {@link BatchPlan} on the spot, so a split is only four ints; the
 * checkpointed state is each unfinished split with its next batch id ({@link EpochSplitReader}), so a
 * restored reader resumes at exactly the batch after the last one emitted before the checkpoint.
 */
public final class SeedBatchReader extends EpochSplitReader<SeedBatch> {
    private final BatchPlan plan;
    private EpochOrder order;

    public SeedBatchReader(SourceReaderContext context, BatchPlan plan) {
        super(context);
        this.plan = plan;
    }

    @Override
    void open(SeedBatchSplit split) {
        if (order == null || order.epoch() != split.epoch()) {
            order = plan.order(split.epoch());
        }
    }

    @Override
    void emit(SeedBatchSplit split, int batchId, ReaderOutput<SeedBatch> output) {
        output.collect(order.batch(batchId));
    }
}
