package io.fanout.connectors.channel.client;

import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real {@link ChannelEndpoint} in a JVM of its own, for tests that stop its process (SIGSTOP):
 * endpoint 0 of 1 in the given registry, fed one epoch-0 message every {@code intervalMs}.
 */
final class EndpointProcess {
    private EndpointProcess() {}

    /** Arguments: registry directory, heartbeat interval (ms), messages, interval between them (ms). */
    public static void main(String[] args) throws Exception {
        ChannelSinkOptions options = ChannelSinkOptions.builder(args[0]).heartbeatInterval(Duration.ofMillis(Long.parseLong(args[1])))
                .build();
        int count = Integer.parseInt(args[2]);
        long intervalMs = Long.parseLong(args[3]);
        try (ChannelEndpoint e = new ChannelEndpoint(options, 0, 1, null)) {
            for (int i = 0; i < count; i++) {
                e.put(ChannelReaderTest.sample(0, i));
                Thread.sleep(intervalMs);
            }
            Thread.sleep(Long.MAX_VALUE); // mid-epoch for ever: the test stops and kills this process
        }
    }

    /** Starts this class in a child JVM with the test class path. */
    static Process start(Path registry, long heartbeatMs, int count, long intervalMs) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"), EndpointProcess.class.getName(),
                registry.toString(), Long.toString(heartbeatMs), Integer.toString(count), Long.toString(intervalMs))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** Sends {@code signal} (e.g. STOP, CONT) to {@code p}. */
    static void signal(Process p, String signal) throws IOException, InterruptedException {
        int rc = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
        if (rc != 0) {
            throw new IOException("kill -" + signal + " " + p.pid() + " exited with " + rc);
        }
    }
}
