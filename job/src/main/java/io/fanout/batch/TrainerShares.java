package io.fanout.batch;

import java.io.Serializable;

/**
 * What the sampling operators need of a {@link BatchPlan}'s sharing among data-parallel trainers, in two ints (the
 * plan itself may hold every seed): how many trainers, and from which batch id on a batch is padding.
 */
public final class TrainerShares implements Serializable {
    private static final long serialVersionUID = 1L;

    /** One trainer, no padding: messages carry no trainer keys. */
    public static final TrainerShares ONE = new TrainerShares(1, Integer.MAX_VALUE);

    private final int trainers;
    private final int realBatches;

    private TrainerShares(int trainers, int realBatches) {
        this.trainers = trainers;
        this.realBatches = realBatches;
    }

    /** The shares of {@code plan}'s epochs. */
    public static TrainerShares of(BatchPlan plan) {
        return plan.trainers() == 1 ? ONE
                : new TrainerShares(plan.trainers(), plan.realBatches());
    }

    public int trainers() {
        return trainers;
    }

    /**
     * True when messages carry {@code #META.trainers} and {@code #META.padded}: with more than one trainer. One
     * trainer's messages stay exactly what they were before trainers existed.
     */
    public boolean tagsMessages() {
        return trainers > 1;
    }

    /** True when batch {@code batchId} of an epoch is padding (seeds again from the start of the epoch's order). */
    public boolean isPadded(int batchId) {
        return batchId >= realBatches;
    }

    @Override
    public String toString() {
        return "TrainerShares{trainers=" + trainers + ", padding from batch " + realBatches + "}";
    }
}
