package io.fanout.flink.source;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedFile;
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
import org.apache.flink.configuration.ConfigurationUtils;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * The bounded source of seed batches: every batch of every epoch of a {@link BatchPlan} from its start epoch on,
 * exactly once, epochs handed out in order, spread over the parallel readers, resumable from a checkpoint.
 *
 * <p>Use with {@code env.fromSource(new SeedBatchSource(plan), EpochWatermarks.strategy(), "seeds")} so
 * downstream operators learn when an epoch is complete (or {@code WatermarkStrategy.noWatermarks()}).
 *
 * <p>Given a {@link SeedFile} (a plan whose seeds only the workers read, {@code SeedSet.counted}), each reader copies
 * the file once into a local file of 8-byte ids in the TaskManager's {@code io.tmp.dirs} and reads every batch's
 * seeds from it by position, so whole batches can be paced without the client or any heap holding the seeds.
 */
public final class SeedBatchSource implements Source<SeedBatch, SeedBatchSplit, SeedBatchEnumeratorState>,
        ResultTypeQueryable<SeedBatch> {
    private static final long serialVersionUID = 1L;

    /** Flink's POJO type of {@link SeedBatch} (PojoSerializer + int[] serializer, never Kryo). */
    public static final TypeInformation<SeedBatch> TYPE = Types.POJO(SeedBatch.class);

    private final BatchPlan plan;
    /** Cap on batches per second over all readers; 0 for none. */
    private final int maxBatchesPerSecond;
    /** Where the seeds of a counted plan are, or null when the plan holds them. */
    private final SeedFile seedFile;

    public SeedBatchSource(BatchPlan plan) {
        this(plan, 0);
    }

    /** A source handing out at most {@code maxBatchesPerSecond} batches per second in total (0: no cap). */
    public SeedBatchSource(BatchPlan plan, int maxBatchesPerSecond) {
        this(plan, maxBatchesPerSecond, null);
    }

    /**
     * As above, the seeds read from {@code seedFile} on the TaskManagers when it is given: then the plan's seeds must
     * be {@code SeedSet.counted(seedFile)}.
     */
    public SeedBatchSource(BatchPlan plan, int maxBatchesPerSecond, SeedFile seedFile) {
        if (plan == null) {
            throw new IllegalArgumentException("plan must be given");
        }
        if (maxBatchesPerSecond < 0) {
            throw new IllegalArgumentException("maxBatchesPerSecond must be >= 0, got " + maxBatchesPerSecond);
        }
        if (plan.seeds().isCounted() != (seedFile != null)) {
            throw new IllegalArgumentException(seedFile == null
                    ? "the plan's seeds are only counted: give the seed file they are read from"
                    : "a seed file is given, but the plan holds its own seeds");
        }
        if (seedFile != null) {
            plan.seeds().requireCountOf(seedFile);
        }
        this.plan = plan;
        this.maxBatchesPerSecond = maxBatchesPerSecond;
        this.seedFile = seedFile;
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
        SeedBatchReader reader;
        if (seedFile == null) {
            reader = new SeedBatchReader(readerContext, plan);
        } else {
            String[] dirs = ConfigurationUtils.parseTempDirectories(readerContext.getConfiguration());
            java.nio.file.Path dir = java.nio.file.Path.of(dirs[readerContext.getIndexOfSubtask() % dirs.length]);
            reader = new SeedBatchReader(readerContext, plan, seedFile, dir);
        }
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
        return restoreEnumerator(enumContext, SeedBatchEnumeratorState.startingAt(plan.startEpoch()));
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
