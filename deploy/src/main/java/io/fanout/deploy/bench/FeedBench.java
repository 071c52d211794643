package io.fanout.deploy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.job.FanoutJob;
import io.fanout.config.FanoutJobConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Trainer-side feed benchmark (not a test): the CPU a trainer's thread spends turning one message into a PyG
 * {@code Data} (decode + dequantise + {@code to_pyg}) against one GraphSAGE training step on it, from
 * {@code connectors/python/bench/feed_phases.py --json} (thread CPU time, medians over the messages), for each
 * {@code --feature-dtype}; with uint8 also {@code to_pyg(..., dequantise=False)}, the features left for the GPU.
 *
 * <p>The ratio is step / feed (goal >= 20x: the feed costs at most 5 % of a step). The messages come from the real
 * job run first into {@code deploy/target/bench/feed-<dtype>}; the Python side needs torch and PyG (Debian's
 * {@code /usr/bin/python3}, or {@code FANOUT_TORCH_PYTHON}).
 *
 * <p>{@code deploy/bin/fanout-bench feed [--graph ../shared/data/cora] [--batch-size 512] [--fanout 15,10]
 * [--epochs 5] [--dtypes float32,uint8]} plus {@link BenchRecord#OPTIONS_USAGE}; result {@code feed.json}.
 */
final class FeedBench {
    /** The feed may cost at most 5 % of a training step (issue 28). */
    private static final double GOAL = 20.0;

    private FeedBench() {}

    static void run(String[] args, Path root, Path shared) throws Exception {
        String graph = shared.resolve("data/cora").toString();
        String features = null;
        int batchSize = 512;
        String fanout = "15,10";
        int epochs = 5;
        List<String> dtypes = List.of("float32", "uint8");
        BenchRecord record = new BenchRecord("feed", "deploy/bin/fanout-bench", args, root, 5, 1);
        for (int i = 1; i + 1 < args.length; i += 2) {
            if (record.option(args[i], args[i + 1])) {
                continue;
            }
            switch (args[i]) {
                case "--graph" -> graph = args[i + 1];
                case "--node-features" -> features = args[i + 1];
                case "--batch-size" -> batchSize = Integer.parseInt(args[i + 1]);
                case "--fanout" -> fanout = args[i + 1];
                case "--epochs" -> epochs = Integer.parseInt(args[i + 1]);
                case "--dtypes" -> dtypes = List.of(args[i + 1].split(","));
                default -> throw new IllegalArgumentException("unknown benchmark option " + args[i] + " (usage: fanout-bench"
                        + " feed [--graph DIR] [--node-features FILE] [--batch-size 512] [--fanout 15,10] [--epochs 5]"
                        + " [--dtypes float32,uint8] " + BenchRecord.OPTIONS_USAGE + ")");
            }
        }
        if (features == null) {
            features = Path.of(graph).resolve("nodes.tsv.gz").toString();
        }
        String python = System.getenv().getOrDefault("FANOUT_TORCH_PYTHON", "/usr/bin/python3");
        Path script = root.resolve("connectors/python/bench/feed_phases.py");
        Map<String, Path> samples = new LinkedHashMap<>();
        for (String dtype : dtypes) {
            Path out = root.resolve("deploy/target/bench/feed-" + dtype.trim());
            FanoutJob.run(FanoutJobConfig.from(FanoutJob.commandLine().parse(new String[] {"--graph", graph,
                "--node-features", features, "--fanout", fanout, "--batch-size", String.valueOf(batchSize), "--epochs",
                String.valueOf(epochs), "--feature-dtype", dtype.trim(), "--output", out.toString(),
                "--output-mode", "overwrite"}).configuration));
            samples.put(dtype.trim(), out);
        }
        System.out.printf(Locale.ROOT, "feed benchmark: %s, batch %d, fanout %s, %d epochs, %s; %d warm-up + %d rounds,"
                + " %d run(s) (%s)%n", graph, batchSize, fanout, epochs, samples.keySet(), record.warmup, record.rounds,
                record.repeat, python);
        record.details().put("graph", Path.of(graph).getFileName().toString()).put("batch_size", batchSize)
                .put("fanout", fanout).put("epochs", epochs).put("python", python)
                .put("measures", "thread CPU ms per message (median over the messages) of decode + to_pyg (the feed)"
                        + " and of one GraphSAGE training step (torch on 1 thread), in the same process");
        List<String> order = new ArrayList<>(samples.keySet());
        for (int run = 0; run < record.repeat; run++) {
            record.startRun(run);
            Map<String, double[][]> values = new LinkedHashMap<>(); // id -> {feed ms, step ms} per round
            for (int r = -record.warmup; r < record.rounds; r++) {
                // Alternate the dtypes' order, as PairedRounds alternates sides.
                List<String> round = new ArrayList<>(order);
                if (Math.floorMod(r, 2) == 1) {
                    Collections.reverse(round);
                }
                for (String dtype : round) {
                    JsonNode phases = phases(python, script, root, samples.get(dtype));
                    System.out.printf(Locale.ROOT, "  %s %s: %s%n", r < 0 ? "warm-up" : "round " + r, dtype, phases);
                    if (r < 0) {
                        continue;
                    }
                    put(values, "step_over_feed_" + dtype, r, record.rounds, phases.get("to_pyg_ms").asDouble(),
                            phases.get("step_ms").asDouble());
                    if (phases.has("to_pyg_deferred_ms")) {
                        put(values, "step_over_feed_" + dtype + "_deferred", r, record.rounds,
                                phases.get("to_pyg_deferred_ms").asDouble(), phases.get("step_ms").asDouble());
                    }
                    record.details().put("message_mb_" + dtype, phases.get("message_mb").asDouble())
                            .put("nodes_per_message", phases.get("nodes").asDouble())
                            .put("messages", phases.get("messages").asInt());
                }
            }
            for (Map.Entry<String, double[][]> e : values.entrySet()) {
                String id = e.getKey();
                String dtype = id.substring("step_over_feed_".length());
                String what = dtype.endsWith("_deferred")
                        ? "uint8 features left for the GPU (to_pyg(dequantise=False)): training step / feed CPU"
                        : dtype + " features: training step / feed CPU (decode + to_pyg)";
                record.add(id, what, "thread CPU ms per message", "feed", "GraphSAGE step", GOAL, e.getValue()[0],
                        e.getValue()[1]);
            }
        }
        record.write();
        BenchTables.updateReadme(root, record);
    }

    private static void put(Map<String, double[][]> values, String id, int round, int rounds, double feed, double step) {
        double[][] v = values.computeIfAbsent(id, k -> new double[2][rounds]);
        v[0][round] = feed;
        v[1][round] = step;
    }

    /** One run of feed_phases.py over a samples directory: its JSON line. */
    private static JsonNode phases(String python, Path script, Path root, Path samples) throws IOException,
            InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(python, script.toString(), samples.toString(), "--json")
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("PYTHONPATH", root.resolve("connectors/python").toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException(python + " " + script + " failed (exit " + p.exitValue() + "): " + out);
        }
        String last = out.strip().lines().reduce((a, b) -> b).orElse("");
        if (!last.startsWith("{")) {
            throw new IllegalStateException(script + " printed no JSON line: " + out);
        }
        return BenchRecord.JSON.readTree(last);
    }
}
