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
import java.lang.management.ManagementFactory;
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
 * socket into Python {@code recv_into}, no framing) measured in the same run; the three run in paired,
 * alternated rounds ({@link PairedRounds}) and each ratio is the median of the per-round ratios.
 *
 * <p>{@code --pin CPU} places the receiver as a trainer beside a job is placed: the Python process on that CPU
 * alone, this JVM (the sender and the endpoint's threads) on the others, for all three sides alike. Unpinned, the
 * receiver shares its CPU with the endpoint's threads whenever the scheduler puts them together.
 *
 * <p>{@code deploy/bin/fanout-channel-bench [--sizes 65536,4194304] [--mib 512] [--pin CPU]} plus
 * {@link BenchRecord#OPTIONS_USAGE}; the result goes to {@code deploy/bench-results/channel.json}.
 */
public final class ChannelBench {
    private static final Pattern NUMBER = Pattern.compile("\"(\\w+)\": ([0-9.eE+-]+)");

    private ChannelBench() {}

    private static final String USAGE = "usage: fanout-channel-bench [--sizes 65536,4194304] [--mib 512] [--pin CPU] "
            + BenchRecord.OPTIONS_USAGE;

    public static void main(String[] args) throws Exception {
        if (BenchRecord.wantsHelp(args)) {
            System.out.println(USAGE);
            System.exit(0);
        }
        BenchRecord.requireValues(args, 0);
        Path root = Path.of(System.getProperty("fanout.root", ".")).toAbsolutePath().normalize();
        List<Integer> sizes = List.of(64 << 10, 4 << 20);
        long mib = 512;
        Integer pin = null;
        BenchRecord record = new BenchRecord("channel", "deploy/bin/fanout-channel-bench", args, root, 5, 1);
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (record.option(args[i], args[i + 1])) {
                continue;
            }
            switch (args[i]) {
                case "--sizes" -> sizes = Arrays.stream(args[i + 1].split(",")).map(String::trim).map(Integer::parseInt).toList();
                case "--mib" -> mib = Long.parseLong(args[i + 1]);
                case "--pin" -> pin = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown benchmark option " + args[i] + " (" + USAGE + ")");
            }
        }
        Path script = root.resolve("connectors/python/bench/channel_bench.py");
        Path workDir = root.resolve("deploy/target/bench");
        Files.createDirectories(workDir);
        System.out.printf(Locale.ROOT, "channel benchmark: %d MiB per measurement, %d warm-up + %d rounds, %d run(s),"
                + " %d cores%n", mib, record.warmup, record.rounds, record.repeat, Runtime.getRuntime().availableProcessors());
        record.details().put("mib_per_measurement", mib).putPOJO("sizes", sizes);
        List<String> receiverPrefix = List.of();
        if (pin != null) {
            String others = pinJvmAwayFrom(pin);
            receiverPrefix = List.of("taskset", "-c", String.valueOf(pin));
            record.details().put("receiver_cpu", pin).put("jvm_cpus", others);
            System.out.printf(Locale.ROOT, "pinned: the Python receiver on CPU %d, this JVM on CPUs %s%n", pin, others);
        }
        for (int run = 0; run < record.repeat; run++) {
            record.startRun(run);
            for (int target : sizes) {
                byte[] blob = blobOfAbout(target);
                int count = (int) Math.max(16, (mib << 20) / blob.length);
                Bench bench = new Bench(root, script, workDir, blob, count, receiverPrefix);
                LinkedHashMap<String, PairedRounds.Side> sides = new LinkedHashMap<>();
                for (String mode : List.of("raw", "tcp", "shm")) {
                    sides.put(mode, r -> bench.run(mode));
                }
                PairedRounds rounds = PairedRounds.run(blob.length + " B", record.warmup, record.rounds, sides, "mb_per_s");
                String size = sizeName(target);
                double[] raw = rounds.values("raw", "mb_per_s");
                double[] tcp = rounds.values("tcp", "mb_per_s");
                double[] shm = rounds.values("shm", "mb_per_s");
                record.add("tcp_over_raw_" + size, size + " messages: TCP channel / raw socket", "MB/s", "raw", "tcp",
                        0.8, raw, tcp);
                record.add("shm_over_tcp_" + size, size + " messages: shared memory / TCP channel", "MB/s", "tcp", "shm",
                        2.0, tcp, shm);
                record.details().put("shm_over_raw_median_" + size, BenchRecord.median(BenchRecord.ratios(raw, shm)));
                record.details().put("message_bytes_" + size, blob.length).put("messages_" + size, count);
                for (String mode : sides.keySet()) {
                    record.details().put(mode + "_messages_per_s_" + size,
                            BenchRecord.median(rounds.values(mode, "messages_per_s")));
                    // CPU per message of each side (medians): what bounds the rates on a small machine.
                    for (String cpu : List.of("receiver_user_us", "receiver_sys_us", "sender_us")) {
                        record.details().put(mode + "_" + cpu + "_" + size, BenchRecord.median(rounds.values(mode, cpu)));
                    }
                }
            }
        }
        record.write();
        BenchTables.updateReadme(root, record);
    }

    /**
     * Moves every thread of this JVM (and so the threads it starts later, which inherit the mask) to the CPUs
     * other than {@code cpu}, with {@code taskset}; returns them as a comma list such as "0" or "0,2,3".
     */
    private static String pinJvmAwayFrom(int cpu) throws IOException, InterruptedException {
        int cpus = Runtime.getRuntime().availableProcessors();
        if (cpus < 2 || cpu < 0 || cpu >= cpus) {
            throw new IllegalArgumentException("--pin " + cpu + ": needs a CPU in 0.." + (cpus - 1)
                    + " and at least one other CPU for the JVM (" + cpus + " available)");
        }
        StringBuilder others = new StringBuilder();
        for (int c = 0; c < cpus; c++) {
            if (c != cpu) {
                others.append(others.length() == 0 ? "" : ",").append(c);
            }
        }
        Process p = new ProcessBuilder("taskset", "-a", "-p", "-c", others.toString(),
                String.valueOf(ProcessHandle.current().pid())).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("--pin " + cpu + ": taskset could not move this JVM to CPUs " + others + ": " + out);
        }
        return others.toString();
    }

    /** 65536 -> "64KiB", 4194304 -> "4MiB" (other sizes in bytes). */
    private static String sizeName(int bytes) {
        if (bytes % (1 << 20) == 0) {
            return (bytes >> 20) + "MiB";
        }
        return bytes % 1024 == 0 ? (bytes >> 10) + "KiB" : bytes + "B";
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

    /** One message size: runs each mode once per call with a fresh Python receiver. */
    private static final class Bench {
        final Path root;
        final Path script;
        final Path workDir;
        final byte[] blob;
        final int count;
        /** Prepended to the receiver's command line ({@code taskset -c CPU} under --pin). */
        final List<String> receiverPrefix;

        Bench(Path root, Path script, Path workDir, byte[] blob, int count, List<String> receiverPrefix) {
            this.root = root;
            this.script = script;
            this.workDir = workDir;
            this.blob = blob;
            this.count = count;
            this.receiverPrefix = receiverPrefix;
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
            List<String> command = new ArrayList<>(receiverPrefix);
            command.addAll(List.of("python3", script.toString(), mode, where, String.valueOf(blob.length), String.valueOf(count)));
            ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().put("PYTHONPATH", root.resolve("connectors/python").toString());
            return pb.start();
        }

        /**
         * Waits for the receiver's "ready" (connected / ring opened) so every sender starts from the same point; returns
         * this JVM's CPU time then (nanoseconds), where the sending side's CPU is counted from.
         */
        private static long awaitReady(Process p) throws IOException {
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
            return processCpuNanos();
        }

        private static long processCpuNanos() {
            return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        }

        /**
         * The receiver's JSON numbers, plus {@code sender_us}: this JVM's CPU per message since {@code cpuAtReady}
         * (the sender, the endpoint's or ring's threads, JIT and GC; it idles otherwise).
         */
        private Map<String, Double> result(Process p, CompletableFuture<?> sender, long cpuAtReady) throws Exception {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(600, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("python receiver failed: " + out);
            }
            sender.get(60, TimeUnit.SECONDS);
            double senderMicros = (processCpuNanos() - cpuAtReady) / 1e3 / count;
            Map<String, Double> m = new LinkedHashMap<>();
            Matcher matcher = NUMBER.matcher(out);
            while (matcher.find()) {
                m.put(matcher.group(1), Double.parseDouble(matcher.group(2)));
            }
            m.put("sender_us", senderMicros);
            return m;
        }

        /** A plain socket: the same bytes, no framing, no decoding. */
        Map<String, Double> raw() throws Exception {
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                Process p = python("raw", "127.0.0.1:" + server.getLocalPort());
                long cpu = awaitReady(p);
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
                return result(p, sender, cpu);
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
                long cpu = awaitReady(p);
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
                return result(p, sender, cpu);
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
                long cpu = awaitReady(p);
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
                return result(p, sender, cpu);
            }
        }
    }
}
