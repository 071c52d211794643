package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static io.fanout.job.FanoutJobITCase.readMessages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.connectors.testing.Waits;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.TreeMap;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.execution.ExecutionState;
import org.apache.flink.runtime.executiongraph.AccessExecutionJobVertex;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.executiongraph.IOMetrics;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graph (edges and node features) loaded by a {@code --partitioned.load-only} job and kept in a savepoint
 * starts a job with other seeds,
 * epochs, batch size, fanouts and seed that reads no edge and sends the bytes of a fresh run; a job with another
 * number of hops is refused, on RocksDB and on the heap backend. (The standalone-cluster version is
 * test_partitioned_cluster.py.)
 */
class PartitionedSavepointITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    /** Submits the job of {@code args} as FanoutJob.run builds it, without waiting for it. */
    private JobClient submit(String... args) throws Exception {
        return JobSubmissions.submit(JobConfigs.parse(args), "savepoint test");
    }

    private static String[] with(String[] base, String... more) {
        String[] all = Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    static AccessExecutionJobVertex vertex(MiniCluster cluster, JobID job, String name) throws Exception {
        var vertices = cluster.getExecutionGraph(job).get().getAllVertices().values();
        return vertices.stream().filter(v -> v.getName().contains(name)).findFirst().orElseThrow(
                () -> new AssertionError("no vertex named like " + name + " in "
                        + vertices.stream().map(AccessExecutionJobVertex::getName).toList()));
    }

    static boolean finished(MiniCluster cluster, JobID job, String name) throws Exception {
        var vertices = cluster.getExecutionGraph(job).get().getAllVertices().values();
        return vertices.stream().anyMatch(v -> v.getName().contains(name)
                && v.getAggregateState() == ExecutionState.FINISHED);
    }

    /** Records into ({@code in}) or out of a vertex over its subtasks' current attempts. */
    static long records(MiniCluster cluster, JobID job, String name, boolean in) throws Exception {
        long n = 0;
        for (AccessExecutionVertex subtask : vertex(cluster, job, name).getTaskVertices()) {
            IOMetrics io = subtask.getCurrentExecutionAttempt().getIOMetrics();
            n += io == null ? 0 : in ? io.getNumRecordsIn() : io.getNumRecordsOut();
        }
        return n;
    }

    /**
     * RocksDB's own (native) savepoint restored into RocksDB, and a canonical one restored into the heap backend: a
     * graph loaded once can start jobs on either backend.
     */
    @ParameterizedTest(name = "{0} -> {1} ({2})")
    @CsvSource({"rocksdb, rocksdb, NATIVE", "rocksdb, hashmap, CANONICAL"})
    void aLoadedGraphInASavepointStartsADifferentJobWithoutReadingTheEdges(String loadBackend, String jobBackend,
            SavepointFormatType format, @InjectMiniCluster MiniCluster cluster) throws Exception {
        Path graph = SharedData.graph("cora");
        String checkpoints = tmp.resolve("checkpoints").toUri().toString();
        String[] graphOptions = {"--graph", graph.toString(), "--store", "partitioned", "--parallelism", "2",
                "--node-features", graph.resolve("nodes.tsv.gz").toString(), "--feature-dtype", "float16",
                "--checkpoint-dir", checkpoints, "--checkpoint-interval", "1s"};

        JobClient loader = submit(with(graphOptions, "--fanout", "5,5", "--partitioned.load-only", "--state-backend",
                loadBackend));
        Waits.until("the load job's edge and node sources finished", Duration.ofMinutes(5),
                () -> finished(cluster, loader.getJobID(), "edge-parts") && finished(cluster, loader.getJobID(), "node-parts"));
        String savepoint = loader.stopWithSavepoint(false, tmp.resolve("savepoints").toUri().toString(),
                format).get();
        graphOptions = with(graphOptions, "--state-backend", jobBackend);

        Path seeds = Files.writeString(tmp.resolve("seeds.txt"), "35\n633\n1862\n100\n200\n");
        String[] job2 = with(graphOptions, "--fanout", "4,3", "--seeds", seeds.toString(), "--batch-size", "2",
                "--epochs", "3", "--shuffle", "--seed", "7");
        Path restoredOut = tmp.resolve("restored");
        JobClient restored = submit(with(job2, "--output", restoredOut.toString(),
                "-D", "execution.state-recovery.path=" + savepoint,
                "-D", "execution.state-recovery.ignore-unclaimed-state=true"));
        restored.getJobExecutionResult().get();
        Path freshOut = tmp.resolve("fresh");
        JobClient fresh = submit(with(job2, "--output", freshOut.toString()));
        fresh.getJobExecutionResult().get();

        TreeMap<Long, byte[]> reference = readMessages(freshOut);
        assertThat(reference).hasSize(3 * 3);
        assertSameMessages(reference, readMessages(restoredOut));
        // The restored job's edge source read nothing; its first lookup got only the (same) requests.
        long freshEdges = records(cluster, fresh.getJobID(), "edge-parts", false);
        assertThat(freshEdges).isPositive();
        assertThat(records(cluster, restored.getJobID(), "edge-parts", false)).isZero();
        assertThat(records(cluster, fresh.getJobID(), "node-parts", false)).isEqualTo(2708);
        assertThat(records(cluster, restored.getJobID(), "node-parts", false)).isZero();
        assertThat(records(cluster, restored.getJobID(), "neighbors-hop-1", true))
                .isEqualTo(records(cluster, fresh.getJobID(), "neighbors-hop-1", true) - freshEdges);

        JobClient threeHops = submit(with(graphOptions, "--fanout", "4,3,2", "--seeds", seeds.toString(),
                "--output", tmp.resolve("three").toString(), "-D", "execution.state-recovery.path=" + savepoint,
                "-D", "execution.state-recovery.ignore-unclaimed-state=true"));
        assertThatThrownBy(() -> threeHops.getJobExecutionResult().get()).rootCause()
                .hasMessageContaining("the savepoint holds a different loaded graph")
                .hasMessageContaining("2 hops, bucket size 4096, split bytes 16777216, node file ")
                .hasMessageContaining("3 hops, bucket size 4096, split bytes 16777216, node file ");
    }
}
