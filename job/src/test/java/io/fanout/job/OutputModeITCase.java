package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.config.OutputMode;
import io.fanout.connectors.file.SamplesFile;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A second run into the same --output: refused by default, or overwrite / append as asked; real cora jobs. */
class OutputModeITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    /** cora in batches of 512: 6 messages per run. */
    private static final int BATCHES = 6;

    @TempDir
    Path tmp;

    private final String cora = SharedData.graph("cora").toString();

    private void run(Path out, String... more) throws Exception {
        String[] args = Stream.concat(Stream.of("--graph", cora, "--batch-size", "512", "--parallelism", "1",
                "--output", out.toString()), Stream.of(more)).toArray(String[]::new);
        FanoutJobITCase.runJob(args);
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aSecondRunIntoTheSameOutputIsRefusedNamingTheOptionThePathAndTheWayOut() throws Exception {
        Path out = tmp.resolve("out");
        run(out);
        List<String> first = names(out);
        assertThat(first).hasSize(1).allMatch(name -> name.startsWith("part-") && name.endsWith(".samples"));
        assertThatThrownBy(() -> run(out))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value '" + out + "' for option fanout.output (--output): the directory is not empty"
                        + " (1 entry: " + first.get(0) + "); give fanout.output-mode (--output-mode) overwrite to delete"
                        + " Fanout's part files first, or append to add this run's to them");
        assertThat(names(out)).isEqualTo(first);
        Files.writeString(out.resolve("notes.txt"), "not Fanout's");
        assertThatThrownBy(() -> run(out)).hasMessageContaining("(2 entries, e.g. notes.txt)");
    }

    @Test
    void appendAddsThisRunsPartFilesAndOverwriteDeletesOnlyWhatFanoutWrote() throws Exception {
        Path out = tmp.resolve("out");
        run(out);
        TreeMap<Long, byte[]> once = FanoutJobITCase.readMessages(out);
        assertThat(once).hasSize(BATCHES);

        run(out, "--output-mode", "append");
        assertThat(SamplesFile.readAll(out)).hasSize(2 * BATCHES);

        // What an attempt killed mid-run leaves behind, and a file that is not Fanout's.
        Files.writeString(out.resolve(".part-0a1b-0-3.samples.inprogress.5c6d"), "partial");
        Files.writeString(out.resolve("notes.txt"), "not Fanout's");
        Files.createDirectory(out.resolve("part-dir.samples"));
        run(out, "--output-mode", "overwrite");
        FanoutJobITCase.assertSameMessages(once, FanoutJobITCase.readMessages(out));
        assertThat(names(out)).filteredOn(name -> !name.startsWith("part-") || !Files.isRegularFile(out.resolve(name)))
                .containsExactly("notes.txt", "part-dir.samples");
    }

    @Test
    void aRunRestoringASavepointContinuesItsOwnOutput() throws Exception {
        Path out = tmp.resolve("out");
        run(out);
        FanoutJobConfig config = JobConfigs.parse("--graph", cora, "--output", out.toString());
        assertThat(config.outputMode).isEqualTo(OutputMode.ERROR);
        Configuration restoring = new Configuration();
        restoring.set(StateRecoveryOptions.SAVEPOINT_PATH, tmp.resolve("savepoint-1").toString());
        try (OutputDirectory restored = OutputDirectory.check(config, restoring)) {
            restored.prepare();
        }
        assertThatThrownBy(() -> OutputDirectory.check(config, new Configuration())).isInstanceOf(ConfigException.class)
                .hasMessageContaining("the directory is not empty");
        assertThat(SamplesFile.readAll(out)).hasSize(BATCHES);
    }

    @Test
    void anOutputOnAFileSystemTheClientCannotReachIsLeftToFlink() throws Exception {
        // No S3 plugin here: listing s3:// fails on this client, as it may where only the cluster has credentials.
        FanoutJobConfig config = JobConfigs.parse("--graph", cora, "--output", "s3://bucket/samples");
        OutputDirectory.check(config, new Configuration()).prepare();
    }

    @Test
    void partFilesAreTheSinksFinishedAndInProgressFiles() {
        assertThat(OutputDirectory.isPartFile("part-3f2a-0-0.samples")).isTrue();
        assertThat(OutputDirectory.isPartFile(".part-3f2a-1-4.samples.inprogress.9c1e")).isTrue();
        assertThat(OutputDirectory.isPartFile("part-notes.txt")).isFalse();
        assertThat(OutputDirectory.isPartFile(".part-x.samples")).isFalse();
        assertThat(OutputDirectory.isPartFile("samples.samples")).isFalse();
    }
}
