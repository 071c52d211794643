package io.fanout.flink.source.reader;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.EpochOrder;
import io.fanout.batch.LocalSeedArray;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedFile;
import io.fanout.flink.source.split.SeedBatchSplit;
import java.nio.file.Path;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits the batches of its assigned splits, one {@link SeedBatch} per poll, asking the enumerator
 * for the next split when it runs out.
 *
 * <p>Batches are computed from the {@link BatchPlan} on the spot, so a split is only four ints; the
 * checkpointed state is each unfinished split with its next batch id ({@link EpochSplitReader}), so a
 * restored reader resumes at exactly the batch after the last one emitted before the checkpoint. A plan whose seeds
 * only the workers read ({@code SeedSet.counted}) takes them from its {@link SeedFile}: the reader copies the file
 * once into a {@link LocalSeedArray} in {@code localDir} and reads each batch's seeds (and a timed file's times) from
 * it by position.
 */
public final class SeedBatchReader extends EpochSplitReader<SeedBatch> {
    private static final Logger LOG = LoggerFactory.getLogger(SeedBatchReader.class);

    private final BatchPlan plan;
    private final SeedFile seedFile;
    private final Path localDir;
    private EpochOrder order;
    private LocalSeedArray seeds;

    /** A reader of a plan that holds its seeds. */
    public SeedBatchReader(SourceReaderContext context, BatchPlan plan) {
        this(context, plan, null, null);
    }

    /** A reader whose seeds are {@code seedFile}'s (null: the plan's own), copied into {@code localDir}. */
    public SeedBatchReader(SourceReaderContext context, BatchPlan plan, SeedFile seedFile, Path localDir) {
        super(context);
        this.plan = plan;
        this.seedFile = seedFile;
        this.localDir = localDir;
    }

    @Override
    void open(SeedBatchSplit split) throws java.io.IOException {
        if (seedFile != null && seeds == null) {
            long start = System.nanoTime();
            try {
                seeds = LocalSeedArray.write(seedFile, localDir);
            } catch (SeedFile.SeedFileChangedException | IllegalArgumentException e) {
                throw new SuppressRestartsException(e); // the same on every attempt: fail now, naming the file
            }
            LOG.info("Copied the {} seeds of {} to {} ({} bytes) in {} s", seeds.numSeeds(), seedFile.path(),
                    seeds.file(), seeds.bytes(), String.format("%.2f", (System.nanoTime() - start) / 1e9));
        }
        if (order == null || order.epoch() != split.epoch()) {
            order = plan.order(split.epoch());
        }
    }

    @Override
    void emit(SeedBatchSplit split, int batchId, ReaderOutput<SeedBatch> output) throws java.io.IOException {
        if (seeds == null) {
            output.collect(order.batch(batchId));
            return;
        }
        int[] positions = order.inputIdsOf(batchId);
        long[] times = seeds.timed() ? new long[positions.length] : null;
        SeedBatch batch = SeedBatch.ofIds(split.epoch(), batchId, plan.numBatches(), seeds.read(positions, times),
                positions);
        batch.seedTimes = times;
        output.collect(batch);
    }

    @Override
    public void close() throws Exception {
        try {
            super.close();
        } finally {
            if (seeds != null) {
                seeds.close();
                seeds = null;
            }
        }
    }
}
