package io.fanout.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedFile;
import io.fanout.batch.SeedSet;
import io.fanout.batch.SeedSlot;
import io.fanout.testing.FailOnceAfterCheckpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The seed file read by the TaskManagers and assembled into batches: a real MiniCluster, real files. */
class SeedFileSourceMiniClusterTest {
    /** The TaskManager's {@code io.tmp.dirs}: where a paced reader copies the seed file. */
    private static final Path TASK_MANAGER_TMP = taskManagerTmp();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2)
                    .setConfiguration(taskManagerConfiguration()).build());

    private static Path taskManagerTmp() {
        try {
            return Files.createTempDirectory("fanout-tm-tmp");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Configuration taskManagerConfiguration() {
        Configuration conf = new Configuration();
        conf.set(org.apache.flink.configuration.CoreOptions.TMP_DIRS, TASK_MANAGER_TMP.toString());
        return conf;
    }

    /** The paced readers' local seed copies left in the TaskManager's temporary directory. */
    private static List<Path> localSeedCopies() throws java.io.IOException {
        try (java.util.stream.Stream<Path> files = Files.list(TASK_MANAGER_TMP)) {
            return files.filter(f -> f.getFileName().toString().startsWith("fanout-seeds-")).toList();
        }
    }

    @TempDir
    Path tmp;

    /** 2,000 seed lines: node id = 7 x line + 1 (so an id names its line), every tenth line twice. */
    private SeedFile seeds(int seedsPerChunk) throws Exception {
        return seeds(seedsPerChunk, false);
    }

    /** As above; {@code timed}: each line gives its seed's time, {@link #timeAt} its position in the file. */
    private SeedFile seeds(int seedsPerChunk, boolean timed) throws Exception {
        StringBuilder text = new StringBuilder();
        int position = 0;
        for (int line = 0; line < 2000; line++) {
            text.append(7L * line + 1).append(timed ? "\t" + timeAt(position++) : "").append('\n');
            if (line % 10 == 0) {
                text.append("# again\n").append(7L * line + 1).append(timed ? "\t" + timeAt(position++) : "")
                        .append('\n');
            }
        }
        return SeedFile.index(Files.writeString(tmp.resolve("seeds.txt"), text), seedsPerChunk);
    }

    /** The time a timed seed file gives the seed at {@code position}: distinct, negative for the first 1,100. */
    private static long timeAt(int position) {
        return (position - 1100) * 1_000_003L;
    }

    /** The ids of the file in order, as the memory store's seed set would hold them. */
    private static long[] idsInOrder() {
        List<Long> ids = new ArrayList<>();
        for (int line = 0; line < 2000; line++) {
            ids.add(7L * line + 1);
            if (line % 10 == 0) {
                ids.add(7L * line + 1);
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    private static StreamExecutionEnvironment env(int parallelism, Configuration extra) {
        Configuration conf = new Configuration();
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.addAll(extra);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return env;
    }

    private static DataStream<SeedBatch> batches(StreamExecutionEnvironment env, SeedFile file, BatchPlan plan) {
        return env.fromSource(new SeedFileSource(file, plan), EpochWatermarks.forSlots(), "seed-file")
                .keyBy(SeedSlot::batchKey, Types.LONG)
                .process(new SeedBatchAssembler(plan, file.timed())).returns(SeedBatchSource.TYPE);
    }

    @SuppressWarnings("try")
    private static <T> List<T> collect(DataStream<T> stream, String name) throws Exception {
        List<T> out = new ArrayList<>();
        try (CloseableIterator<T> it = stream.executeAndCollect(name)) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    /** Every (epoch, batch) exactly once, with the plan's seed positions and the ids at those lines, without times. */
    private static void assertExactlyThePlan(List<SeedBatch> batches, BatchPlan plan) {
        assertExactlyThePlan(batches, plan, false);
    }

    /** As above; {@code timed}: each seed with the time its line gives. */
    private static void assertExactlyThePlan(List<SeedBatch> batches, BatchPlan plan, boolean timed) {
        long[] ids = idsInOrder();
        Map<Long, SeedBatch> byKey = new HashMap<>();
        for (SeedBatch b : batches) {
            assertThat(byKey.put(b.key(), b)).as("batch %d of epoch %d emitted twice", b.batchId, b.epoch).isNull();
            assertThat(b.numBatches).isEqualTo(plan.numBatches());
            int[] positions = plan.order(b.epoch).inputIdsOf(b.batchId);
            assertThat(b.inputIds).isEqualTo(positions);
            for (int i = 0; i < positions.length; i++) {
                assertThat(b.seedIds[i]).isEqualTo(ids[positions[i]]);
            }
            if (timed) {
                assertThat(b.seedTimes).hasSameSizeAs(positions);
                for (int i = 0; i < positions.length; i++) {
                    assertThat(b.seedTimes[i]).isEqualTo(timeAt(positions[i]));
                }
            } else {
                assertThat(b.seedTimes).as("an untimed file's batch has no times").isNull();
            }
        }
        assertThat(byKey).hasSize((int) plan.totalBatches());
    }

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2})
    void everyBatchOfEveryEpochExactlyOnceWithThePlansSeeds(int parallelism) throws Exception {
        SeedFile file = seeds(37);
        assertThat(file.numSeeds()).isEqualTo(2200);
        // 2200 / 64 = 34 full batches, the short 35th dropped, shuffled, 3 epochs: 102 batches.
        BatchPlan plan = new BatchPlan(SeedSet.counted(file), 64, true, true, 3, 77L);
        assertExactlyThePlan(collect(batches(env(parallelism, new Configuration()), file, plan), "p" + parallelism),
                plan);
    }

    /**
     * A paced job's source: whole batches over time, each batch's seeds read by position from a local copy of the
     * file, so shuffled batches are paced too (the seed file's readers complete them all at an epoch's end).
     */
    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2})
    void aPacedSourceReadsEachBatchsSeedsFromALocalCopyOfTheFileAtThePace(int parallelism) throws Exception {
        SeedFile file = seeds(37);
        BatchPlan plan = new BatchPlan(SeedSet.counted(file), 64, true, true, 3, 77L);
        StreamExecutionEnvironment env = env(parallelism, new Configuration());
        long start = System.nanoTime();
        List<SeedBatch> batches = collect(env.fromSource(new SeedBatchSource(plan, 40, file),
                EpochWatermarks.strategy(), "paced"), "paced p" + parallelism);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertExactlyThePlan(batches, plan);
        // 102 batches at 40 per second take over 2.5 s however fast the machine (a lower bound only).
        assertThat(seconds).as("the pace holds").isGreaterThan(2.0);
        assertThat(localSeedCopies()).as("every reader deleted its copy").isEmpty();
    }

    /**
     * Trainers' padding batches from a later start epoch, through the seed file's readers (which meet each seed once
     * and place it in every batch that takes it) and through a paced job's readers (which read batches by position).
     */
    @ParameterizedTest(name = "paced {0}")
    @ValueSource(booleans = {false, true})
    void paddingBatchesFromALaterStartEpochAreThePlans(boolean paced) throws Exception {
        SeedFile file = seeds(37);
        // 2200 seeds in batches of 1000: 3 real batches (the last of 200), padded to 7 for 7 trainers; the padding's
        // 4000 places wrap around the 2200-seed order, so some seeds fill three places of an epoch.
        BatchPlan plan = new BatchPlan(SeedSet.counted(file), 1000, true, false, 3, 77L, 7, 1);
        assertThat(plan.paddedBatches()).isEqualTo(4);
        StreamExecutionEnvironment env = env(2, new Configuration());
        DataStream<SeedBatch> batches = paced
                ? env.fromSource(new SeedBatchSource(plan, 0, file), EpochWatermarks.strategy(), "paced")
                : batches(env, file, plan);
        List<SeedBatch> collected = collect(batches, "padded");
        assertExactlyThePlan(collected, plan);
        assertThat(collected).as("epochs 1 and 2 only").allMatch(b -> b.epoch >= 1);
        assertThat(localSeedCopies()).isEmpty();
    }

    /**
     * A timed seed file: every batch carries each seed's time from its line (the seed's input position), through the
     * seed file's readers and the assembler's keyed state, and through a paced job's local copy; trainers' padding
     * batches take their seeds' times again.
     */
    @ParameterizedTest(name = "paced {0}")
    @ValueSource(booleans = {false, true})
    void aTimedSeedFileGivesEveryBatchItsSeedsTimes(boolean paced) throws Exception {
        assertThat(((org.apache.flink.api.java.typeutils.PojoTypeInfo<SeedSlot>) SeedFileSource.TYPE)
                .getFieldIndex("time")).as("the slot's time is a POJO field").isNotNegative();
        assertThat(((org.apache.flink.api.java.typeutils.PojoTypeInfo<SeedBatch>) SeedBatchSource.TYPE)
                .getFieldIndex("seedTimes")).isNotNegative();
        SeedFile file = seeds(37, true);
        assertThat(file.timed()).isTrue();
        // 2200 seeds in batches of 64: 35 batches (the last of 24), padded to 36 for 3 trainers.
        BatchPlan plan = new BatchPlan(SeedSet.counted(file), 64, true, false, 2, 77L, 3, 0);
        assertThat(plan.paddedBatches()).isEqualTo(1);
        StreamExecutionEnvironment env = env(2, new Configuration());
        DataStream<SeedBatch> batches = paced
                ? env.fromSource(new SeedBatchSource(plan, 0, file), EpochWatermarks.strategy(), "paced")
                : batches(env, file, plan);
        assertExactlyThePlan(collect(batches, "timed"), plan, true);
        assertThat(localSeedCopies()).isEmpty();
    }

    /** The seed file's readers, and a paced job's readers copying it, alike. */
    @ParameterizedTest(name = "paced {0}")
    @ValueSource(booleans = {false, true})
    void aSeedFileChangedAfterPlanningFailsTheJobAtOnceNamingItWithoutRestarts(boolean paced) throws Exception {
        SeedFile file = seeds(100);
        BatchPlan plan = new BatchPlan(SeedSet.counted(file), 64, false, false, 1, 1L);
        Files.writeString(tmp.resolve("seeds.txt"), "1\n2\n");
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1000);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(10));
        long start = System.nanoTime();
        StreamExecutionEnvironment env = env(2, conf);
        DataStream<SeedBatch> batches = paced
                ? env.fromSource(new SeedBatchSource(plan, 10, file), EpochWatermarks.strategy(), "paced")
                : batches(env, file, plan);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> collect(batches, "changed"))
                .satisfies(e -> assertThat(org.apache.flink.util.ExceptionUtils.stringifyException(e))
                        .contains(tmp.resolve("seeds.txt").toString()).contains("changed after the job was planned"));
        // 1,000 restarts 10 ms apart would take over 10 s.
        assertThat((System.nanoTime() - start) / 1e9).isLessThan(10);
    }

    /**
     * A failover after a checkpoint: the seed file's readers and the half-assembled batches, or a paced job's readers
     * (each with its local copy of the file), resume so that every batch is out exactly once.
     */
    @ParameterizedTest(name = "paced {0}")
    @ValueSource(booleans = {false, true})
    void failoverAfterACheckpointRestoresEveryBatchExactlyOnce(boolean paced) throws Exception {
        FailOnceAfterCheckpoint.reset();
        SeedFile file = seeds(50, true); // timed: the assembler's checkpointed slots keep their times
        // Batches of 10, 12 epochs: 2,640 batches at 5 ms each, over 6 s per subtask, so a checkpoint completes
        // mid-stream even on a busy machine; chunks of 50 (44 per epoch) spread over both readers.
        BatchPlan plan = new BatchPlan(SeedSet.counted(file), 10, true, false, 12, 5L);
        StreamExecutionEnvironment env = env(2, FailOnceAfterCheckpoint.restartOnce());
        env.enableCheckpointing(50);
        DataStream<SeedBatch> batches = paced
                ? env.fromSource(new SeedBatchSource(plan, 0, file), EpochWatermarks.strategy(), "paced")
                : batches(env, file, plan);
        List<SeedBatch> collected = collect(batches.map(FailOnceAfterCheckpoint.<SeedBatch>slow(5))
                .returns(SeedBatchSource.TYPE), "failover");
        assertThat(FailOnceAfterCheckpoint.FAILED).as("the injected failure happened").isTrue();
        assertThat(FailOnceAfterCheckpoint.SEEN_AFTER_RESTART.get()).isPositive();
        assertExactlyThePlan(collected, plan, true);
        assertThat(localSeedCopies()).isEmpty();
    }
}
