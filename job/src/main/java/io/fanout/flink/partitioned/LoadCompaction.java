package io.fanout.flink.partitioned;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.CompactRangeOptions;
import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts a lookup operator's loaded keyed state once its load input has ended, so each later point read finds
 * one value in one sorted run.
 *
 * <p>Why: the load appends a node's edge groups as RocksDB merges (blind writes), one per split buffer the node
 * appears in, so right after the load a node's value is scattered over many merge operands in many sorted runs,
 * and every read of a node not yet in the head cache gathers and merges them (half the lookup threads' time in
 * R-MAT 2^20's first epoch). One full compaction of the loaded column families merges them once. It changes no
 * value, so samples and savepoints are the same with or without it.
 *
 * <p>The compaction runs on its own thread while the task thread waits for it, interruptibly: RocksDB's native
 * compaction ignores Java interrupts, and on a large subtask it takes minutes, longer than Flink's task
 * cancellation timeout (180 s by default: past it the TaskManager is killed). A cancelled task (job cancel or
 * failover) stops the compaction through RocksDB's cancel flag, as Flink's own range compaction after a restore
 * does, and returns within moments. Flink's public {@code compactState} has no such flag, so the database and
 * column family handles are read from the backend's fields (Flink 2.3's RocksDB backend, checked by the tests);
 * where a cluster's Flink has other fields, {@code compactState} is used (logged), which a cancel waits for.
 */
public final class LoadCompaction {
    /** Accumulator: milliseconds spent compacting loaded state, summed over the lookup subtasks. */
    public static final String COMPACTION_MS = "fanout.partitioned-compaction-ms";
    private static final Logger LOG = LoggerFactory.getLogger(LoadCompaction.class);

    private LoadCompaction() {}

    /**
     * Compacts {@code states} of {@code operator}'s keyed backend when it is RocksDB's and adds the time to
     * {@link #COMPACTION_MS}. Skipped (logged) otherwise: a heap backend has no sorted runs, and Flink's changelog
     * backend wraps RocksDB without giving access to it.
     *
     * @throws InterruptedException the task was cancelled meanwhile: the compaction was stopped (the state is as
     *     before it, complete)
     */
    static void compact(AbstractStreamOperator<?> operator, String what, StateDescriptor<?, ?>... states)
            throws Exception {
        long start = System.nanoTime();
        if (!compact(operator.getKeyedStateBackend(), states)) {
            LOG.info("{}: keyed state backend is not RocksDB, loaded state not compacted", what);
            return;
        }
        long ms = (System.nanoTime() - start + 999_999) / 1_000_000; // rounded up: a compaction that ran counts
        operator.getRuntimeContext().getLongCounter(COMPACTION_MS).add(ms);
        LOG.info("{}: loaded state compacted in {} ms (--partitioned.compact-after-load)", what, ms);
    }

    /** Compacts {@code states} of {@code backend}; false when it is not RocksDB's. */
    static boolean compact(KeyedStateBackend<?> backend, StateDescriptor<?, ?>... states) throws Exception {
        if (!(backend instanceof RocksDBKeyedStateBackend<?> rocks)) {
            return false;
        }
        RocksDB db;
        List<ColumnFamilyHandle> families = new ArrayList<>();
        try {
            db = database(rocks);
            for (StateDescriptor<?, ?> state : states) {
                families.add(family(rocks, state.getName()));
            }
        } catch (ReflectiveOperationException | ClassCastException e) {
            // Another Flink version on the cluster (Flink is provided there): its public compaction, not cancellable.
            LOG.warn("RocksDB backend of {} has no fields 'db' and 'kvStateInformation' as in Flink 2.3 ({}): compacting"
                    + " with Flink's compactState, which a cancelled task waits for", rocks.getClass().getName(),
                    e.toString());
            compactWithFlink(rocks, states);
            return true;
        }
        try (CompactRangeOptions options = new CompactRangeOptions()) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            Thread worker = new Thread(() -> {
                try {
                    for (ColumnFamilyHandle family : families) {
                        if (!options.canceled()) {
                            db.compactRange(family, null, null, options);
                        }
                    }
                    done.complete(null);
                } catch (Throwable e) {
                    done.completeExceptionally(e);
                }
            }, "fanout-load-compaction");
            worker.setDaemon(true);
            worker.start();
            try {
                done.get();
            } catch (InterruptedException e) {
                options.setCanceled(true);
                joinUninterruptibly(worker); // the options and the database must outlive the native call
                LOG.info("load compaction stopped: the task was cancelled");
                throw e;
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
        return true;
    }

    /** The fallback: Flink's public compaction of each state, on the task thread (not cancellable). */
    static void compactWithFlink(RocksDBKeyedStateBackend<?> rocks, StateDescriptor<?, ?>... states) throws Exception {
        for (StateDescriptor<?, ?> state : states) {
            rocks.compactState(state);
        }
    }

    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true; // Flink interrupts a cancelled task repeatedly; keep waiting for the native call
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The backend's database (a protected field of Flink's RocksDB backend). */
    static RocksDB database(RocksDBKeyedStateBackend<?> backend) throws ReflectiveOperationException {
        return (RocksDB) field("db").get(backend);
    }

    /** The column family of the keyed state {@code name} (registered when the operator opened it). */
    static ColumnFamilyHandle family(RocksDBKeyedStateBackend<?> backend, String name)
            throws ReflectiveOperationException {
        Object info = ((Map<?, ?>) field("kvStateInformation").get(backend)).get(name);
        if (info == null) {
            throw new IllegalStateException("no keyed state '" + name + "' to compact");
        }
        return ((RocksDBKeyedStateBackend.RocksDbKvStateInfo) info).columnFamilyHandle;
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field field = RocksDBKeyedStateBackend.class.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
