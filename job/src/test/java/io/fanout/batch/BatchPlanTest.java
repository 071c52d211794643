package io.fanout.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.random.SplitMix64;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BatchPlanTest {
    /** Nodes of cora (../shared/data/cora), the graph the batch sizes below are chosen for. */
    private static final int CORA_NODES = 2708;

    private static List<int[]> epochBatches(BatchPlan plan, int epoch) {
        List<int[]> batches = new ArrayList<>();
        for (int b = 0; b < plan.numBatches(); b++) {
            batches.add(plan.seedsOf(epoch, b));
        }
        return batches;
    }

    private static int[] concat(List<int[]> batches) {
        return batches.stream().flatMapToInt(Arrays::stream).toArray();
    }

    @ParameterizedTest(name = "batch-size {0}, drop-last {1}: {2} batches, last has {3}")
    @CsvSource({
        "512, false, 6, 148", // 5 full + remainder 148
        "512, true, 5, 512",
        "4, false, 677, 4", // no remainder: drop-last changes nothing
        "4, true, 677, 4",
        "2708, false, 1, 2708",
        "5000, false, 1, 2708",
        "1, true, 2708, 1",
    })
    void batchesPerEpochFollowFloorPlusRemainderUnlessDropLast(int batchSize, boolean dropLast, int expectedBatches,
            int lastBatchSize) {
        for (boolean shuffle : new boolean[] {false, true}) {
            BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), batchSize, shuffle, dropLast, 3, 7L);
            assertThat(plan.numBatches()).isEqualTo(expectedBatches);
            assertThat(plan.totalBatches()).isEqualTo(3L * expectedBatches);
            for (int epoch = 0; epoch < 3; epoch++) {
                List<int[]> batches = epochBatches(plan, epoch);
                for (int b = 0; b < batches.size() - 1; b++) {
                    assertThat(batches.get(b)).hasSize(Math.min(batchSize, CORA_NODES));
                }
                assertThat(batches.get(batches.size() - 1)).hasSize(lastBatchSize);
            }
        }
    }

    @ParameterizedTest(name = "shuffle {0}, drop-last {1}")
    @CsvSource({"false, false", "true, false", "false, true", "true, true"})
    void everySeedAtMostOncePerEpochAndAllUnlessDropped(boolean shuffle, boolean dropLast) {
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 100, shuffle, dropLast, 4, 42L);
        for (int epoch = 0; epoch < plan.epochs(); epoch++) {
            int[] all = concat(epochBatches(plan, epoch));
            assertThat(Arrays.stream(all).distinct().count()).as("no seed twice in epoch %d", epoch).isEqualTo(all.length);
            assertThat(Arrays.stream(all)).allMatch(id -> id >= 0 && id < CORA_NODES);
            // drop-last drops the 8 seeds that would make the short 28th batch.
            assertThat(all).hasSize(dropLast ? 2700 : CORA_NODES);
        }
    }

    @Test
    void withoutShuffleBatchesFollowSeedOrderEveryEpoch() {
        SeedSet seeds = SeedSet.of(CORA_NODES, 2707, 5, 9, 1, 1000, 33, 0);
        BatchPlan plan = new BatchPlan(seeds, 3, false, false, 2, 99L);
        for (int epoch = 0; epoch < 2; epoch++) {
            assertThat(epochBatches(plan, epoch)).containsExactly(
                    new int[] {2707, 5, 9}, new int[] {1, 1000, 33}, new int[] {0});
        }
        BatchPlan all = new BatchPlan(SeedSet.allNodes(CORA_NODES), 512, false, false, 1, 99L);
        assertThat(concat(epochBatches(all, 0))).isEqualTo(IntStream.range(0, CORA_NODES).toArray());
    }

    @Test
    void shuffleIsDeterministicForTheSameSeedAndOptions() {
        BatchPlan a = new BatchPlan(SeedSet.allNodes(CORA_NODES), 64, true, false, 3, 1234L);
        BatchPlan b = new BatchPlan(SeedSet.allNodes(CORA_NODES), 64, true, false, 3, 1234L);
        for (int epoch = 0; epoch < 3; epoch++) {
            // b walks the batches backwards: the result must not depend on the order of the calls.
            for (int batch = a.numBatches() - 1; batch >= 0; batch--) {
                assertThat(b.seedsOf(epoch, batch)).isEqualTo(a.seedsOf(epoch, batch));
            }
        }
    }

    @Test
    void shuffleDiffersAcrossEpochsAndSeedsAndFromSeedOrder() {
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 2708, true, false, 2, 1234L);
        BatchPlan otherSeed = new BatchPlan(SeedSet.allNodes(CORA_NODES), 2708, true, false, 2, 1235L);
        int[] epoch0 = plan.seedsOf(0, 0);
        int[] epoch1 = plan.seedsOf(1, 0);
        int[] identity = IntStream.range(0, CORA_NODES).toArray();
        assertThat(epoch0).isNotEqualTo(identity);
        assertThat(epoch1).isNotEqualTo(epoch0);
        assertThat(otherSeed.seedsOf(0, 0)).isNotEqualTo(epoch0);
        // A real shuffle moves almost every seed: few fixed points (about 1 expected).
        long fixed = IntStream.range(0, CORA_NODES).filter(i -> epoch0[i] == i).count();
        assertThat(fixed).isLessThan(10);
        assertThat(epoch0).containsExactlyInAnyOrder(identity);
    }

    @Test
    void shuffleIsTheSeedPermutationKeyedByJobSeedEpochAndTag() {
        // Pins the documented recipe, so another implementation (e.g. the distributed seed reader) reproduces it.
        int[] seeds = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110};
        BatchPlan plan = new BatchPlan(SeedSet.of(200, seeds), 4, true, false, 3, -5L);
        for (int epoch = 0; epoch < 3; epoch++) {
            SeedPermutation perm = new SeedPermutation(seeds.length, SplitMix64.seed(-5L, epoch, BatchPlan.SHUFFLE_TAG));
            int[] expected = new int[seeds.length];
            for (int slot = 0; slot < seeds.length; slot++) {
                expected[slot] = seeds[(int) perm.positionAt(slot)];
            }
            assertThat(concat(epochBatches(plan, epoch))).isEqualTo(expected);
        }
    }

    @Test
    void shufflePutsEverySeedFirstAboutEquallyOften() {
        // 10 seeds over 20,000 epochs: each should lead about 2,000 times (sd ~42); a biased swap
        // (e.g. j drawn from [0, n) instead of [0, i]) skews this far beyond 300.
        int epochs = 20_000;
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(10), 10, true, false, epochs, 3L);
        int[] firstCounts = new int[10];
        for (int epoch = 0; epoch < epochs; epoch++) {
            firstCounts[plan.seedsOf(epoch, 0)[0]]++;
        }
        assertThat(Arrays.stream(firstCounts)).allMatch(c -> Math.abs(c - 2000) < 300);
    }

    @Test
    void epochOrderAndCachedLookupAgreeWhenEpochsInterleave() {
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 300, true, false, 3, 8L);
        EpochOrder e0 = plan.order(0);
        EpochOrder e2 = plan.order(2);
        for (int b = 0; b < plan.numBatches(); b++) {
            // Alternating epochs forces the plan's one-epoch cache to rebuild each time.
            assertThat(plan.seedsOf(2, b)).isEqualTo(e2.seedsOf(b));
            assertThat(plan.seedsOf(0, b)).isEqualTo(e0.seedsOf(b));
        }
        assertThat(e2.epoch()).isEqualTo(2);
    }

    @Test
    void invalidOptionsNameTheOption() {
        SeedSet seeds = SeedSet.allNodes(CORA_NODES);
        assertThatThrownBy(() -> new BatchPlan(seeds, 0, false, false, 1, 0L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batch-size").hasMessageContaining("0");
        assertThatThrownBy(() -> new BatchPlan(seeds, 16, false, false, 0, 0L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("epochs");
        assertThatThrownBy(() -> new BatchPlan(SeedSet.of(CORA_NODES, 1, 2, 3), 4, true, true, 1, 0L))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("batch-size 4")
                .hasMessageContaining("drop-last")
                .hasMessageContaining("3 seeds");
        // The same options without drop-last are fine: one short batch.
        assertThat(new BatchPlan(SeedSet.of(CORA_NODES, 1, 2, 3), 4, true, false, 1, 0L).numBatches()).isEqualTo(1);
    }

    @Test
    void outOfRangeBatchOrEpochIsRejected() {
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 512, false, false, 2, 0L);
        assertThatThrownBy(() -> plan.seedsOf(0, 6)).isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("batch 6");
        assertThatThrownBy(() -> plan.seedsOf(2, 0)).isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining("epoch 2");
        assertThatThrownBy(() -> plan.seedsOf(-1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void fingerprintChangesWithEveryOptionThatChangesTheBatches() {
        SeedSet seeds = SeedSet.of(100, 5, 9, 11, 42);
        String base = new BatchPlan(seeds, 2, true, false, 3, 7L).fingerprint();
        assertThat(new BatchPlan(SeedSet.of(100, 5, 9, 11, 42), 2, true, false, 3, 7L).fingerprint()).isEqualTo(base);
        assertThat(List.of(
                new BatchPlan(SeedSet.of(100, 5, 9, 42, 11), 2, true, false, 3, 7L).fingerprint(),
                new BatchPlan(SeedSet.allNodes(5), 2, true, false, 3, 7L).fingerprint(),
                new BatchPlan(seeds, 3, true, false, 3, 7L).fingerprint(),
                new BatchPlan(seeds, 2, false, false, 3, 7L).fingerprint(),
                new BatchPlan(seeds, 2, true, true, 3, 7L).fingerprint(),
                new BatchPlan(seeds, 2, true, false, 4, 7L).fingerprint(),
                new BatchPlan(seeds, 2, true, false, 3, 8L).fingerprint()))
                .doesNotContain(base).doesNotHaveDuplicates();
    }
}
