package io.fanout.deploy.bench;

import io.fanout.connectors.channel.shm.ShmRing;
import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Channel throughput benchmark (not a test): messages per second and MB/s into a Python trainer
 * process ({@code connectors/python/bench/channel_bench.py}) over the TCP channel (a real
 * {@link ChannelEndpoint} to {@code ChannelClient}) and over shared memory ({@link ShmRing} to
 * {@code ShmRingReader}), as ratios to a raw loopback socket copy of the same bytes (a plain Java
 * socket into Python {@code recv_into}, no framing) measured in the same run; the three are
 * alternated for several rounds and the median of each is reported.
 *
 * <p>{@code deploy/bin/fanout-channel-bench [--sizes 65536,4194304] [--mib 512] [--rounds 5]};
 * results also go to {@code deploy/target/bench/channel.json}.
 */
public final class ChannelBench {
    private static final Pattern NUMBER = Pattern.compile("\"(\\w+)\": ([0-9.eE+-]+)");

    private ChannelBench() {}

    public static void main(String[] args) throws Exception {
        Path root = Path.of(System.getProperty("fanout.root", ".")).toAbsolutePath().normalize();
        List<Integer> sizes = List.of(64 << 10, 4 << 20);
        long mib = 512;
        int rounds = 5;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--sizes" -> sizes = Arrays.stream(args[i + 1].split(",")).map(String::trim).map(Integer::parseInt).toList();
                case "--mib" -> mib = Long.parseLong(args[i + 1]);
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown benchmark option " + args[i]
                        + " (usage: fanout-channel-bench [--sizes 65536,4194304] [--mib 512] [--rounds 5])");
            }
        }
        Path script = root.resolve("connectors/python/bench/channel_bench.py");
        Path workDir = root.resolve("deploy/target/bench");
        Files.createDirectories(workDir);
        System.out.printf(Locale.ROOT, "channel benchmark: %d MiB per measurement, %d rounds, %d cores%n", mib, rounds,
                Runtime.getRuntime().availableProcessors());
        StringBuilder json = new StringBuilder("{\n  \"benchmark\": \"channel\",\n  \"mib_per_measurement\": " + mib
                + ",\n  \"rounds\": " + rounds + ",\n  \"cores\": " + Runtime.getRuntime().availableProcessors() + ",\n  \"results\": [");
        boolean firstSize = true;
        for (int target : sizes) {
            byte[] blob = blobOfAbout(target);
            int count = (int) Math.max(16, (mib << 20) / blob.length);
            Bench bench = new Bench(root, script, workDir, blob, count);
            bench.run("raw"); // warm-up of JIT and page cache
            bench.run("shm");
            Map<String, List<Map<String, Double>>> all = new LinkedHashMap<>();
            for (int r = 0; r < rounds; r++) {
                for (String mode : List.of("raw", "tcp", "shm")) {
                    all.computeIfAbsent(mode, k -> new ArrayList<>()).add(bench.run(mode));
                }
            }
            Map<String, Double> mbs = new LinkedHashMap<>();
            Map<String, Double> msgs = new LinkedHashMap<>();
            for (var e : all.entrySet()) {
                mbs.put(e.getKey(), median(e.getValue(), "mb_per_s"));
                msgs.put(e.getKey(), median(e.getValue(), "messages_per_s"));
            }
            double tcpRaw = mbs.get("tcp") / mbs.get("raw");
            double shmTcp = mbs.get("shm") / mbs.get("tcp");
            double shmRaw = mbs.get("shm") / mbs.get("raw");
            System.out.printf(Locale.ROOT, "%n%d-byte messages (%d per measurement), median of %d rounds:%n", blob.length, count, rounds);
            for (String mode : mbs.keySet()) {
                System.out.printf(Locale.ROOT, "  %-4s %9.1f MB/s %10.0f messages/s%n", mode, mbs.get(mode), msgs.get(mode));
            }
            System.out.printf(Locale.ROOT, "  TCP / raw = %.2fx (target >= 0.6)   shm / TCP = %.2fx (target >= 2)   shm / raw = %.2fx%n",
                    tcpRaw, shmTcp, shmRaw);
            json.append(firstSize ? "\n" : ",\n").append(String.format(Locale.ROOT,
                    "    {\"message_bytes\": %d, \"messages\": %d, \"raw_mb_per_s\": %.1f, \"tcp_mb_per_s\": %.1f, \"shm_mb_per_s\": %.1f, "
                            + "\"raw_messages_per_s\": %.0f, \"tcp_messages_per_s\": %.0f, \"shm_messages_per_s\": %.0f, "
                            + "\"tcp_over_raw\": %.3f, \"shm_over_tcp\": %.3f, \"shm_over_raw\": %.3f}",
                    blob.length, count, mbs.get("raw"), mbs.get("tcp"), mbs.get("shm"), msgs.get("raw"), msgs.get("tcp"), msgs.get("shm"),
                    tcpRaw, shmTcp, shmRaw));
            firstSize = false;
        }
        json.append("\n  ]\n}\n");
        Path out = workDir.resolve("channel.json");
        Files.writeString(out, json);
        System.out.println("\nresults: " + out);
    }

    /** A k-hop-like message blob of about {@code bytes} bytes: one float32 tensor plus the #META keys. */
    static byte[] blobOfAbout(int bytes) {
        float[] x = new float[Math.max(1, (bytes - 256) / 4)];
        for (int i = 0; i < x.length; i++) {
            x[i] = i * 0.5f;
        }
        return SafetensorsCodec.encode(new TensorMessage().putFloat32("x", x, x.length).putInt64(MessageKeys.META_EPOCH, 0)
                .putInt64(MessageKeys.META_BATCH_ID, 0).putInt64(MessageKeys.META_NUM_BATCHES, 1));
    }

    private static double median(List<Map<String, Double>> runs, String key) {
        double[] v = runs.stream().mapToDouble(m -> m.get(key)).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** One message size: runs each mode once per call with a fresh Python receiver. */
    private static final class Bench {
        final Path root;
        final Path script;
        final Path workDir;
        final byte[] blob;
        final int count;

        Bench(Path root, Path script, Path workDir, byte[] blob, int count) {
            this.root = root;
            this.script = script;
            this.workDir = workDir;
            this.blob = blob;
            this.count = count;
        }

        Map<String, Double> run(String mode) throws Exception {
            return switch (mode) {
                case "raw" -> raw();
                case "tcp" -> tcp();
                case "shm" -> shm();
                default -> throw new IllegalArgumentException(mode);
            };
        }

        private Process python(String mode, String where) throws IOException {
            ProcessBuilder pb = new ProcessBuilder("python3", script.toString(), mode, where, String.valueOf(blob.length), String.valueOf(count))
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().put("PYTHONPATH", root.resolve("connectors/python").toString());
            return pb.start();
        }

        /** Waits for the receiver's "ready" (connected / ring opened) so every sender starts from the same point. */
        private static void awaitReady(Process p) throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c; (c = p.getInputStream().read()) != '\n'; ) {
                if (c < 0) {
                    throw new IllegalStateException("python receiver exited before it was ready: " + line);
                }
                line.append((char) c);
            }
            if (!line.toString().equals("ready")) {
                throw new IllegalStateException("python receiver said " + line + ", expected ready");
            }
        }

        private static Map<String, Double> result(Process p, CompletableFuture<?> sender) throws Exception {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("python receiver failed: " + out);
            }
            sender.get(60, TimeUnit.SECONDS);
            Map<String, Double> m = new LinkedHashMap<>();
            Matcher matcher = NUMBER.matcher(out);
            while (matcher.find()) {
                m.put(matcher.group(1), Double.parseDouble(matcher.group(2)));
            }
            return m;
        }

        /** A plain socket: the same bytes, no framing, no decoding. */
        Map<String, Double> raw() throws Exception {
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                Process p = python("raw", "127.0.0.1:" + server.getLocalPort());
                awaitReady(p);
                CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
                    try (Socket s = server.accept()) {
                        s.setSendBufferSize(4 << 20);
                        OutputStream out = s.getOutputStream();
                        for (int i = 0; i < count; i++) {
                            out.write(blob);
                        }
                        out.flush();
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                });
                return result(p, sender);
            }
        }

        /** The TCP channel: a real endpoint, framing, credits; the client decodes every message. */
        Map<String, Double> tcp() throws Exception {
            Path registry = Files.createTempDirectory(workDir, "registry");
            ChannelSinkOptions options = ChannelSinkOptions.builder(registry.toString()).capacity(64).bufferBytes(256L << 20)
                    .linger(Duration.ZERO).maxFrameBytes(Math.max(256L << 20, blob.length + 64L)).build();
            try (ChannelEndpoint endpoint = new ChannelEndpoint(options, 0, 1, "bench")) {
                // The client finds the endpoint and its access token in the registry, as trainers do.
                Process p = python("tcp", registry.toString());
                awaitReady(p);
                CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
                    try {
                        for (int i = 0; i < count; i++) {
                            endpoint.put(new EncodedMessage(0, i, count, blob));
                        }
                        endpoint.finishAndDrain();
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                });
                return result(p, sender);
            } finally {
                try (var files = Files.list(registry)) {
                    for (Path f : files.toList()) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(registry);
            }
        }

        /** Shared memory: a ring in /dev/shm; the reader decodes every message in place. */
        Map<String, Double> shm() throws Exception {
            Path ringFile = Path.of("/dev/shm", "fanout-bench-" + ProcessHandle.current().pid() + "-0.ring");
            long capacity = Math.max(64L << 20, 8L * ((blob.length + 31) & ~7L));
            try (ShmRing ring = ShmRing.create(ringFile, capacity, 0, 1)) {
                Process p = python("shm", ringFile.toString());
                awaitReady(p);
                CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
                    try {
                        for (int i = 0; i < count; i++) {
                            ring.write(0, i, count, blob, 0, blob.length);
                        }
                        ring.finish();
                        ring.awaitDrained(-1);
                    } catch (InterruptedException e) {
                        throw new RuntimeException(e);
                    }
                });
                return result(p, sender);
            }
        }
    }
}
