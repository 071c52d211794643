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

    @Test
    void fingerprintCoversTrainersAndStartEpochButOneTrainerFromEpochZeroKeepsItsOldFingerprint() {
        SeedSet seeds = SeedSet.of(100, 5, 9, 11, 42, 77);
        String base = new BatchPlan(seeds, 4, true, false, 3, 7L).fingerprint();
        // Partitioned jobs' uids carry it: an unchanged one-trainer job still restores its savepoints.
        assertThat(new BatchPlan(seeds, 4, true, false, 3, 7L, 1, 0).fingerprint()).isEqualTo(base);
        assertThat(List.of(
                new BatchPlan(seeds, 4, true, false, 3, 7L, 2, 0).fingerprint(),
                new BatchPlan(seeds, 4, true, false, 3, 7L, 3, 0).fingerprint(),
                new BatchPlan(seeds, 4, true, false, 3, 7L, 1, 1).fingerprint(),
                new BatchPlan(seeds, 4, true, false, 3, 7L, 2, 2).fingerprint()))
                .doesNotContain(base).doesNotHaveDuplicates();
    }

    /** Batches of one epoch, padding included. */
    private static List<int[]> allBatches(BatchPlan plan, int epoch) {
        List<int[]> batches = new ArrayList<>();
        for (int b = 0; b < plan.numBatches(); b++) {
            batches.add(plan.seedsOf(epoch, b));
        }
        return batches;
    }

    /** The epoch's order: the seeds of its real batches, concatenated (every seed once without drop-last). */
    private static int[] epochOrder(BatchPlan plan, int epoch) {
        int[] order = new int[plan.seeds().size()];
        EpochOrder o = plan.order(epoch);
        for (int b = 0; b < plan.realBatches(); b++) {
            int[] seeds = o.seedsOf(b);
            System.arraycopy(seeds, 0, order, b * plan.batchSize(), seeds.length);
        }
        return order;
    }

    @ParameterizedTest(name = "batch-size {0}, trainers {1}, drop-last {2}: {3} batches, {4} of them padding")
    @CsvSource({
        "256, 2, false, 12, 1", // 10 full + 148: 11 batches, odd, padded to 12
        "256, 2, true, 10, 0", // the short 11th dropped: 10, already even
        "512, 4, false, 8, 2", // 5 full + 148: 6, padded to 8
        "512, 4, true, 4, 0", // 5 full, rounded down to 4: a whole full batch dropped
        "512, 2, false, 6, 0", // 6 already a multiple: nothing padded, nothing changes
        "512, 5, true, 5, 0",
        "1000, 4, false, 4, 1",
        "5000, 3, false, 3, 2", // one batch of every seed; two padding batches repeat it
        "128, 1, false, 22, 0",
    })
    void trainersRoundEveryEpochToAMultipleByPaddingOrDroppingWholeBatches(int batchSize, int trainers,
            boolean dropLast, int expectedBatches, int expectedPadding) {
        for (boolean shuffle : new boolean[] {false, true}) {
            BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), batchSize, shuffle, dropLast, 2, 7L,
                    trainers, 0);
            assertThat(plan.numBatches()).isEqualTo(expectedBatches).isEqualTo(expectedBatches / trainers * trainers);
            assertThat(plan.paddedBatches()).isEqualTo(expectedPadding);
            assertThat(plan.realBatches()).isEqualTo(expectedBatches - expectedPadding);
            for (int epoch = 0; epoch < 2; epoch++) {
                List<int[]> batches = allBatches(plan, epoch);
                int[] real = concat(batches.subList(0, plan.realBatches()));
                assertThat(Arrays.stream(real).distinct().count()).as("no seed twice among the real batches")
                        .isEqualTo(real.length);
                // Padding leaves the real batches as one trainer has them; drop-last drops whole batches only.
                int expectedReal = dropLast ? plan.realBatches() * batchSize : CORA_NODES;
                assertThat(real).hasSize(expectedReal);
                for (int b = 0; b < plan.numBatches(); b++) {
                    assertThat(plan.isPadded(b)).isEqualTo(b >= plan.realBatches());
                    if (plan.isPadded(b)) {
                        assertThat(batches.get(b)).as("a padding batch is full").hasSize(Math.min(batchSize, CORA_NODES));
                    }
                }
            }
        }
    }

    @ParameterizedTest(name = "shuffle {0}")
    @CsvSource({"false", "true"})
    void paddingBatchesTakeSeedsAgainFromTheStartOfTheEpochsOrder(boolean shuffle) {
        // 2708 seeds in batches of 1000: 3 real (the last 708), padded to 5 for 5 trainers. Padding batch j holds
        // slots j*1000.. of the order repeated: the first from slot 0, the second from 1000.
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 1000, shuffle, false, 3, 11L, 5, 0);
        assertThat(plan.numBatches()).isEqualTo(5);
        for (int epoch = 0; epoch < 3; epoch++) {
            int[] order = epochOrder(plan, epoch);
            if (shuffle) {
                assertThat(order).as("the epoch's permutation, not seed order").isNotEqualTo(
                        IntStream.range(0, CORA_NODES).toArray());
            }
            assertThat(plan.seedsOf(epoch, 3)).isEqualTo(Arrays.copyOfRange(order, 0, 1000))
                    .isEqualTo(plan.seedsOf(epoch, 0));
            assertThat(plan.seedsOf(epoch, 4)).isEqualTo(Arrays.copyOfRange(order, 1000, 2000));
            // Input ids stay the seeds' positions in the seed list (all nodes: the ids themselves).
            assertThat(plan.order(epoch).inputIdsOf(4)).isEqualTo(plan.seedsOf(epoch, 4));
        }
    }

    @Test
    void paddingWrapsAroundTheOrderWhenTheSeedsAreFewerThanThePadding() {
        // 7 seeds, batches of 3, 6 trainers: 3 real batches (3, 3, 1), 3 padding batches of 3 over the order
        // repeated: slots 0-2, 3-5, 6,0,1.
        SeedSet seeds = SeedSet.of(100, 10, 20, 30, 40, 50, 60, 70);
        BatchPlan plan = new BatchPlan(seeds, 3, false, false, 1, 3L, 6, 0);
        assertThat(allBatches(plan, 0)).containsExactly(new int[] {10, 20, 30}, new int[] {40, 50, 60},
                new int[] {70}, new int[] {10, 20, 30}, new int[] {40, 50, 60}, new int[] {70, 10, 20});
        assertThat(plan.order(0).inputIdsOf(5)).containsExactly(6, 0, 1);
        // Fewer seeds than one batch: every padding batch repeats all of them.
        BatchPlan tiny = new BatchPlan(SeedSet.of(100, 8, 9), 4, false, false, 1, 3L, 3, 0);
        assertThat(allBatches(tiny, 0)).containsExactly(new int[] {8, 9}, new int[] {8, 9}, new int[] {8, 9});
    }

    @ParameterizedTest(name = "trainers {0}, shuffle {1}, drop-last {2}")
    @CsvSource({"2, true, false", "4, true, false", "4, false, true", "3, true, true", "7, false, false"})
    void rankSharesAreEqualAndTheirRealSeedsDisjointEveryEpoch(int trainers, boolean shuffle, boolean dropLast) {
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 300, shuffle, dropLast, 3, 21L, trainers, 0);
        for (int epoch = 0; epoch < 3; epoch++) {
            int[] batchesPerRank = new int[trainers];
            int[] rankOfSeed = new int[CORA_NODES];
            Arrays.fill(rankOfSeed, -1);
            for (int b = 0; b < plan.numBatches(); b++) {
                int rank = plan.rankOf(b);
                assertThat(rank).isEqualTo(b % trainers);
                batchesPerRank[rank]++;
                if (plan.isPadded(b)) {
                    continue;
                }
                for (int seed : plan.seedsOf(epoch, b)) {
                    assertThat(rankOfSeed[seed]).as("seed %d of epoch %d in two real batches", seed, epoch)
                            .isEqualTo(-1);
                    rankOfSeed[seed] = rank;
                }
            }
            assertThat(batchesPerRank).as("every rank gets the same number of batches")
                    .containsOnly(plan.numBatches() / trainers);
        }
    }

    @ParameterizedTest(name = "batch-size {0}, trainers {1}, shuffle {2}, drop-last {3}")
    @CsvSource({"3, 6, false, false", "4, 3, true, false", "8, 4, true, false", "3, 2, true, true",
            "1000, 5, true, false"})
    void everyPlaceOfEverySeedRebuildsTheBatches(int batchSize, int trainers, boolean shuffle, boolean dropLast) {
        // What the partitioned store's seed-file reader does: meet every seed once, place it with forEachPlace,
        // and the keyed assembler must get exactly the batches the plan computes.
        int n = batchSize == 1000 ? CORA_NODES : 7;
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(n), batchSize, shuffle, dropLast, 2, 5L, trainers, 0);
        for (int epoch = 0; epoch < 2; epoch++) {
            EpochOrder order = plan.order(epoch);
            int[][] rebuilt = new int[plan.numBatches()][];
            for (int b = 0; b < plan.numBatches(); b++) {
                rebuilt[b] = new int[plan.batchLength(b)];
                Arrays.fill(rebuilt[b], -1);
            }
            for (int position = 0; position < n; position++) {
                int p = position;
                plan.forEachPlace(order.slotOf(position), (batch, index) -> {
                    assertThat(rebuilt[batch][index]).as("place %d of batch %d filled twice", index, batch)
                            .isEqualTo(-1);
                    rebuilt[batch][index] = p;
                });
            }
            for (int b = 0; b < plan.numBatches(); b++) {
                assertThat(rebuilt[b]).as("epoch %d batch %d", epoch, b).isEqualTo(order.inputIdsOf(b));
            }
        }
    }

    @Test
    void aLaterStartEpochHasTheSameBatchesAsTheFullRun() {
        BatchPlan full = new BatchPlan(SeedSet.allNodes(CORA_NODES), 256, true, false, 4, 9L, 2, 0);
        BatchPlan replay = new BatchPlan(SeedSet.allNodes(CORA_NODES), 256, true, false, 4, 9L, 2, 2);
        assertThat(replay.startEpoch()).isEqualTo(2);
        assertThat(replay.epochs()).as("epochs keep their numbers").isEqualTo(4);
        assertThat(replay.totalBatches()).isEqualTo(2L * 12);
        assertThat(full.totalBatches()).isEqualTo(4L * 12);
        for (int epoch = 2; epoch < 4; epoch++) {
            for (int b = 0; b < full.numBatches(); b++) {
                assertThat(replay.batch(epoch, b)).isEqualTo(full.batch(epoch, b));
            }
        }
    }

    @Test
    void invalidTrainersOrStartEpochNameTheOption() {
        SeedSet seeds = SeedSet.allNodes(CORA_NODES);
        assertThatThrownBy(() -> new BatchPlan(seeds, 16, false, false, 1, 0L, 0, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trainers").hasMessageContaining("0");
        assertThatThrownBy(() -> new BatchPlan(seeds, 16, false, false, 3, 0L, 1, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("start-epoch")
                .hasMessageContaining("0..2").hasMessageContaining("got 3");
        assertThatThrownBy(() -> new BatchPlan(seeds, 16, false, false, 3, 0L, 1, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("start-epoch");
        // 2708 / 1000 = 2 full batches: fewer than one per trainer for 3 trainers.
        assertThatThrownBy(() -> new BatchPlan(seeds, 1000, false, true, 1, 0L, 3, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("drop-last")
                .hasMessageContaining("trainers 3").hasMessageContaining("2 full batches");
        assertThat(new BatchPlan(seeds, 1000, false, false, 1, 0L, 3, 0).numBatches()).as("padding instead").isEqualTo(3);
    }
}
