package io.fanout.flink.source.enumerator;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedSet;
import io.fanout.flink.source.LocalSourceRun;
import io.fanout.flink.source.SeedBatchSource;
import io.fanout.flink.source.split.SeedBatchSplit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SeedBatchEnumeratorTest {
    private static final int CORA_NODES = 2708;

    /** Records what the enumerator assigns, in order; -1 marks "no more splits". */
    private static final class RecordingContext implements SplitEnumeratorContext<SeedBatchSplit> {
        final int parallelism;
        final List<SeedBatchSplit> assigned = new ArrayList<>();
        final List<Integer> assignedTo = new ArrayList<>();
        final Set<Integer> noMoreSplits = new HashSet<>();

        RecordingContext(int parallelism) {
            this.parallelism = parallelism;
        }

        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            return UnregisteredMetricsGroup.createSplitEnumeratorMetricGroup();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {}

        @Override
        public int currentParallelism() {
            return parallelism;
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            return Map.of();
        }

        @Override
        public void assignSplits(SplitsAssignment<SeedBatchSplit> assignment) {
            assignment.assignment().forEach((subtask, splits) -> {
                assigned.addAll(splits);
                splits.forEach(s -> assignedTo.add(subtask));
            });
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            noMoreSplits.add(subtask);
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {}

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler, long delay, long period) {}

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            runnable.run();
        }
    }

    @Test
    void batchSplitsAreOnePerReaderPerEpochAndFileChunkSplitsSeveral() {
        // cora with batch size 4: 677 batches per epoch.
        assertThat(SeedBatchEnumerator.batchesPerSplit(677, 2)).isEqualTo(339); // 2 splits per epoch
        assertThat(SeedBatchEnumerator.batchesPerSplit(677, 1)).isEqualTo(677); // the whole epoch
        assertThat(SeedBatchEnumerator.batchesPerSplit(1, 2)).isEqualTo(1); // fewer batches than readers
        assertThat(SeedBatchEnumerator.batchesPerSplit(Integer.MAX_VALUE, 1)).isPositive();
        // A seed file's chunks: 4 splits per reader per epoch.
        assertThat(SeedBatchEnumerator.unitsPerSplit(677, 2, SeedBatchEnumerator.CHUNK_SPLITS_PER_READER_PER_EPOCH))
                .isEqualTo(85);
        assertThat(SeedBatchEnumerator.unitsPerSplit(6, 2, SeedBatchEnumerator.CHUNK_SPLITS_PER_READER_PER_EPOCH))
                .isEqualTo(1);
    }

    @Test
    void assignsEpochsInOrderAndEveryBatchOnceThenSignalsNoMoreSplits() {
        RecordingContext context = new RecordingContext(2);
        SeedBatchEnumerator enumerator = new SeedBatchEnumerator(context, 677, 3, SeedBatchEnumeratorState.initial());
        for (int request = 0; request < 100; request++) {
            enumerator.handleSplitRequest(request % 2, null);
        }
        assertThat(context.assigned).hasSize(6); // 2 splits per epoch (one per reader), 3 epochs
        int previousEpoch = 0;
        int expectedFirst = 0;
        for (SeedBatchSplit split : context.assigned) {
            assertThat(split.epoch()).isGreaterThanOrEqualTo(previousEpoch);
            if (split.epoch() != previousEpoch) {
                assertThat(expectedFirst).as("epoch %d fully assigned before the next", previousEpoch).isEqualTo(677);
                expectedFirst = 0;
                previousEpoch = split.epoch();
            }
            assertThat(split.firstBatch()).as("contiguous, no gap or overlap").isEqualTo(expectedFirst);
            assertThat(split.nextBatch()).isEqualTo(split.firstBatch());
            expectedFirst = split.endBatch();
        }
        assertThat(previousEpoch).isEqualTo(2);
        assertThat(expectedFirst).isEqualTo(677);
        assertThat(context.assignedTo.subList(0, 4)).containsExactly(0, 1, 0, 1);
        assertThat(context.noMoreSplits).containsExactlyInAnyOrder(0, 1);
    }

    @Test
    void splitsHandedBackGoOutFirstInEpochOrder() {
        RecordingContext context = new RecordingContext(2);
        SeedBatchEnumerator enumerator = new SeedBatchEnumerator(context, 6, 3, 1, SeedBatchEnumeratorState.initial());
        for (int i = 0; i < 8; i++) {
            enumerator.handleSplitRequest(0, null); // epoch 0 batches 0..5, epoch 1 batches 0..1
        }
        SeedBatchSplit e1b1 = context.assigned.get(7);
        SeedBatchSplit e0b4 = context.assigned.get(4);
        enumerator.addSplitsBack(List.of(e1b1, e0b4), 1);
        context.assigned.clear();
        enumerator.handleSplitRequest(0, null);
        enumerator.handleSplitRequest(0, null);
        enumerator.handleSplitRequest(0, null);
        assertThat(context.assigned).containsExactly(e0b4, e1b1, SeedBatchSplit.of(1, 2, 3));
    }

    @Test
    void snapshotCarriesCursorAndPendingSplitsSoRestoreContinuesWithoutRepeats() throws Exception {
        RecordingContext before = new RecordingContext(1);
        SeedBatchEnumerator enumerator = new SeedBatchEnumerator(before, 6, 2, 2, SeedBatchEnumeratorState.initial());
        for (int i = 0; i < 4; i++) {
            enumerator.handleSplitRequest(0, null);
        }
        enumerator.addSplitsBack(List.of(before.assigned.get(3)), 0);
        SeedBatchEnumeratorStateSerializer ser = SeedBatchEnumeratorStateSerializer.INSTANCE;
        SeedBatchEnumeratorState state = ser.deserialize(ser.getVersion(), ser.serialize(enumerator.snapshotState(1)));
        // 2 batches per split at parallelism 1: handed out e0[0,2) e0[2,4) e0[4,6) e1[0,2).
        assertThat(state.nextEpoch()).isEqualTo(1);
        assertThat(state.nextBatch()).isEqualTo(2);
        assertThat(state.pendingSplits()).containsExactly(before.assigned.get(3));

        RecordingContext after = new RecordingContext(1);
        SeedBatchEnumerator restored = new SeedBatchEnumerator(after, 6, 2, 2, state);
        for (int i = 0; i < 20; i++) {
            restored.handleSplitRequest(0, null);
        }
        Set<Long> keys = new HashSet<>();
        for (SeedBatchSplit s : before.assigned.subList(0, 3)) {
            keys.add(((long) s.epoch() << 32) | s.firstBatch());
        }
        for (SeedBatchSplit s : after.assigned) {
            assertThat(keys.add(((long) s.epoch() << 32) | s.firstBatch())).as("assigned twice: %s", s).isTrue();
        }
        assertThat(keys).hasSize(6);
        assertThat(after.noMoreSplits).containsExactly(0);
    }

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2, 3})
    void withRealReadersEveryReaderGetsWorkInEveryEpoch(int parallelism) throws Exception {
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 16, true, false, 3, 11L);
        LocalSourceRun<SeedBatch> run = LocalSourceRun.start(new SeedBatchSource(plan), parallelism);
        run.runToEnd();
        assertThat(run.emitted).hasSize(3 * plan.numBatches());
        for (int epoch = 0; epoch < 3; epoch++) {
            for (int subtask = 0; subtask < parallelism; subtask++) {
                int e = epoch;
                int s = subtask;
                assertThat(run.emitted).as("reader %d in epoch %d", s, e)
                        .anyMatch(x -> x.subtask() == s && x.record().epoch == e);
            }
        }
    }
}
