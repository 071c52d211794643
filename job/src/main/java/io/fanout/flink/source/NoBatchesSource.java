package io.fanout.flink.source;

import io.fanout.batch.SeedBatch;
import io.fanout.flink.source.enumerator.SeedBatchEnumeratorState;
import io.fanout.flink.source.enumerator.SeedBatchEnumeratorStateSerializer;
import io.fanout.flink.source.split.SeedBatchSplit;
import io.fanout.flink.source.split.SeedBatchSplitSerializer;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A source of no seed batches that never ends: a load-only job ({@code --partitioned.load-only}) keeps running
 * with its graph loaded until it is stopped with a savepoint ({@code flink stop --savepointPath}). A bounded
 * source would end the job, and a finished job leaves no savepoint to start later jobs from.
 */
public final class NoBatchesSource implements Source<SeedBatch, SeedBatchSplit, SeedBatchEnumeratorState>,
        ResultTypeQueryable<SeedBatch> {
    private static final long serialVersionUID = 1L;

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<SeedBatch, SeedBatchSplit> createReader(SourceReaderContext readerContext) {
        return new IdleReader();
    }

    @Override
    public SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState> createEnumerator(
            SplitEnumeratorContext<SeedBatchSplit> enumContext) {
        return new NoSplits();
    }

    @Override
    public SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<SeedBatchSplit> enumContext, SeedBatchEnumeratorState checkpoint) {
        return new NoSplits();
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
        return SeedBatchSource.TYPE;
    }

    /** Hands out no split, ever. */
    private static final class NoSplits implements SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState> {
        @Override
        public void start() {}

        @Override
        public void handleSplitRequest(int subtaskId, String requesterHostname) {}

        @Override
        public void addSplitsBack(List<SeedBatchSplit> splits, int subtaskId) {}

        @Override
        public void addReader(int subtaskId) {}

        @Override
        public SeedBatchEnumeratorState snapshotState(long checkpointId) {
            return SeedBatchEnumeratorState.initial();
        }

        @Override
        public void close() {}
    }

    /** Never has a record: its availability future never completes (the task waits, checkpoints still run). */
    private static final class IdleReader implements SourceReader<SeedBatch, SeedBatchSplit> {
        private final CompletableFuture<Void> never = new CompletableFuture<>();

        @Override
        public void start() {}

        @Override
        public InputStatus pollNext(ReaderOutput<SeedBatch> output) {
            return InputStatus.NOTHING_AVAILABLE;
        }

        @Override
        public List<SeedBatchSplit> snapshotState(long checkpointId) {
            return Collections.emptyList();
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return never;
        }

        @Override
        public void addSplits(List<SeedBatchSplit> splits) {}

        @Override
        public void notifyNoMoreSplits() {}

        @Override
        public void close() {}
    }
}
