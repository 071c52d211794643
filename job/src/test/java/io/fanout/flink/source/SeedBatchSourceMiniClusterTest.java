package io.fanout.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedSet;
import io.fanout.testing.FailOnceAfterCheckpoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.java.typeutils.PojoTypeInfo;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SeedBatchSourceMiniClusterTest {
    /** Nodes of cora (../shared/data/cora). */
    private static final int CORA_NODES = 2708;

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static StreamExecutionEnvironment env(int parallelism, Configuration extra) {
        Configuration conf = new Configuration();
        // Any Kryo fallback for SeedBatch would fail the job instead of silently slowing it.
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        conf.addAll(extra);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        return env;
    }

    @SuppressWarnings("try") // CloseableIterator.close() may throw InterruptedException; the test just fails then
    private static List<SeedBatch> collect(DataStream<SeedBatch> stream, String name) throws Exception {
        List<SeedBatch> out = new ArrayList<>();
        try (CloseableIterator<SeedBatch> it = stream.executeAndCollect(name)) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    /** Every (epoch, batch) exactly once, every seed exactly once per epoch, exactly the plan's batches. */
    private static void assertExactlyThePlan(List<SeedBatch> batches, BatchPlan plan) {
        Map<Long, SeedBatch> byKey = new HashMap<>();
        for (SeedBatch b : batches) {
            assertThat(byKey.put(b.key(), b)).as("batch %d of epoch %d emitted twice", b.batchId, b.epoch).isNull();
            assertThat(b.numBatches).isEqualTo(plan.numBatches());
            assertThat(b.seeds).isEqualTo(plan.seedsOf(b.epoch, b.batchId));
        }
        assertThat(byKey).hasSize((int) plan.totalBatches());
        int[] identity = IntStream.range(0, CORA_NODES).toArray();
        for (int epoch = 0; epoch < plan.epochs(); epoch++) {
            int e = epoch;
            int[] seeds = batches.stream().filter(b -> b.epoch == e).flatMapToInt(b -> Arrays.stream(b.seeds)).toArray();
            assertThat(seeds).as("seeds of epoch %d", e).containsExactlyInAnyOrder(identity);
        }
    }

    @Test
    void producedTypeIsAPojoNotKryo() {
        assertThat(SeedBatchSource.TYPE).isInstanceOf(PojoTypeInfo.class);
        assertThat(new SeedBatchSource(new BatchPlan(SeedSet.allNodes(CORA_NODES), 8, false, false, 1, 0L))
                .getProducedType()).isSameAs(SeedBatchSource.TYPE);
    }

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2})
    void everyBatchOfEveryEpochExactlyOnce(int parallelism) throws Exception {
        // 2708 / 64 = 42 full batches + one of 20, shuffled, 3 epochs: 129 batches.
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 64, true, false, 3, 77L);
        StreamExecutionEnvironment env = env(parallelism, new Configuration());
        DataStream<SeedBatch> batches = env.fromSource(new SeedBatchSource(plan), WatermarkStrategy.noWatermarks(), "seeds");
        assertExactlyThePlan(collect(batches, "seed batches p" + parallelism), plan);
    }

    @Test
    void aCapOnBatchesPerSecondPacesTheSourceAndKeepsEveryBatchExactlyOnce() throws Exception {
        // 2708 / 64 = 43 batches per epoch, 2 epochs: 86 batches at 100 per second over 2 readers.
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 64, true, false, 2, 9L);
        StreamExecutionEnvironment env = env(2, new Configuration());
        DataStream<SeedBatch> batches = env.fromSource(new SeedBatchSource(plan, 100), WatermarkStrategy.noWatermarks(),
                "capped seeds");
        long start = System.nanoTime();
        List<SeedBatch> out = collect(batches, "capped seed batches");
        double seconds = (System.nanoTime() - start) / 1e9;
        assertExactlyThePlan(out, plan);
        // The cap is a lower bound on the duration (each reader's limiter runs at 50 per second); an
        // uncapped run of 86 batches takes a few milliseconds.
        assertThat(seconds).as("seconds for 86 batches capped at 100/s").isGreaterThan(0.7);
    }

    // ---------------------------------------------------------------- failover

    @Test
    void failoverAfterACheckpointResumesFromTheCheckpointedSplitsExactlyOnce() throws Exception {
        FailOnceAfterCheckpoint.reset();
        // 2708 / 10 = 270 full batches + one of 8, 2 epochs: 542 batches, ~0.8 s at 3 ms each on 2 readers.
        BatchPlan plan = new BatchPlan(SeedSet.allNodes(CORA_NODES), 10, true, false, 2, 5L);
        StreamExecutionEnvironment env = env(2, FailOnceAfterCheckpoint.restartOnce());
        env.enableCheckpointing(50);
        DataStream<SeedBatch> batches = env
                .fromSource(new SeedBatchSource(plan), WatermarkStrategy.noWatermarks(), "seeds")
                .map(FailOnceAfterCheckpoint.<SeedBatch>slow(3))  // paces the chained source
                .returns(SeedBatchSource.TYPE);

        // With checkpointing, the collect sink hands out only what a checkpoint committed and drops the
        // rest on failover: the result is exactly-once only if the source resumed from its checkpointed
        // split positions (restarting splits from their start would duplicate, losing them would skip).
        List<SeedBatch> out = collect(batches, "seed batches with failover");

        System.out.printf("failover: %d batches before the failure, %d after the restart, %d collected%n",
                FailOnceAfterCheckpoint.SEEN_FIRST_ATTEMPT.get(), FailOnceAfterCheckpoint.SEEN_AFTER_RESTART.get(), out.size());
        assertThat(FailOnceAfterCheckpoint.FAILED).as("the injected failure happened (a checkpoint completed mid-stream)").isTrue();
        assertThat(FailOnceAfterCheckpoint.SEEN_AFTER_RESTART.get()).as("batches were emitted after the restart").isPositive();
        assertExactlyThePlan(out, plan);
    }
}
