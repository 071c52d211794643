package io.fanout.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a test's main class in a child JVM with a small heap: what a client that cannot hold the graph does. */
public final class SmallHeapJvm {
    private SmallHeapJvm() {}

    /** What the child did: its exit code and its output (stdout and stderr). */
    public record Outcome(int exitCode, String output) {}

    /** Runs {@code main} with {@code -Xmx<heap>} and the test class path; waits up to {@code seconds}. */
    public static Outcome run(String heap, Class<?> main, int seconds, String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + heap, "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(seconds, TimeUnit.SECONDS)).as("child JVM finished").isTrue();
        return new Outcome(process.exitValue(), output);
    }
}
