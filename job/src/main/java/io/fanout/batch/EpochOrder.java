package io.fanout.batch;

/**
 * The seed order of one epoch of a {@link BatchPlan}: a seeded {@link SeedPermutation} of the seed positions,
 * or the seed set's own order when the plan does not shuffle. Immutable and O(1) in size, whatever the seeds.
 */
public final class EpochOrder {
    private final BatchPlan plan;
    private final int epoch;
    /** The epoch's permutation of seed positions (indices into the seed set), or null for seed order. */
    private final SeedPermutation permuted;

    EpochOrder(BatchPlan plan, int epoch, SeedPermutation permuted) {
        this.plan = plan;
        this.epoch = epoch;
        this.permuted = permuted;
    }

    public int epoch() {
        return epoch;
    }

    /**
     * The slot of the epoch's order that seed position {@code position} fills (the inverse of the order): slot
     * {@code s} is place {@code s % batchSize} of batch {@code s / batchSize}, dropped when that batch is past the
     * last ({@code drop_last}), and again a place of each padding batch that takes it
     * ({@link BatchPlan#forEachPlace}).
     */
    public long slotOf(int position) {
        return permuted == null ? position : permuted.slotOf(position);
    }

    /** The seeds of batch {@code batchId} of this epoch, as a new array. */
    public int[] seedsOf(int batchId) {
        return seedsAt(inputIdsOf(batchId));
    }

    /**
     * Batch {@code batchId} of this epoch as the seed source emits it: its seeds and their input positions, each
     * slot's position computed once.
     */
    public SeedBatch batch(int batchId) {
        int[] positions = inputIdsOf(batchId);
        return new SeedBatch(epoch, batchId, plan.numBatches(), seedsAt(positions), positions);
    }

    /** The seeds at these positions of the seed set. */
    private int[] seedsAt(int[] positions) {
        SeedSet seeds = plan.seeds();
        if (seeds.isAllNodes()) {
            return positions.clone(); // every node in id order: a seed is its position
        }
        int[] out = new int[positions.length];
        for (int i = 0; i < positions.length; i++) {
            out[i] = seeds.get(positions[i]);
        }
        return out;
    }

    /**
     * The positions in the seed set of batch {@code batchId}'s seeds, in batch order (PyG's {@code input_id}:
     * which of the loader's input nodes each seed is).
     */
    public int[] inputIdsOf(int batchId) {
        int[] out = new int[plan.batchLength(batchId)];
        if (permuted == null) {
            for (int i = 0; i < out.length; i++) {
                out[i] = (int) plan.slotAt(batchId, i);
            }
            return out;
        }
        long[] slots = new long[out.length];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = plan.slotAt(batchId, i);
        }
        permuted.positionsAt(slots, slots.length, out);
        return out;
    }
}
