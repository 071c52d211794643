package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.config.FanoutJobConfig;
import io.fanout.connectors.testing.Waits;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code --store partitioned} on Flink's heap keyed-state backend ({@code --state-backend hashmap}): the memory
 * store's bytes for k-hop and PPR with node features at parallelism 1 and 2, and a TaskManager lost mid-epoch
 * restores the graph from a heap checkpoint with committed files equal to an uninterrupted run's, and no checkpoint
 * starts in the load of a job shorter than half its checkpoint interval. (A graph kept in
 * a savepoint starting a heap-backend job: {@link PartitionedSavepointITCase}.)
 */
class HeapStateBackendITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;
    private int runs;

    private TreeMap<Long, byte[]> run(String store, int parallelism, String... extra) throws Exception {
        Path out = tmp.resolve(store + "-p" + parallelism + "-" + (++runs));
        String[] args = with(new String[] {"--store", store, "--output", out.toString(), "--parallelism",
                String.valueOf(parallelism), "--checkpoint-interval", "1s"}, extra);
        if (store.equals("partitioned")) {
            args = with(args, "--state-backend", "hashmap");
        }
        assertThat(runJob(JobConfigs.forStore(store, args)).batches).isPositive();
        return readMessages(out);
    }

    private static String[] with(String[] base, String... more) {
        String[] all = Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    private static String[] cora(String... more) {
        Path graph = SharedData.graph("cora");
        return with(new String[] {"--graph", graph.toString(), "--node-features",
                graph.resolve("nodes.tsv.gz").toString()}, more);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', value = {"khop; --fanout=10,5", "ppr; --ppr-max-fetch-iterations=12"})
    void theHeapBackendGivesTheMemoryStoresBytes(String sampler, String samplerOption) throws Exception {
        String[] option = samplerOption.split("=", 2);
        String[] args = cora("--sampler", sampler, option[0], option[1], "--batch-size", "400", "--shuffle");
        TreeMap<Long, byte[]> memory = run("memory", 2, args);
        assertSameMessages(memory, run("partitioned", 1, args));
        assertSameMessages(memory, run("partitioned", 2, args));
    }

    /**
     * The TaskManager (the only one, so every subtask and all the heap state with it) is terminated once 40 % of
     * the messages are out and a checkpoint completed after that; a new one takes over from that checkpoint.
     */
    @Test
    void aTaskManagerLostMidEpochRestoresTheHeapStateAndLosesAndRepeatsNothing(@InjectMiniCluster MiniCluster cluster)
            throws Exception {
        String[] args = cora("--fanout", "10,5", "--batch-size", "100", "--shuffle", "--epochs", "2", "--store",
                "partitioned", "--parallelism", "2", "--state-backend", "hashmap");
        TreeMap<Long, byte[]> expected = run("memory", 2, cora("--fanout", "10,5", "--batch-size", "100",
                "--shuffle", "--epochs", "2"));
        Path out = tmp.resolve("killed");
        FanoutJobConfig config = JobConfigs.parse(with(args, "--output", out.toString(), "--max-batches-per-second",
                "4", "--checkpoint-interval", "300ms", "--checkpoint-dir", tmp.resolve("cp").toUri().toString(),
                "-D", "restart-strategy.type=fixed-delay", "-D", "restart-strategy.fixed-delay.attempts=3",
                "-D", "restart-strategy.fixed-delay.delay=500ms"));
        JobClient client = JobSubmissions.submit(config, "heap backend kill");
        JobID job = client.getJobID();

        await("the job scheduled", () -> !executionGraph(cluster, job).getAllVertices().isEmpty());
        // Progress is read from the files the sink is writing (a running task's I/O counters reach the execution
        // graph only when it ends): 40 % of the uninterrupted run's bytes written.
        long total = expected.values().stream().mapToLong(m -> m.length).sum();
        await("40% of the messages written", () -> written(out) >= 0.4 * total);
        long completed = checkpoints(cluster, job).getCounts().getNumberOfCompletedCheckpoints();
        await("a checkpoint after that", () -> checkpoints(cluster, job).getCounts()
                .getNumberOfCompletedCheckpoints() > completed);
        assertThat(written(out)).as("the job still had batches to write").isLessThan(total);
        cluster.terminateTaskManager(0).get();
        cluster.startTaskManager();
        client.getJobExecutionResult().get();

        CheckpointStatsSnapshot stats = cluster.getArchivedExecutionGraph(job).get().getCheckpointStatsSnapshot();
        assertThat(stats.getLatestRestoredCheckpoint()).as("the job restored a checkpoint").isNotNull();
        assertSameMessages(expected, readMessages(out));
    }

    /**
     * A job shorter than half its checkpoint interval completes one checkpoint, the one Flink takes as the job's input
     * ends, and none while the graph loads; with no minimum pause, Flink's scheduler (started again once every task
     * runs, with the pause as its delay) checkpoints at once as well.
     */
    @Test
    void noCheckpointStartsBeforeHalfAnIntervalHasPassed(@InjectMiniCluster MiniCluster cluster) throws Exception {
        String[] args = cora("--fanout", "10,5", "--batch-size", "400", "--store", "partitioned", "--parallelism", "2",
                "--state-backend", "hashmap", "--checkpoint-interval", "10min", "--checkpoint-dir",
                tmp.resolve("cp").toUri().toString());
        assertThat(completedCheckpoints(cluster, with(args, "--output", tmp.resolve("paused").toString())))
                .as("only the checkpoint at the end of input").isEqualTo(1);
        assertThat(completedCheckpoints(cluster, with(args, "--output", tmp.resolve("unpaused").toString(),
                "-D", "execution.checkpointing.min-pause=0s")))
                .as("Flink's own scheduling: one as soon as every task runs, one at the end").isEqualTo(2);
    }

    private static long completedCheckpoints(MiniCluster cluster, String[] args) throws Exception {
        JobClient client = JobSubmissions.submit(JobConfigs.parse(args), "checkpoint pause");
        client.getJobExecutionResult().get();
        return cluster.getArchivedExecutionGraph(client.getJobID()).get().getCheckpointStatsSnapshot().getCounts()
                .getNumberOfCompletedCheckpoints();
    }

    /** Bytes in every file under {@code dir}, in-progress part files included. */
    private static long written(Path dir) {
        if (!java.nio.file.Files.isDirectory(dir)) {
            return 0;
        }
        try (var files = java.nio.file.Files.walk(dir)) {
            return files.filter(java.nio.file.Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            return 0; // a part file renamed while walking: read again on the next poll
        }
    }

    private static CheckpointStatsSnapshot checkpoints(MiniCluster cluster, JobID job) {
        return executionGraph(cluster, job).getCheckpointStatsSnapshot();
    }

    private static org.apache.flink.runtime.executiongraph.AccessExecutionGraph executionGraph(MiniCluster cluster,
            JobID job) {
        try {
            return cluster.getExecutionGraph(job).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void await(String what, Waits.Condition condition) throws Exception {
        Waits.until(what, Duration.ofMinutes(2), condition);
    }
}
