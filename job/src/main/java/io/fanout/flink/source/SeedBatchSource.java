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

    public SeedBatchSource(BatchPlan plan) {
        if (plan == null) {
            throw new IllegalArgumentException("plan must be given");
        }
        this.plan = plan;
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
        return new SeedBatchReader(readerContext, plan);
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
