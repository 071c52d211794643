package io.fanout.deploy.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

/**
 * Builds and runs ../shared/bench/refsampler.c, the single-threaded C reference every Fanout
 * benchmark is a ratio to, as a child process of the benchmark (same machine, same moment).
 */
final class RefSampler {
    /**
     * glibc's tunable (2.35 and later; older ones ignore it) that puts malloc's memory in transparent huge pages
     * where the kernel gives them on request, as {@code -XX:+UseTransparentHugePages} does for the JVM's heap.
     */
    static final String HUGE_PAGES_TUNABLE = "glibc.malloc.hugetlb=1";

    private final Path binary;
    private final Path workDir;
    private final boolean hugePages;

    private RefSampler(Path binary, Path workDir) {
        this.binary = binary;
        this.workDir = workDir;
        // Like with like: Fanout's JVMs run with their heap in transparent huge pages where the kernel gives them
        // (deploy/bin/fanout-env.sh), so the reference gets the same for its malloc'd arrays. On 4 KB pages
        // (FANOUT_THP=0) the Java core sampled 80-84 M edges/s against 91-96 M on huge pages (ego_twitter_u,
        // [15,10]); refsampler.c moved by less than its spread between processes, 70 M against 74 M on average
        // over five pairs.
        this.hugePages = ManagementFactory.getRuntimeMXBean().getInputArguments()
                .contains("-XX:+UseTransparentHugePages");
    }

    /** Whether the reference runs with its arrays in transparent huge pages, as this JVM's heap is. */
    boolean hugePages() {
        return hugePages;
    }

    /** One line for the benchmark's header: how the reference's memory is set up beside the JVM's. */
    String describe() {
        return hugePages ? "  refsampler.c runs with GLIBC_TUNABLES=" + HUGE_PAGES_TUNABLE + ": its arrays in transparent"
                + " huge pages, as this JVM's heap (-XX:+UseTransparentHugePages)"
                : "  refsampler.c and this JVM run without asking for transparent huge pages";
    }

    /** Compiles refsampler.c into workDir (once; again when the source is newer). */
    static RefSampler build(Path sharedDir, Path workDir) throws IOException, InterruptedException {
        Path source = sharedDir.resolve("bench/refsampler.c");
        if (!Files.isRegularFile(source)) {
            throw new IOException("reference sampler not found: " + source);
        }
        Files.createDirectories(workDir);
        Path binary = workDir.resolve("refsampler");
        if (!Files.exists(binary) || Files.getLastModifiedTime(binary).compareTo(Files.getLastModifiedTime(source)) < 0) {
            run(new ProcessBuilder("cc", "-O2", "-march=native", "-o", binary.toString(), source.toString()), 120);
        }
        return new RefSampler(binary, workDir);
    }

    /** The one plain-text edge file of a graph path (a file or a directory), as refsampler reads it. */
    Path edgeFileOf(Path graph) throws IOException {
        List<Path> edgeFiles = io.fanout.graph.GraphLoader.edgeFiles(graph);
        if (edgeFiles.size() != 1) {
            throw new IllegalArgumentException("the reference sampler reads one edge file; " + graph + " has "
                    + edgeFiles.size());
        }
        return plainEdgeFile(edgeFiles.get(0));
    }

    /** refsampler reads plain text: a gzipped edge file is unpacked once into the work directory. */
    Path plainEdgeFile(Path edgeFile) throws IOException {
        String name = edgeFile.getFileName().toString();
        if (!name.endsWith(".gz")) {
            return edgeFile;
        }
        Path plain = workDir.resolve(edgeFile.getParent().getFileName() + "-" + name.substring(0, name.length() - 3));
        if (!Files.exists(plain) || Files.size(plain) == 0) {
            Path tmp = workDir.resolve(plain.getFileName() + ".tmp");
            try (InputStream in = new GZIPInputStream(Files.newInputStream(edgeFile), 1 << 16);
                    OutputStream out = Files.newOutputStream(tmp)) {
                in.transferTo(out);
            }
            Files.move(tmp, plain, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return plain;
    }

    /** Runs refsampler with args and returns the key=value pairs of its result line. */
    Map<String, String> run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.toString());
        cmd.addAll(List.of(args));
        return parse(run(command(cmd, hugePages), 600));
    }

    /** The reference's process: with {@link #HUGE_PAGES_TUNABLE} added to any GLIBC_TUNABLES given when hugePages. */
    static ProcessBuilder command(List<String> cmd, boolean hugePages) {
        ProcessBuilder builder = new ProcessBuilder(cmd);
        if (hugePages) {
            builder.environment().put("GLIBC_TUNABLES", withHugePages(builder.environment().get("GLIBC_TUNABLES")));
        }
        return builder;
    }

    /** GLIBC_TUNABLES with {@link #HUGE_PAGES_TUNABLE} added to what the user gave (tunables are colon-separated). */
    static String withHugePages(String given) {
        return given == null || given.isBlank() ? HUGE_PAGES_TUNABLE : given + ":" + HUGE_PAGES_TUNABLE;
    }

    /** Runs a process built by {@link #command} and returns the key=value pairs of its output. */
    static Map<String, String> runParsed(ProcessBuilder builder) throws IOException, InterruptedException {
        return parse(run(builder, 60));
    }

    private static String run(ProcessBuilder builder, int timeoutSeconds) throws IOException, InterruptedException {
        String cmd = String.join(" ", builder.command());
        Process p = builder.redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + cmd);
        }
        if (p.exitValue() != 0) {
            throw new IOException("failed with exit code " + p.exitValue() + ": " + cmd);
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    static Map<String, String> parse(String line) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String token : line.trim().split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                values.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        return values;
    }
}
