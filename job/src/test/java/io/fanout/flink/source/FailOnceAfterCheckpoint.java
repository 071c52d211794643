package io.fanout.flink.source;

import io.fanout.batch.SeedBatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Passes batches on slowly (so checkpoints complete while batches still flow), and throws once, on the first batch
 * after a checkpoint completed: the seed sources' failover tests. Its counters are static (the MiniCluster runs it in
 * this JVM); {@link #reset()} before each job.
 */
final class FailOnceAfterCheckpoint extends RichMapFunction<SeedBatch, SeedBatch> implements CheckpointListener {
    static final AtomicBoolean CHECKPOINT_COMPLETED = new AtomicBoolean();
    static final AtomicBoolean FAILED = new AtomicBoolean();
    static final AtomicInteger SEEN_FIRST_ATTEMPT = new AtomicInteger();
    static final AtomicInteger SEEN_AFTER_RESTART = new AtomicInteger();

    private final long sleepMillis;

    FailOnceAfterCheckpoint(long sleepMillis) {
        this.sleepMillis = sleepMillis;
    }

    static void reset() {
        CHECKPOINT_COMPLETED.set(false);
        FAILED.set(false);
        SEEN_FIRST_ATTEMPT.set(0);
        SEEN_AFTER_RESTART.set(0);
    }

    @Override
    public SeedBatch map(SeedBatch batch) throws Exception {
        Thread.sleep(sleepMillis);
        if (getRuntimeContext().getTaskInfo().getAttemptNumber() > 0) {
            SEEN_AFTER_RESTART.incrementAndGet();
        } else {
            SEEN_FIRST_ATTEMPT.incrementAndGet();
            if (CHECKPOINT_COMPLETED.get() && !FAILED.getAndSet(true)) {
                throw new IllegalStateException("injected failure after a completed checkpoint");
            }
        }
        return batch;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        CHECKPOINT_COMPLETED.set(true);
    }
}
