package io.fanout.sampling.ppr;

import io.fanout.graph.GraphLoader;
import io.fanout.testing.SharedData;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Exact PPR from ../shared/oracles/ppr_oracle.py, run as a real python3 process (numpy + scipy). Many seeds
 * share one graph load through ppr_oracle_many.py, which calls the oracle's own functions; results are
 * cached per JVM so that test classes pay for each (graph, alpha, seeds, direction) once.
 */
public final class PprOracle {
    private static final Map<String, double[][]> CACHE = new ConcurrentHashMap<>();

    private PprOracle() {
    }

    static Path oracleScript() {
        return SharedData.dataDir().getParent().resolve("oracles/ppr_oracle.py");
    }

    static Path edgeFile(String dataset) throws IOException {
        List<Path> files = GraphLoader.edgeFiles(SharedData.graph(dataset));
        if (files.size() != 1) {
            throw new IllegalStateException(dataset + " has " + files.size() + " edge files");
        }
        return files.get(0);
    }

    /** {@code exact[i][u]} = PPR of node u for seeds[i], out-edges (or in-edges with reverse). */
    public static double[][] exact(String dataset, double alpha, int[] seeds, boolean reverse) throws Exception {
        String key = dataset + "|" + alpha + "|" + Arrays.toString(seeds) + "|" + reverse;
        double[][] cached = CACHE.get(key);
        if (cached != null) {
            return cached;
        }
        double[][] result = run(edgeFile(dataset), alpha, seeds, reverse);
        CACHE.put(key, result);
        return result;
    }

    /** {@code exact[i][u]} = PPR of node u for seeds[i] on an edge file written by the test (out-edges). */
    static double[][] exactFile(Path edges, double alpha, int[] seeds) throws Exception {
        String key = edges + "|" + alpha + "|" + Arrays.toString(seeds);
        double[][] cached = CACHE.get(key);
        if (cached == null) {
            cached = run(edges, alpha, seeds, false);
            CACHE.put(key, cached);
        }
        return cached;
    }

    private static double[][] run(Path edges, double alpha, int[] seeds, boolean reverse)
            throws IOException, InterruptedException, URISyntaxException {
        Path driver = Path.of(PprOracle.class.getResource("ppr_oracle_many.py").toURI());
        Path out = Files.createTempFile("ppr-oracle", ".f64");
        try {
            List<String> cmd = new ArrayList<>(List.of("python3", driver.toString(), oracleScript().toString(),
                    edges.toString(), String.valueOf(alpha),
                    Arrays.stream(seeds).mapToObj(String::valueOf).collect(Collectors.joining(",")), out.toString()));
            if (reverse) {
                cmd.add("--reverse");
            }
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("oracle timed out: " + cmd);
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("oracle failed (" + p.exitValue() + "): " + cmd + "\n" + output);
            }
            int n = Integer.parseInt(output.trim().lines().reduce((a, b) -> b).orElseThrow().trim());
            ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
            if (buf.remaining() != (long) n * seeds.length * 8) {
                throw new IllegalStateException("oracle wrote " + buf.remaining() + " bytes, expected " + n + " x "
                        + seeds.length + " doubles");
            }
            double[][] exact = new double[seeds.length][n];
            for (double[] row : exact) {
                buf.asDoubleBuffer().get(row);
                buf.position(buf.position() + n * 8);
            }
            return exact;
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** The oracle's own command line for one seed: node -> score of its top-k lines (k = 0: all nodes). */
    static Map<Integer, Double> cli(String dataset, double alpha, int seed, int topk) throws Exception {
        List<String> cmd = List.of("python3", oracleScript().toString(), edgeFile(dataset).toString(), "--seed",
                String.valueOf(seed), "--alpha", String.valueOf(alpha), "--topk", String.valueOf(topk));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("oracle CLI failed: " + cmd);
        }
        Map<Integer, Double> scores = new java.util.LinkedHashMap<>();
        for (String line : output.split("\n")) {
            if (!line.isBlank()) {
                String[] f = line.split("\t");
                scores.put(Integer.parseInt(f[0]), Double.parseDouble(f[1]));
            }
        }
        return scores;
    }
}
