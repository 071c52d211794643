package io.fanout.batch;

import java.util.Arrays;

/**
 * The seed order of one epoch of a {@link BatchPlan}: a shuffled copy of the seeds, or the seed set
 * itself when the plan does not shuffle. Immutable; built once per epoch and cut into batches.
 */
public final class EpochOrder {
    private final BatchPlan plan;
    private final int epoch;
    /** The epoch's permutation of seed ids, or null for seed order (read from the seed set). */
    private final int[] permuted;

    EpochOrder(BatchPlan plan, int epoch, int[] permuted) {
        this.plan = plan;
        this.epoch = epoch;
        this.permuted = permuted;
    }

    public int epoch() {
        return epoch;
    }

    /** The seeds of batch {@code batchId} of this epoch, as a new array. */
    public int[] seedsOf(int batchId) {
        int from = plan.batchStart(batchId);
        int to = plan.batchEnd(batchId);
        if (permuted == null) {
            return plan.seeds().copyRange(from, to);
        }
        return Arrays.copyOfRange(permuted, from, to);
    }
}
