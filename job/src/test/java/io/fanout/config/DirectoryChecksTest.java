package io.fanout.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.fanout.testing.JobConfigs;
import io.fanout.testing.SharedData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every directory option is checked on the client: one error naming option, path and why, before submission. */
class DirectoryChecksTest {
    @TempDir
    Path tmp;

    private final String cora = SharedData.graph("cora").toString();

    private FanoutJobConfig config(String... args) {
        String[] all = Stream.concat(Stream.of("--graph", cora), Stream.of(args)).toArray(String[]::new);
        return JobConfigs.parse(all);
    }

    private Path regularFile() throws IOException {
        return Files.writeString(tmp.resolve("file.txt"), "not a directory");
    }

    @Test
    void aPathUnderARegularFileIsRefusedForEveryDirectoryOption() throws Exception {
        String under = regularFile().resolve("x").toString();
        String parentIsAFile = ": a parent, " + regularFile() + ", is a regular file";
        assertThatThrownBy(() -> config("--output", under))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value '" + under + "' for option fanout.output (--output)" + parentIsAFile);
        assertThatThrownBy(() -> config("--serve", "--registry", under))
                .hasMessage("Invalid value '" + under + "' for option fanout.channel.registry (--channel.registry)"
                        + parentIsAFile);
        assertThatThrownBy(() -> config("--channel.shm", "--channel.shm-dir", under))
                .hasMessage("Invalid value '" + under + "' for option fanout.channel.shm-dir (--channel.shm-dir)"
                        + parentIsAFile);
        assertThatThrownBy(() -> config("--checkpoint-dir", under))
                .hasMessage("Invalid value '" + under + "' for option fanout.checkpoint-dir (--checkpoint-dir)"
                        + parentIsAFile);
        assertThatThrownBy(() -> config("--checkpoint-dir", "file://" + under + "/deeper"))
                .hasMessage("Invalid value 'file://" + under + "/deeper' for option fanout.checkpoint-dir"
                        + " (--checkpoint-dir)" + parentIsAFile);
        assertThatThrownBy(() -> config("--store", "partitioned", "--partitioned.node-ids-dir", under))
                .hasMessage("Invalid value '" + under + "' for option fanout.partitioned.node-ids-dir"
                        + " (--partitioned.node-ids-dir)" + parentIsAFile);
        assertThatThrownBy(() -> config("--store", "partitioned", "--partitioned.node-ids-dir", "s3://bucket/ids"))
                .hasMessage("Invalid value 's3://bucket/ids' for option fanout.partitioned.node-ids-dir"
                        + " (--partitioned.node-ids-dir): the client writes it and the TaskManagers read it as a local"
                        + " path (a shared mount), not a file system URI");
        assertThatThrownBy(() -> config("--output", "/etc/passwd/x"))
                .hasMessage("Invalid value '/etc/passwd/x' for option fanout.output (--output): a parent, /etc/passwd,"
                        + " is a regular file");
    }

    @Test
    void aRegularFileIsNotADirectory() throws Exception {
        String file = regularFile().toString();
        assertThatThrownBy(() -> config("--output", "file:" + file))
                .hasMessage("Invalid value 'file:" + file + "' for option fanout.output (--output): it is a regular file,"
                        + " not a directory");
    }

    @Test
    void aDirectoryThatTakesNoFileIsNotWritable() throws Exception {
        // The access bits do not stop root, so use a read-only directory only where it really refuses a file.
        Path readOnly = Files.createDirectory(tmp.resolve("read-only"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r-xr-xr-x")));
        Path dir = canCreateIn(readOnly) ? Path.of("/sys") : readOnly;
        assumeThat(canCreateIn(dir)).as("a directory this user cannot write to").isFalse();
        assertThatThrownBy(() -> config("--output", dir.toString()))
                .hasMessageStartingWith("Invalid value '" + dir + "' for option fanout.output (--output): the directory is"
                        + " not writable (");
        String below = dir.resolve("fanout/out").toString();
        assertThatThrownBy(() -> config("--serve", "--registry", below))
                .hasMessageStartingWith("Invalid value '" + below + "' for option fanout.channel.registry"
                        + " (--channel.registry): it does not exist and cannot be created: " + dir + " is not writable (");
    }

    @Test
    void goodPathsPassWithoutLeavingAnythingBehindAndOtherFileSystemsAreLeftToFlink() throws Exception {
        Path existing = Files.createDirectory(tmp.resolve("out"));
        FanoutJobConfig c = config("--output", existing.toString(), "--serve", "--registry", tmp.resolve("a/b/registry").toString(),
                "--checkpoint-dir", "file://" + tmp.resolve("checkpoints"));
        assertThat(c.output).isEqualTo(existing.toString());
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left).containsExactly(existing); // nothing created, no probe file left
        }
        try (Stream<Path> left = Files.list(existing)) {
            assertThat(left).isEmpty();
        }
        assertThat(config("--output", "s3://bucket/samples", "--checkpoint-dir", "hdfs://nn/checkpoints").output)
                .isEqualTo("s3://bucket/samples");
        assertThat(DirectoryChecks.localPath("s3://bucket/x")).isNull();
        assertThat(DirectoryChecks.localPath("file:///tmp/x")).isEqualTo(Path.of("/tmp/x"));
        assertThat(DirectoryChecks.localPath("rel/x")).isEqualTo(Path.of("rel/x"));
    }

    private static boolean canCreateIn(Path dir) {
        try {
            Files.delete(Files.createTempFile(dir, "probe", ".tmp"));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
