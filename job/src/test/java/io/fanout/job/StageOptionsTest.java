package io.fanout.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fanout.config.FanoutJobConfig;
import io.fanout.config.FanoutOptions;
import io.fanout.flink.partitioned.PartitionedKHop;
import io.fanout.flink.partitioned.PartitionedTypedKHop;
import io.fanout.flink.partitioned.StageOptions;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.SharedData;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

/**
 * The partitioned stages' options ({@link StageOptions}): their defaults are the job options' (the stages' layer
 * cannot read {@code FanoutOptions}), a value out of range fails naming its option, a stage fails naming an option
 * it needs and was not given, and the job's options reach the stage as set.
 */
class StageOptionsTest {
    @Test
    void defaultsAreTheJobOptionsDefaults() {
        StageOptions o = StageOptions.builder().build();
        assertEquals(FanoutOptions.SEED.defaultValue(), o.seed());
        assertEquals(FanoutOptions.PARTITIONED_BUCKET_SIZE.defaultValue(), o.bucketSize());
        assertEquals((long) FanoutOptions.PARTITIONED_CACHE_MB.defaultValue(), o.cacheBytes()); // -1: automatic
        assertEquals(FanoutOptions.PARTITIONED_COMPACT_AFTER_LOAD.defaultValue(), o.compactAfterLoad());
        assertEquals(FanoutOptions.REPLACE.defaultValue(), o.replace());
        assertEquals(FanoutOptions.SUBGRAPH_TYPE.defaultValue(), o.subgraphType());
        assertEquals(FanoutOptions.DISJOINT.defaultValue(), o.disjoint());
        assertEquals(FanoutOptions.ALPHA.defaultValue(), o.alpha());
        assertEquals(FanoutOptions.EPS.defaultValue(), o.eps());
        assertEquals(FanoutOptions.MAX_PPR_NODES.defaultValue(), o.maxPprNodes());
        assertEquals(FanoutOptions.PPR_MAX_NEIGHBORS.defaultValue(), o.pprMaxNeighbors());
        assertEquals(FanoutOptions.PPR_MAX_FETCH_ITERATIONS.defaultValue(), o.pprRounds());
        assertEquals(FanoutOptions.RESIDUAL_TOPUP.defaultValue(), o.residualTopUp());
        assertEquals(FanoutOptions.INCLUDE_SAMPLED_EDGES.defaultValue(), o.includeSampledEdges());
        assertEquals("", o.runTag());
    }

    @Test
    void outOfRangeValuesFailNamingTheirOption() {
        assertMessage("fanout.ppr-max-fetch-iterations must be >= 1, got 0",
                () -> StageOptions.builder().pprRounds(0).build());
        assertMessage("fanout.partitioned.bucket-size must be >= 1, got 0",
                () -> StageOptions.builder().bucketSize(0).build());
        assertMessage("fanout.max-ppr-nodes must be >= 1, got -3",
                () -> StageOptions.builder().maxPprNodes(-3).build());
        assertMessage("fanout.ppr-max-neighbors must be >= 1 or -1 (all), got 0",
                () -> StageOptions.builder().pprMaxNeighbors(0).build());
        assertMessage("fanout.partitioned.cache-mb must be >= 0 or -1 (automatic), got -2 bytes",
                () -> StageOptions.builder().cacheBytes(-2).build());
        assertMessage("fanout.subgraph-type must be set (directional by default)",
                () -> StageOptions.builder().subgraphType(null).build());
    }

    @Test
    void aStageFailsNamingTheOptionItNeeds() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StageOptions none = StageOptions.builder().build();
        assertMessage("fanout.fanout is required by the partitioned k-hop",
                () -> PartitionedKHop.build(env, null, null, none));
        assertMessage("fanout.fanout is required by the partitioned typed k-hop",
                () -> PartitionedTypedKHop.build(env, null, null, none));
    }

    @Test
    void theJobsOptionsReachTheStage() throws Exception {
        String cora = SharedData.graph("cora").toString();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        long[] ids = {3, 1, 2};
        FanoutJobConfig khop = JobConfigs.parse("--graph", cora, "--store", "partitioned", "--fanout", "5,3",
                "--replace", "--seed", "7", "--partitioned.bucket-size", "16", "--partitioned.cache-mb", "2",
                "--subgraph-type", "bidirectional", "--disjoint");
        StageOptions o = FanoutJob.stageOptions(env, khop, ids, "@tag", null, null, null, null, null);
        assertArrayEquals(new int[] {5, 3}, o.fanouts());
        assertTrue(o.replace());
        assertEquals(io.fanout.sampling.SubgraphType.BIDIRECTIONAL, o.subgraphType());
        assertTrue(o.disjoint());
        assertEquals(7, o.seed());
        assertEquals(16, o.bucketSize());
        assertEquals(2L << 20, o.cacheBytes());
        assertArrayEquals(ids, o.seedIds());
        assertEquals("@tag", o.runTag());
        assertEquals(null, o.graphUpdates());
        FanoutJobConfig ppr = JobConfigs.parse("--graph", cora, "--store", "partitioned", "--sampler", "ppr",
                "--alpha", "0.25", "--eps", "1e-5", "--max-ppr-nodes", "20", "--ppr-max-neighbors", "30",
                "--ppr-max-fetch-iterations", "4");
        StageOptions p = FanoutJob.stageOptions(env, ppr, null, "", null, null, null, null, null);
        assertEquals(0.25, p.alpha());
        assertEquals(1e-5, p.eps());
        assertEquals(20, p.maxPprNodes());
        assertEquals(30, p.pprMaxNeighbors());
        assertEquals(4, p.pprRounds());
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        assertEquals(expected, assertThrows(IllegalArgumentException.class, call).getMessage());
    }
}
