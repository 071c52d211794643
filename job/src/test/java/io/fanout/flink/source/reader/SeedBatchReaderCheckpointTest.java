package io.fanout.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedSet;
import io.fanout.flink.source.LocalSourceRun;
import io.fanout.flink.source.SeedBatchSource;
import io.fanout.flink.source.split.SeedBatchSplit;
import io.fanout.flink.source.split.SeedBatchSplitSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class SeedBatchReaderCheckpointTest {
    private static final int CORA_NODES = 2708;
    /** cora, batch size 100, shuffled, 3 epochs: 28 batches per epoch (the last has 8 seeds), 84 in all. */
    private static final BatchPlan PLAN = new BatchPlan(SeedSet.allNodes(CORA_NODES), 100, true, false, 3, 2024L);

    /** Every batch of the plan, each exactly once, with exactly the plan's seeds. */
    private static void assertIsWholePlanOnce(List<SeedBatch> batches) {
        List<SeedBatch> expected = new ArrayList<>();
        for (int e = 0; e < PLAN.epochs(); e++) {
            for (int b = 0; b < PLAN.numBatches(); b++) {
                expected.add(PLAN.batch(e, b));
            }
        }
        assertThat(batches).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static List<SeedBatch> batches(List<LocalSourceRun.Emitted<SeedBatch>> emitted) {
        return emitted.stream().map(LocalSourceRun.Emitted::record).toList();
    }

    static Stream<Arguments> snapshotPoints() {
        // At the start, after one batch, inside a split (13-15: half an epoch), at the split and epoch boundary (28
        // batches/epoch: one split of the epoch at parallelism 1, one of 14 per reader at parallelism 2, whose
        // readers take turns and so both end theirs near 28), just after it, mid-way, just before the end.
        List<Arguments> args = new ArrayList<>();
        for (int parallelism : new int[] {1, 2}) {
            for (int at : new int[] {0, 1, 5, 13, 14, 15, 28, 29, 50, 83, 84}) {
                args.add(Arguments.of(parallelism, at));
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "parallelism {0}, snapshot after {1} batches")
    @MethodSource("snapshotPoints")
    void restoreFromSnapshotEmitsTheRestExactlyOnce(int parallelism, int snapshotAfter) throws Exception {
        SeedBatchSource source = new SeedBatchSource(PLAN);
        LocalSourceRun<SeedBatch> first = LocalSourceRun.start(source, parallelism);
        first.emit(snapshotAfter);
        assertThat(first.emitted).hasSize(snapshotAfter);
        LocalSourceRun.Snapshot snapshot = first.snapshot(1);
        List<SeedBatch> beforeSnapshot = batches(first.emitted);
        // The job goes on a little and then fails: what came after the snapshot is lost.
        first.emit(6);

        LocalSourceRun<SeedBatch> restored = LocalSourceRun.restore(source, parallelism, snapshot);
        restored.runToEnd();
        List<SeedBatch> all = new ArrayList<>(beforeSnapshot);
        all.addAll(batches(restored.emitted));
        assertIsWholePlanOnce(all);
        assertThat(restored.allEnded()).isTrue();
    }

    @Test
    void oneReaderFailsAndItsSplitsComeBackThroughTheEnumerator() throws Exception {
        LocalSourceRun<SeedBatch> run = LocalSourceRun.start(new SeedBatchSource(PLAN), 2);
        run.emit(10);
        run.snapshot(1);
        int atSnapshot = run.emitted.size();
        run.emit(24); // enough for both readers to finish their splits (14 batches) and take new ones after the snapshot
        List<SeedBatch> lost = run.failReader(1, atSnapshot);
        assertThat(lost).as("the failed reader had emitted since the snapshot").isNotEmpty();
        run.runToEnd();
        assertIsWholePlanOnce(batches(run.emitted));
    }

    @Test
    void readerStateIsTheUnfinishedSplitAtTheNextBatch() throws Exception {
        LocalSourceRun<SeedBatch> run = LocalSourceRun.start(new SeedBatchSource(PLAN), 1);
        run.emit(3);
        LocalSourceRun.Snapshot snapshot = run.snapshot(1);
        assertThat(snapshot.readerSplits()).hasSize(1);
        List<byte[]> splits = snapshot.readerSplits().get(0);
        assertThat(splits).hasSize(1);
        SeedBatchSplit split = SeedBatchSplitSerializer.INSTANCE.deserialize(snapshot.splitVersion(), splits.get(0));
        // Parallelism 1: one split per epoch, its 28 batches; 3 of them emitted.
        assertThat(split).isEqualTo(new SeedBatchSplit(0, 0, 28, 3));
        assertThat(run.emitted.get(2).record().batchId).isEqualTo(2);
    }
}
