package io.fanout.flink.source;

import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedSlot;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Epochs as event time: a batch's (or seed slot's) timestamp is its epoch, and a reader's watermark moves to
 * {@code e - 1} when it emits its first record of epoch {@code e}.
 *
 * <p>Sound because the enumerator hands out splits in epoch order: once a reader has a split of
 * epoch {@code e}, it never gets one of an earlier epoch, so it has emitted everything of epochs
 * before {@code e}. Downstream, the minimum over readers (Flink's watermark combination) says which
 * epochs are complete for the whole job; at the end of input Flink sends {@code Long.MAX_VALUE}. The
 * channel sink turns this into END_OF_EPOCH.
 */
public final class EpochWatermarks<T> implements WatermarkGenerator<T> {
    private long emitted = Long.MIN_VALUE;

    /** The strategy to pass to {@code env.fromSource(new SeedBatchSource(plan), EpochWatermarks.strategy(), ...)}. */
    public static WatermarkStrategy<SeedBatch> strategy() {
        return WatermarkStrategy.<SeedBatch>forGenerator(context -> new EpochWatermarks<>())
                .withTimestampAssigner((batch, previous) -> batch.epoch);
    }

    /** The same for the seed file source, whose readers emit the epoch's seeds one {@link SeedSlot} at a time. */
    public static WatermarkStrategy<SeedSlot> forSlots() {
        return WatermarkStrategy.<SeedSlot>forGenerator(context -> new EpochWatermarks<>())
                .withTimestampAssigner((slot, previous) -> slot.epoch);
    }

    @Override
    public void onEvent(T record, long eventTimestamp, WatermarkOutput output) {
        long complete = eventTimestamp - 1;
        if (complete > emitted) {
            emitted = complete;
            output.emitWatermark(new Watermark(complete));
        }
    }

    @Override
    public void onPeriodicEmit(WatermarkOutput output) {
        // Watermarks move only when a reader reaches a new epoch.
    }
}
