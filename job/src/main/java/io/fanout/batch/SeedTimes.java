package io.fanout.batch;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Each seed's time for temporal sampling: one time for every seed ({@code --seed-time}) or a time per input position
 * (a seed file's second column), looked up for a batch by its seeds' input positions.
 */
public final class SeedTimes implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Long every;
    private final long[] byInputPosition;

    private SeedTimes(Long every, long[] byInputPosition) {
        this.every = every;
        this.byInputPosition = byInputPosition;
    }

    /** Every seed at {@code time}. */
    public static SeedTimes every(long time) {
        return new SeedTimes(time, null);
    }

    /** Seed {@code i} of the job's seed list at {@code times[i]}. */
    public static SeedTimes byInputPosition(long[] times) {
        return new SeedTimes(null, times.clone());
    }

    /** The time of each of the batch's seeds, in batch order. */
    public long[] of(SeedBatch batch) {
        long[] times = new long[batch.seeds.length];
        if (every != null) {
            Arrays.fill(times, every);
            return times;
        }
        for (int i = 0; i < times.length; i++) {
            times[i] = byInputPosition[batch.inputIds[i]];
        }
        return times;
    }
}
