package io.fanout.deploy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The README's benchmark tables, one per benchmark, generated from {@code deploy/bench-results/*.json}: a benchmark
 * run into that directory rewrites them, and {@code BenchTablesTest} keeps them equal to the JSON.
 */
public final class BenchTables {
    public static final String BEGIN = "<!-- bench-results:begin (generated from deploy/bench-results/*.json) -->";
    public static final String END = "<!-- bench-results:end -->";
    /** The order of the tables; other names follow alphabetically. */
    private static final List<String> ORDER = List.of("khop", "khop-weighted", "ppr", "partitioned", "partitioned-ppr",
            "channel", "feed");

    private BenchTables() {}

    /** The committed results directory of a checkout. */
    public static Path resultsDir(Path root) {
        return root.resolve("deploy/bench-results");
    }

    /** The tables for every result file in {@code dir}, as README markdown (ends with a newline). */
    public static String markdown(Path dir) throws IOException {
        List<JsonNode> results = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".json")).toList()) {
                results.add(BenchRecord.JSON.readTree(f.toFile()));
            }
        }
        results.sort(Comparator.comparing((JsonNode r) -> {
            int i = ORDER.indexOf(r.get("name").asText());
            return i < 0 ? ORDER.size() : i;
        }).thenComparing(r -> r.get("name").asText()));
        StringBuilder md = new StringBuilder();
        for (JsonNode r : results) {
            // One table per benchmark; its first header cell says which run it is (no caption line: README lines count).
            md.append(String.format(Locale.ROOT, "%n| **%s** %s, %d cores, %d run(s)%s: `%s` | median | IQR | min-max"
                    + " | rounds | goal | runs agree (15 %%) |%n|---|---|---|---|---|---|---|%n",
                    r.get("name").asText(), r.get("date").asText().replace('T', ' ').replace("Z", " UTC"),
                    r.get("cores").asInt(), r.get("repeat").asInt(),
                    r.get("label").isNull() ? "" : ", **" + r.get("label").asText() + "**", r.get("command").asText()));
            for (JsonNode m : r.get("measurements")) {
                List<String> medians = new ArrayList<>();
                for (JsonNode run : m.get("runs")) {
                    medians.add(String.format(Locale.ROOT, "%.2f%s", run.get("median").asDouble(),
                            BenchRecord.lowerIsBetter(m) ? "" : "x"));
                }
                // A lower-is-better measurement is a quantity (e.g. bytes per stored edge), not a speed-up: no "x".
                boolean lower = BenchRecord.lowerIsBetter(m);
                String x = lower ? "" : "x";
                md.append(String.format(Locale.ROOT, "| %s | **%.2f%s** | %.2f-%.2f%s | %.2f-%.2f%s | %s | %s | %s |%n",
                        m.get("what").asText(), m.get("median").asDouble(), x, m.get("q1").asDouble(),
                        m.get("q3").asDouble(), x, m.get("min").asDouble(), m.get("max").asDouble(), x,
                        // warm-up + measured rounds per run, times the runs
                        r.get("warmup").asInt() + "+" + m.get("runs").get(0).get("ratios").size()
                                + (medians.size() > 1 ? " x" + medians.size() : ""),
                        m.get("goal").isNull() ? "-" : String.format(Locale.ROOT, "%s %s%s: %s", lower ? "<=" : ">=",
                                m.get("goal").asText(), x, m.get("met").asBoolean() ? "met" : "**not met**"),
                        m.get("agree").isNull() ? "- (one run)" : (m.get("agree").asBoolean() ? "yes " : "**no** ")
                                + String.join(", ", medians)));
            }
        }
        return md.toString();
    }

    /** The README's current block between the markers. */
    public static String readmeBlock(Path readme) throws IOException {
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int from = text.indexOf(BEGIN);
        int to = text.indexOf(END);
        if (from < 0 || to < from) {
            throw new IllegalStateException(readme + " lacks the markers " + BEGIN + " ... " + END);
        }
        return text.substring(from + BEGIN.length(), to);
    }

    /** Rewrites the README's block from the JSON of {@code dir}. */
    public static void writeReadme(Path readme, Path dir) throws IOException {
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        String block = readmeBlock(readme);
        int from = text.indexOf(BEGIN) + BEGIN.length();
        Files.writeString(readme, text.substring(0, from) + markdown(dir) + text.substring(from + block.length()),
                StandardCharsets.UTF_8);
    }

    /** After a benchmark wrote into the checkout's results directory: its README table follows. */
    static void updateReadme(Path root, BenchRecord record) throws IOException {
        Path readme = root.resolve("README.md");
        if (record.resultsDir.equals(resultsDir(root)) && Files.isRegularFile(readme)) {
            writeReadme(readme, record.resultsDir);
            System.out.println("README.md: benchmark tables regenerated from " + record.resultsDir);
        }
    }
}
