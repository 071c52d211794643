package io.fanout.flink.partitioned;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts a lookup operator's loaded keyed state once its load input has ended, so each later point read finds
 * one value in one sorted run.
 *
 * <p>Why: the load appends a node's edge groups as RocksDB merges (blind writes), one per split buffer the node
 * appears in, so right after the load a node's value is scattered over many merge operands in many sorted runs,
 * and every read of a node not yet in the head cache gathers and merges them (half the lookup threads' time in
 * R-MAT 2^20's first epoch). One full compaction of the loaded column families merges them once. It runs on the
 * task thread (Flink's {@code compactState}: no checkpoint of this subtask completes meanwhile) before any
 * request is answered; it changes no value, so samples and savepoints are the same with or without it.
 */
public final class LoadCompaction {
    /** Accumulator: milliseconds spent compacting loaded state, summed over the lookup subtasks. */
    public static final String COMPACTION_MS = "fanout.partitioned-compaction-ms";
    private static final Logger LOG = LoggerFactory.getLogger(LoadCompaction.class);

    private LoadCompaction() {}

    /**
     * Compacts {@code states} of {@code operator}'s keyed backend when it is RocksDB (a heap or changelog backend
     * has nothing to merge or no handle to compact: skipped) and adds the time to {@link #COMPACTION_MS}.
     */
    static void compact(AbstractStreamOperator<?> operator, String what, StateDescriptor<?, ?>... states)
            throws Exception {
        if (!(operator.getKeyedStateBackend() instanceof RocksDBKeyedStateBackend<?> rocks)) {
            LOG.info("{}: keyed state backend is not RocksDB, loaded state not compacted", what);
            return;
        }
        long start = System.nanoTime();
        for (StateDescriptor<?, ?> state : states) {
            rocks.compactState(state);
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        LongCounter counter = operator.getRuntimeContext().getLongCounter(COMPACTION_MS);
        counter.add(ms);
        LOG.info("{}: loaded state compacted in {} ms (--partitioned.compact-after-load)", what, ms);
    }
}
