package io.fanout.flink.source;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedFile;
import io.fanout.batch.SeedSlot;
import io.fanout.flink.source.enumerator.SeedBatchEnumerator;
import io.fanout.flink.source.enumerator.SeedBatchEnumeratorState;
import io.fanout.flink.source.enumerator.SeedBatchEnumeratorStateSerializer;
import io.fanout.flink.source.reader.SeedFileReader;
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
 * The bounded source of a seed file read on the TaskManagers: every seed of every epoch of a {@link BatchPlan}, once
 * per epoch, as a {@link SeedSlot} placed in its batch; a stage keyed by batch assembles the batches. Neither the
 * client nor the JobManager holds the seeds (the plan keeps their count, the {@link SeedFile} 16 bytes per chunk).
 *
 * <p>Splits are ranges of chunk indices of one epoch, handed out in epoch order by the seed batch source's own
 * enumerator, so {@link EpochWatermarks#forSlots()} tells downstream when an epoch's seeds are all out. A
 * {@code .gz} file, which has no random access, is one split per epoch.
 */
public final class SeedFileSource implements Source<SeedSlot, SeedBatchSplit, SeedBatchEnumeratorState>,
        ResultTypeQueryable<SeedSlot> {
    private static final long serialVersionUID = 1L;

    /** Flink's POJO type of {@link SeedSlot}. */
    public static final TypeInformation<SeedSlot> TYPE = Types.POJO(SeedSlot.class);

    private final SeedFile file;
    private final BatchPlan plan;

    /** The seeds of {@code file} in the batches of {@code plan}, whose seed set is {@code SeedSet.counted(file)}. */
    public SeedFileSource(SeedFile file, BatchPlan plan) {
        plan.seeds().requireCountOf(file);
        this.file = file;
        this.plan = plan;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SourceReader<SeedSlot, SeedBatchSplit> createReader(SourceReaderContext readerContext) {
        return new SeedFileReader(readerContext, file, plan);
    }

    @Override
    public SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState> createEnumerator(
            SplitEnumeratorContext<SeedBatchSplit> enumContext) {
        return restoreEnumerator(enumContext, SeedBatchEnumeratorState.startingAt(plan.startEpoch()));
    }

    @Override
    public SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<SeedBatchSplit> enumContext, SeedBatchEnumeratorState checkpoint) {
        int chunks = file.numChunks();
        int chunksPerSplit = file.isGzip() ? chunks
                : SeedBatchEnumerator.unitsPerSplit(chunks, enumContext.currentParallelism(),
                        SeedBatchEnumerator.CHUNK_SPLITS_PER_READER_PER_EPOCH);
        return new SeedBatchEnumerator(enumContext, chunks, plan.epochs(), chunksPerSplit, checkpoint);
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
    public TypeInformation<SeedSlot> getProducedType() {
        return TYPE;
    }
}
