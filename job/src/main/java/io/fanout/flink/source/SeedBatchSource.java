package io.fanout.flink.source;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.flink.source.enumerator.SeedBatchEnumerator;
import io.fanout.flink.source.enumerator.SeedBatchEnumeratorState;
import io.fanout.flink.source.enumerator.SeedBatchEnumeratorStateSerializer;
import io.fanout.flink.source.reader.SeedBatchReader;
import io.fanout.flink.source.split.SeedBatchSplit;
import io.fanout.flink.source.split.SeedBatchSplitSerializer;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimitedSourceReader;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The bounded source of seed batches: every batch of every epoch of a {@link BatchPlan}, exactly
 * once, epochs handed out in order, spread over the parallel readers, resumable from a checkpoint.
 *
 * <p>Use with {@code env.fromSource(new SeedBatchSource(plan), EpochWatermarks.strategy(), "seeds")} so
 * downstream operators learn when an epoch is complete (or {@code WatermarkStrategy.noWatermarks()}).
 */
public final class SeedBatchSource implements Source<SeedBatch, SeedBatchSplit, SeedBatchEnumeratorState>,
        ResultTypeQueryable<SeedBatch> {
    private static final long serialVersionUID = 1L;

    /** Flink's POJO type of {@link SeedBatch} (PojoSerializer + int[] serializer, never Kryo). */
    public static final TypeInformation<SeedBatch> TYPE = Types.POJO(SeedBatch.class);

    private final BatchPlan plan;
    /** Cap on batches per second over all readers; 0 for none. */
    private final int maxBatchesPerSecond;

    public SeedBatchSource(BatchPlan plan) {
        this(plan, 0);
    }

    /** A source handing out at most {@code maxBatchesPerSecond} batches per second in total (0: no cap). */
    public SeedBatchSource(BatchPlan plan, int maxBatchesPerSecond) {
        if (plan == null) {
            throw new IllegalArgumentException("plan must be given");
        }
        if (maxBatchesPerSecond < 0) {
            throw new IllegalArgumentException("maxBatchesPerSecond must be >= 0, got " + maxBatchesPerSecond);
        }
        this.plan = plan;
        this.maxBatchesPerSecond = maxBatchesPerSecond;
    }

    public BatchPlan plan() {
        return plan;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<SeedBatch, SeedBatchSplit> createReader(SourceReaderContext readerContext) {
        SeedBatchReader reader = new SeedBatchReader(readerContext, plan);
        if (maxBatchesPerSecond == 0) {
            return reader;
        }
        // Flink's own limiter: each of the parallel readers gets an equal share of the cap.
        @SuppressWarnings("unchecked") // perSecond is declared with a raw type
        RateLimiterStrategy<SeedBatchSplit> strategy = RateLimiterStrategy.perSecond(maxBatchesPerSecond);
        return new RateLimitedSourceReader<>(reader, strategy.createRateLimiter(readerContext.currentParallelism()));
    }

    @Override
    public SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState> createEnumerator(
            SplitEnumeratorContext<SeedBatchSplit> enumContext) {
        return restoreEnumerator(enumContext, SeedBatchEnumeratorState.initial());
    }

    @Override
    public SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<SeedBatchSplit> enumContext, SeedBatchEnumeratorState checkpoint) {
        return new SeedBatchEnumerator(enumContext, plan.numBatches(), plan.epochs(), checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<SeedBatchSplit> getSplitSerializer() {
        return SeedBatchSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<SeedBatchEnumeratorState> getEnumeratorCheckpointSerializer() {
        return SeedBatchEnumeratorStateSerializer.INSTANCE;
    }

    @Override
    public TypeInformation<SeedBatch> getProducedType() {
        return TYPE;
    }
}
