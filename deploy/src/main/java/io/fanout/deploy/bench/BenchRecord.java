package io.fanout.deploy.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One benchmark's result, in the schema every benchmark shares ({@code deploy/bench-results/<name>.json}): per
 * measurement the per-round values of both sides, the per-round ratios, their median and spread, the goal from
 * issue 28 and whether it is met, and, with {@code --repeat 2}, whether the runs' medians agree within 15 %.
 * Also parses the options every benchmark shares: {@code --rounds --warmup --repeat --label --results}.
 */
final class BenchRecord {
    /** Two runs agree when their medians differ by at most this share of the smaller one. */
    static final double AGREE_WITHIN = 0.15;
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final String name;
    private final String command;
    private final Map<String, ObjectNode> measurements = new LinkedHashMap<>();
    private final ObjectNode details = JSON.createObjectNode();
    int rounds;
    int warmup;
    int repeat = 1;
    String label;
    Path resultsDir;
    private int run = -1;

    /**
     * @param name the result's name and file name (khop, ppr, partitioned, channel)
     * @param script the launcher, for the recorded command line
     * @param args the launcher's arguments as given
     */
    BenchRecord(String name, String script, String[] args, Path root, int rounds, int warmup) {
        this.name = name;
        this.rounds = rounds;
        this.warmup = warmup;
        this.resultsDir = root.resolve("deploy/bench-results");
        StringBuilder cmd = new StringBuilder(script);
        for (String a : args) {
            cmd.append(' ').append(a.isEmpty() || a.matches(".*[\\s\"'$*].*") ? "\"" + a.replace("\"", "\\\"") + "\"" : a);
        }
        this.command = cmd.toString();
    }

