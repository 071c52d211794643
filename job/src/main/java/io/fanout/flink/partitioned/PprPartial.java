package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.PprBatchPush;
import io.fanout.sampling.ppr.PprStateTooLargeException;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/** A batch between two PPR fetch rounds (a Flink POJO keyed by {@link #batchKey}): its {@code PprBatchPush} state. */
public class PprPartial {
    public long batchKey;
    public int epoch;
    public int batchId;
    public int numBatches;
    /** Seed ids as the batch gave them. */
    public long[] seeds;
    /** Positions of the seeds in the job's seed list (PyG input_id). */
    public int[] inputIds;
    /** {@code PprBatchPush.toBytes()}. */
    public byte[] state;
    /** Lists the batch asked for in the coming round (0 = its pushes are finished). */
    public int pending;
    /** The graph version the batch reads (with graph updates; else 0). */
    public long graphVersion;

    public PprPartial() {}

    /** {@code push.advance(mayFetch)}, refusing a state too large for one batch as {@link #stateOf} does. */
    static long[] advance(PprBatchPush push, boolean mayFetch) {
        try {
            return push.advance(mayFetch);
        } catch (PprStateTooLargeException e) {
            throw new SuppressRestartsException(e);
        }
    }

    /**
     * The push's state as bytes. A state too large for one batch fails the job without restarts, naming the options
     * that bound it: a restart would fail the same way.
     */
    static byte[] stateOf(PprBatchPush push) {
        try {
            return push.toBytes();
        } catch (PprStateTooLargeException e) {
            throw new SuppressRestartsException(e);
        }
    }
}
