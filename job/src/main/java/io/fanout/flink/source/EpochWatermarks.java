package io.fanout.flink.source;

import io.fanout.batch.SeedBatch;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Epochs as event time: a batch's timestamp is its epoch, and a reader's watermark moves to
 * {@code e - 1} when it emits its first batch of epoch {@code e}.
 *
 * <p>Sound because the enumerator hands out splits in epoch order: once a reader has a split of
 * epoch {@code e}, it never gets one of an earlier epoch, so it has emitted everything of epochs
 * before {@code e}. Downstream, the minimum over readers (Flink's watermark combination) says which
 * epochs are complete for the whole job; at the end of input Flink sends {@code Long.MAX_VALUE}. The
 * channel sink turns this into END_OF_EPOCH.
 */
public final class EpochWatermarks implements WatermarkGenerator<SeedBatch> {
    private long emitted = Long.MIN_VALUE;

    /** The strategy to pass to {@code env.fromSource(new SeedBatchSource(plan), EpochWatermarks.strategy(), ...)}. */
    public static WatermarkStrategy<SeedBatch> strategy() {
        return WatermarkStrategy.<SeedBatch>forGenerator(context -> new EpochWatermarks())
                .withTimestampAssigner((batch, previous) -> batch.epoch);
    }

    @Override
    public void onEvent(SeedBatch batch, long eventTimestamp, WatermarkOutput output) {
        long complete = (long) batch.epoch - 1;
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