    /** Takes one of the shared options; false when {@code key} is not one of them. */
    boolean option(String key, String value) {
        switch (key) {
            case "--rounds" -> rounds = positive(key, value);
            case "--warmup" -> warmup = Integer.parseInt(value);
            case "--repeat" -> repeat = positive(key, value);
            case "--label" -> label = value.isBlank() ? null : value;
            case "--results" -> resultsDir = Path.of(value).toAbsolutePath().normalize();
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Whether the arguments ask for the usage ({@code --help} or {@code -h}) rather than a run. */
    static boolean wantsHelp(String[] args) {
        return Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h");
    }

    /**
     * Refuses options from {@code args[from]} on that are not in pairs: every benchmark option takes a value, and a
     * lone last one would otherwise be dropped unread (a run with an option the user believes was taken).
     */
    static void requireValues(String[] args, int from) {
        if ((args.length - from) % 2 != 0) {
            throw new IllegalArgumentException("benchmark option " + args[args.length - 1] + " has no value");
        }
    }

    static final String OPTIONS_USAGE = "[--rounds N] [--warmup N] [--repeat 2] [--label TEXT] [--results DIR]";

    static int positive(String key, String value) {
        int n = Integer.parseInt(value);
        if (n < 1) {
            throw new IllegalArgumentException(key + " must be at least 1, got " + value);
        }
        return n;
    }

    /** Starts run {@code r} (0-based) of the {@link #repeat} runs of the whole benchmark. */
    void startRun(int r) {
        run = r;
        if (repeat > 1) {
            System.out.printf(Locale.ROOT, "== run %d of %d%n", r + 1, repeat);
        }
    }

    /** Benchmark-specific facts (graph, sizes, the last run's extras), kept under "details". */
    ObjectNode details() {
        return details;
    }

    /**
     * Adds this run's rounds of one comparison: per round {@code b[i] / a[i]}; prints the median and spread.
     *
     * @param id stable key of the measurement (e.g. {@code core}, {@code job_p2})
     * @param what what the ratio is, for people (e.g. "sampling core, 1 thread / refsampler.c")
     * @param goal the ratio issue 28 asks for (met when the median is at least this), or null
     */
    void add(String id, String what, String unit, String a, String b, Double goal, double[] aValues, double[] bValues) {
        add(id, what, unit, a, b, goal, false, aValues, bValues);
    }

    /**
     * As {@link #add(String, String, String, String, String, Double, double[], double[])}; with {@code lowerIsBetter}
     * the goal is met when the median is at most {@code goal} (e.g. bytes per stored edge: b = bytes, a = edges),
     * recorded as {@code "better": "lower"} (absent: higher is better).
     */
    void add(String id, String what, String unit, String a, String b, Double goal, boolean lowerIsBetter,
            double[] aValues, double[] bValues) {
        ObjectNode m = measurements.computeIfAbsent(id, k -> {
            ObjectNode n = JSON.createObjectNode().put("id", id).put("what", what).put("unit", unit).put("a", a).put("b", b);
            if (goal == null) {
                n.putNull("goal");
            } else {
                n.put("goal", goal);
            }
            if (lowerIsBetter) {
                n.put("better", "lower");
            }
            n.putArray("runs");
            return n;
        });
        double[] ratios = ratios(aValues, bValues);
        ObjectNode r = ((ArrayNode) m.get("runs")).addObject();
        r.put("run", run + 1);
        array(r.putArray("a"), aValues);
        array(r.putArray("b"), bValues);
        array(r.putArray("ratios"), ratios);
        r.put("median", round4(median(ratios)));
        r.put("min", round4(Arrays.stream(ratios).min().orElse(Double.NaN)));
        r.put("max", round4(Arrays.stream(ratios).max().orElse(Double.NaN)));
        String x = lowerIsBetter ? "" : "x"; // a lower-is-better measurement is a quantity, not a speed-up
        System.out.printf(Locale.ROOT, "  %s: median %.2f%s (rounds %.2f-%.2f%s, %d rounds)%s%n", what, median(ratios),
                x, r.get("min").asDouble(), r.get("max").asDouble(), x, ratios.length,
                goal == null ? "" : String.format(Locale.ROOT, "  goal %s %.2f%s: %s", lowerIsBetter ? "<=" : ">=", goal, x,
                        met(median(ratios), goal, lowerIsBetter) ? "met" : "NOT met"));
    }

    /** Whether a median meets its goal: at least it, or at most it for a lower-is-better measurement. */
    static boolean met(double median, double goal, boolean lowerIsBetter) {
        return lowerIsBetter ? median <= goal : median >= goal;
    }

    /** Whether a written measurement's goal is an upper bound ({@code "better": "lower"}). */
    static boolean lowerIsBetter(com.fasterxml.jackson.databind.JsonNode measurement) {
        return measurement.has("better") && measurement.get("better").asText().equals("lower");
    }

    /** Summarises every measurement over the runs, prints the agreement line and writes the JSON; returns its path. */
    Path write() throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("name", name);
        root.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        root.put("command", command);
        root.put("label", label);
        root.put("cores", Runtime.getRuntime().availableProcessors());
        root.put("warmup", warmup);
        root.put("rounds", rounds);
        root.put("repeat", repeat);
        root.put("agree_within", AGREE_WITHIN);
        boolean allAgree = true;
        ArrayNode list = JSON.createArrayNode();
        System.out.println();
        for (ObjectNode m : measurements.values()) {
            List<Double> all = new ArrayList<>();
            List<Double> medians = new ArrayList<>();
            for (var r : m.get("runs")) {
                r.get("ratios").forEach(v -> all.add(v.asDouble()));
                medians.add(r.get("median").asDouble());
            }
            double[] pooled = all.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            double median = median(pooled);
            m.put("median", round4(median));
            m.put("min", round4(pooled[0]));
            m.put("max", round4(pooled[pooled.length - 1]));
            m.put("q1", round4(quantile(pooled, 0.25)));
            m.put("q3", round4(quantile(pooled, 0.75)));
            boolean lower = lowerIsBetter(m);
            putNullable(m, "met", m.get("goal").isNull() ? null : met(median, m.get("goal").asDouble(), lower));
            Boolean agree = null;
            if (medians.size() > 1) {
                double lo = medians.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
                double hi = medians.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
                agree = hi - lo <= AGREE_WITHIN * lo;
                allAgree &= agree;
            }
            putNullable(m, "agree", agree);
            list.add(m);
            String x = lower ? "" : "x";
            System.out.printf(Locale.ROOT, "  %-55s median %.2f%s (IQR %.2f-%.2f%s, min-max %.2f-%.2f%s)%s%s%n",
                    m.get("what").asText(), median, x, quantile(pooled, 0.25), quantile(pooled, 0.75), x, pooled[0],
                    pooled[pooled.length - 1], x, m.get("goal").isNull() ? "" : String.format(Locale.ROOT,
                            "  goal %s %.2f%s %s", lower ? "<=" : ">=", m.get("goal").asDouble(), x,
                            met(median, m.get("goal").asDouble(), lower) ? "met" : "NOT met"),
                    agree == null ? "" : String.format(Locale.ROOT, "  runs %s: %s", medians.stream().map(v ->
                            String.format(Locale.ROOT, "%.2fx", v)).toList(), agree ? "agree" : "DO NOT agree"));
        }
        putNullable(root, "agree", repeat > 1 ? allAgree : null);
        if (repeat > 1) {
            System.out.printf(Locale.ROOT, "%s: the %d runs' medians %s within %.0f %%%n", name, repeat,
                    allAgree ? "agree" : "do NOT agree", 100 * AGREE_WITHIN);
        }
        root.set("measurements", list);
        root.set("details", details);
        Files.createDirectories(resultsDir);
        Path out = resultsDir.resolve(name + ".json");
        Files.writeString(out, JSON.writeValueAsString(root) + "\n", StandardCharsets.UTF_8);
        System.out.println("results: " + out);
        return out;
    }

    /** Per round {@code b[i] / a[i]}. */
    static double[] ratios(double[] a, double[] b) {
        double[] ratios = new double[a.length];
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = b[i] / a[i];
        }
        return ratios;
    }

    /** The median (the mean of the two middle values for an even count). */
    static double median(double[] values) {
        return quantile(Arrays.stream(values).sorted().toArray(), 0.5);
    }

    /** Linear-interpolated quantile of sorted values. */
    private static double quantile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }

    private static void putNullable(ObjectNode node, String key, Boolean value) {
        if (value == null) {
            node.putNull(key);
        } else {
            node.put(key, value);
        }
    }

    private static void array(ArrayNode node, double[] values) {
        for (double v : values) {
            node.add(round4(v));
        }
    }

    private static double round4(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return v;
        }
        double scale = Math.abs(v) >= 1000 ? 1 : 1e4;
        return Math.round(v * scale) / scale;
    }
}
