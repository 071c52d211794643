package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fanout.config.ConfigException;
import io.fanout.connectors.file.SamplesFile;
import io.fanout.testing.SharedData;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parallelism in the embedded MiniCluster a local run starts (no test cluster: {@code FanoutJob.run} starts its own,
 * as {@code fanout-local} does). Parallelism 64 used to restart for ever on "Insufficient number of network buffers"
 * with Flink's 64 MiB of local network memory; now the network memory is sized for it, a parallelism that network
 * memory the user set cannot hold is refused at submission naming what to change, and the default (the cores) is
 * lowered to what fits.
 */
@Timeout(240)
class LocalParallelismTest {
    @TempDir
    Path tmp;

    private final String karate = SharedData.graph("karate").toString();

    private String[] args(String... more) {
        return Stream.concat(Stream.of("--graph", karate, "--batch-size", "4", "--output",
                tmp.resolve("out").toString()), Stream.of(more)).toArray(String[]::new);
    }

    @Test
    void parallelism64OnKarateRunsWithNetworkMemorySizedForIt() throws Exception {
        // 64 subtasks of the sampler, each fed by 64 source subtasks: 4353 buffers, 136 MiB, twice Flink's default.
        JobSummary summary = FanoutJobITCase.runJob(args("--parallelism", "64"));
        assertThat(summary).isNotNull();
        assertThat(FanoutJobITCase.readMessages(tmp.resolve("out"))).as("34 seeds in batches of 4, once").hasSize(9);
        assertThat(SamplesFile.listFiles(tmp.resolve("out"))).as("written by the 64 sink subtasks").hasSizeGreaterThan(1);
    }

    @Test
    void aParallelismTheSetNetworkMemoryCannotHoldIsRefusedAtOnceNamingWhatToChange() {
        long started = System.nanoTime();
        assertThatThrownBy(() -> FanoutJobITCase.runJob(args("--parallelism", "64",
                "-Dtaskmanager.memory.network.min=64mb", "-Dtaskmanager.memory.network.max=64mb")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value '64' for option fanout.parallelism (--parallelism): at parallelism 64 the"
                        + " job's 2 all-to-all exchanges need 4353 network buffers of 32 KiB (136 MiB) in the local"
                        + " MiniCluster, more than its 64 MiB of network memory (taskmanager.memory.network.min/max as"
                        + " set); give fanout.parallelism (--parallelism) 43 or less, or more network memory"
                        + " (-Dtaskmanager.memory.network.min=137m -Dtaskmanager.memory.network.max=137m, and a JVM"
                        + " -Xmx or -XX:MaxDirectMemorySize above it: JAVA_OPTS for fanout-local)");
        // Before any job started: no MiniCluster, no restart.
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
        assertThat(tmp.resolve("out").resolve(OutputLock.NAME)).doesNotExist();
    }

    @Test
    void thePartitionedStoreAtParallelism64IsRefusedAtOnceWithinTheNetworkMemoryItCouldHave() {
        long started = System.nanoTime();
        // Its hop stages exchange all-to-all many times over: more buffers than a quarter of the test JVM's memory.
        assertThatThrownBy(() -> FanoutJobITCase.runJob(args("--store", "partitioned", "--parallelism", "64")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid value '64' for option fanout.parallelism (--parallelism): at"
                        + " parallelism 64 the job's ")
                .hasMessageContaining(" in the local MiniCluster, more than its ")
                .hasMessageContaining(" of network memory (a quarter of the JVM's ")
                .hasMessageMatching(".*; give fanout.parallelism \\(--parallelism\\) \\d+ or less, or more network"
                        + " memory \\(-Dtaskmanager.memory.network.min=\\d+m .*");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(60));
    }

    @Test
    void thePartitionedStoreRunsAtTheDefaultParallelism() throws Exception {
        FanoutJobITCase.runJob(args("--store", "partitioned"));
        assertThat(FanoutJobITCase.readMessages(tmp.resolve("out"))).hasSize(9);
    }

    @Test
    void aDefaultParallelismTheNetworkMemoryCannotHoldIsLoweredToOneThatFits() throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        assumeTrue(cores >= 2, "the default parallelism is the cores: 1 needs no lowering");
        // 8 buffers of 32 KiB: parallelism 1 needs 6 (source -> sampler and sink committer -> lock release: each a
        // partition of 1 subpartition + 1 and a gate of 1), parallelism 2 needs 13.
        FanoutJobITCase.runJob(args("-Dtaskmanager.memory.network.min=256kb",
                "-Dtaskmanager.memory.network.max=256kb"));
        assertThat(FanoutJobITCase.readMessages(tmp.resolve("out"))).hasSize(9);
        assertThat(SamplesFile.listFiles(tmp.resolve("out"))).as("one sink subtask").hasSize(1);
    }
}
