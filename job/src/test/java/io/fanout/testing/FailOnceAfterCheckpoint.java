package io.fanout.testing;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * The failover tests' injected failure: passes records on (optionally slowly, so checkpoints complete while they
 * still flow) and throws once, in the first attempt, on the first record from the {@code after}-th on once a
 * checkpoint completed. Its counters are static (the MiniCluster runs it in this JVM): {@link #reset()} before each
 * job, and give the stream's type with {@code .returns(...)}.
 */
public final class FailOnceAfterCheckpoint<T> extends RichMapFunction<T, T> implements CheckpointListener {
    public static final AtomicBoolean FAILED = new AtomicBoolean();
    public static final AtomicInteger CHECKPOINTS = new AtomicInteger();
    public static final AtomicInteger SEEN_FIRST_ATTEMPT = new AtomicInteger();
    public static final AtomicInteger SEEN_AFTER_RESTART = new AtomicInteger();

    private final long sleepMillis;
    private final int after;

    private FailOnceAfterCheckpoint(long sleepMillis, int after) {
        this.sleepMillis = sleepMillis;
        this.after = after;
    }

    /** Sleeps {@code sleepMillis} per record; fails on the first record after a completed checkpoint. */
    public static <T> FailOnceAfterCheckpoint<T> slow(long sleepMillis) {
        return new FailOnceAfterCheckpoint<>(sleepMillis, 1);
    }

    /** Fails on the first record, from the {@code after}-th on, that follows a completed checkpoint. */
    public static <T> FailOnceAfterCheckpoint<T> afterRecords(int after) {
        return new FailOnceAfterCheckpoint<>(0, after);
    }

    /** The failover tests' restarts: two attempts, at once (the injected failure needs one). */
    public static org.apache.flink.configuration.Configuration restartOnce() {
        var conf = new org.apache.flink.configuration.Configuration();
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 2);
        conf.set(org.apache.flink.configuration.RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                java.time.Duration.ZERO);
        return conf;
    }

    public static void reset() {
        FAILED.set(false);
        CHECKPOINTS.set(0);
        SEEN_FIRST_ATTEMPT.set(0);
        SEEN_AFTER_RESTART.set(0);
    }

    @Override
    public T map(T record) throws Exception {
        if (sleepMillis > 0) {
            Thread.sleep(sleepMillis);
        }
        if (getRuntimeContext().getTaskInfo().getAttemptNumber() > 0) {
            SEEN_AFTER_RESTART.incrementAndGet();
            return record;
        }
        int seen = SEEN_FIRST_ATTEMPT.incrementAndGet();
        if (seen >= after && CHECKPOINTS.get() > 0 && FAILED.compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure after a completed checkpoint and " + seen
                    + " records (test)");
        }
        return record;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        CHECKPOINTS.incrementAndGet();
    }
}
