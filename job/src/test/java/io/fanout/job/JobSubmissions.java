package io.fanout.job;

import io.fanout.config.FanoutJobConfig;
import io.fanout.graph.NodeIdMap;
import io.fanout.store.GraphStore;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/** Submits a job as {@code FanoutJob.run} builds it, without waiting for it: for tests that act on a running job. */
final class JobSubmissions {
    private JobSubmissions() {
    }

    /** The job of {@code config}, named {@code name}, submitted to the cluster the test's environment reaches. */
    static JobClient submit(FanoutJobConfig config, String name) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                FlinkSettings.flinkConfiguration(config));
        NodeIdMap nodes = GraphStore.scanNodeIds(config.graphSpec());
        FanoutJob.build(env, config, SeedPlanning.batchPlan(config, nodes), nodes);
        return env.executeAsync(name);
    }
}
