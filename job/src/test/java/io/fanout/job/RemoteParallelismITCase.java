package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.batch.BatchPlan;
import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.store.GraphStore;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.SharedData;
import java.net.URI;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A submission to a standalone cluster ({@code flink run}: a remote environment, target {@code remote}) asks the
 * cluster's REST API for its task slots first: a parallelism it cannot run fails at submission, before a job waits for
 * slots or restarts. The cluster is a real MiniCluster (one TaskManager, two slots) reached through its REST port.
 */
class RemoteParallelismITCase {
    private static MiniCluster cluster;
    private static URI rest;

    @BeforeAll
    static void startCluster() throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        cluster = new MiniCluster(new MiniClusterConfiguration.Builder().setConfiguration(conf)
                .setNumTaskManagers(1).setNumSlotsPerTaskManager(2).build());
        cluster.start();
        rest = cluster.getRestAddress().get();
    }

    @AfterAll
    static void stopCluster() throws Exception {
        cluster.close();
    }

    /** The karate job at {@code parallelism}, built for the cluster as {@code flink run} would. */
    private static StreamExecutionEnvironment remoteJob(FanoutJobConfig config) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(),
                rest.getPort());
        BatchPlan plan = SeedPlanning.batchPlan(config, GraphStore.scanNodeIds(config.graphSpec()));
        FanoutJob.build(env, config, plan);
        return env;
    }

    private static FanoutJobConfig karate(int parallelism) {
        return JobConfigs.parse("--graph", SharedData.graph("karate").toString(), "--batch-size", "4",
                "--parallelism", Integer.toString(parallelism));
    }

    @Test
    void moreSlotsThanTheClusterHasIsRefusedNamingTheClusterAndWhatToChange() throws Exception {
        FanoutJobConfig config = karate(64);
        StreamExecutionEnvironment env = remoteJob(config);
        assertThatThrownBy(() -> ClusterFit.check(env, config))
                .isInstanceOf(ConfigException.class)
                .hasMessage("fanout.parallelism (--parallelism) 64: the job needs 64 task slots and the cluster at "
                        + rest.getHost() + ":" + rest.getPort() + " has 2 (1 TaskManagers); give fanout.parallelism"
                        + " (--parallelism) 2 or less, or start more TaskManagers (or raise"
                        + " taskmanager.numberOfTaskSlots)");
    }

    @Test
    void aParallelismTheClusterHasSlotsForRunsThere() throws Exception {
        FanoutJobConfig config = karate(2);
        StreamExecutionEnvironment env = remoteJob(config);
        ClusterFit.check(env, config);
        assertThat(env.getParallelism()).isEqualTo(2);
        assertThat(env.execute("karate on the remote cluster").getNetRuntime()).isPositive();
    }
}
