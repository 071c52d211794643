package io.fanout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No test passes by sleeping and then seeing nothing: tests wait on conditions with deadlines (Java
 * {@code io.fanout.connectors.testing.Waits}, Python {@code tests/waits.py}). A sleep in a test source is
 * allowed only where it paces what a test simulates (a slow trainer, an idle endpoint), listed below with why.
 */
class TestWaitsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> TEST_TREES = List.of("job/src/test", "connectors/src/test", "deploy/src/test",
            "connectors/python/tests");
    private static final Pattern SLEEP = Pattern.compile("\\bsleep\\s*\\(");

    /**
     * The sleeps that stay, one a line: the file, a piece of its sleeping line, and why it is pacing rather than
     * waiting.
     */
    private static final String ALLOW_LIST = """
            connectors/src/test/java/io/fanout/connectors/testing/Waits.java | Thread.sleep(POLL_MILLIS) | \
            the poll of the condition wait itself
            connectors/python/tests/waits.py | time.sleep(POLL_SECONDS) | the poll of the condition wait itself
            connectors/python/tests/flink_cluster.py | time.sleep(interval) | \
            the poll of the cluster harness's condition wait (wait_for: a deadline, the cluster's logs on failure)
            connectors/python/tests/flink_cluster.py | time.sleep(0.2) | a pause before retrying a scrape the reporter dropped
            connectors/python/tests/channel_server.py | time.sleep(min(self._beat(conn) | \
            the test server idles on purpose, heartbeating
            connectors/src/test/java/io/fanout/connectors/channel/client/EndpointProcess.java | Thread.sleep(intervalMs) | \
            a paced producer in a child JVM
            connectors/src/test/java/io/fanout/connectors/channel/client/EndpointProcess.java | Thread.sleep(Long.MAX_VALUE) | \
            the child JVM stays mid-epoch until the test stops and kills it
            connectors/src/test/java/io/fanout/connectors/channel/client/ChannelReaderTest.java | Thread.sleep(2_000) | \
            an endpoint with nothing to send for 4 stall timeouts: what the heartbeat test simulates
            connectors/src/test/java/io/fanout/connectors/channel/shm/ShmRingPythonReaderTest.java | time.sleep(0.02) | \
            a slow trainer script, so the ring's writer must wait
            job/src/test/java/io/fanout/job/ChannelJobITCase.java | // a trainer | \
            a trainer's steps, or a sampler held to a trainer's pace
            job/src/test/java/io/fanout/job/ChannelJobITCase.java | // the trainer pauses | a trainer pausing mid-epoch
            job/src/test/java/io/fanout/testing/FailOnceAfterCheckpoint.java | Thread.sleep(sleepMillis) | \
            a slow operator, so checkpoints complete while the stream runs
            job/src/test/java/io/fanout/job/GraphUpdatesITCase.java | Thread.sleep(1500) | \
            graph updates arriving while batches are sampled
            connectors/python/tests/test_channel_ranks.py | time.sleep(600) | a rank's script hangs until the test kills it
            connectors/python/tests/test_cluster_end_to_end.py | time.sleep(3.5) | a trainer pausing past checkpoint time-outs
            """;

    /** A sleep that stays: the file, a piece of its line, and why. */
    private record Allowed(String file, String line, String why) {}

    private static final List<Allowed> ALLOWED = ALLOW_LIST.lines().map(l -> l.split(" \\| ", 3))
            .map(f -> new Allowed(f[0], f[1], f[2])).toList();

    @Test
    void everySleepInATestIsPacingOnTheAllowList() throws IOException {
        List<String> unlisted = new ArrayList<>();
        Set<Allowed> used = new HashSet<>();
        int files = 0;
        for (String tree : TEST_TREES) {
            try (Stream<Path> walk = Files.walk(ROOT.resolve(tree))) {
                for (Path p : walk.filter(TestWaitsTest::isSource).sorted().toList()) {
                    String file = ROOT.relativize(p).toString().replace('\\', '/');
                    if (file.endsWith("/TestWaitsTest.java")) {
                        continue; // this list
                    }
                    files++;
                    List<String> lines = Files.readAllLines(p, StandardCharsets.UTF_8);
                    for (int i = 0; i < lines.size(); i++) {
                        String line = lines.get(i);
                        if (!SLEEP.matcher(line).find()) {
                            continue;
                        }
                        Allowed a = ALLOWED.stream().filter(x -> x.file.equals(file) && line.contains(x.line)).findFirst().orElse(null);
                        if (a == null) {
                            unlisted.add(file + ":" + (i + 1) + ": " + line.strip());
                        } else {
                            used.add(a);
                        }
                    }
                }
            }
        }
        assertThat(files).as("test sources scanned").isGreaterThan(100);
        assertThat(unlisted).as("sleeps in tests: wait on a condition with a deadline (Waits.until, waits.wait_until) instead,"
                + " or, if the sleep paces what the test simulates, list it here with why").isEmpty();
        assertThat(ALLOWED).as("allow-list entries that no longer match a sleep: drop them").allMatch(used::contains);
    }

    private static boolean isSource(Path p) {
        String name = p.getFileName().toString();
        return Files.isRegularFile(p) && (name.endsWith(".java") || name.endsWith(".py"));
    }
}
