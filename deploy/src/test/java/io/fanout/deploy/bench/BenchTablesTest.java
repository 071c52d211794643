package io.fanout.deploy.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The committed benchmark results share one schema, are self-consistent, and the README's tables are theirs. */
class BenchTablesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void readmeTablesAreGeneratedFromTheCommittedJson() throws IOException {
        Path readme = ROOT.resolve("README.md");
        String generated = BenchTables.markdown(BenchTables.resultsDir(ROOT));
        if (Boolean.getBoolean("fanout.updateReadme") && !BenchTables.readmeBlock(readme).equals(generated)) {
            BenchTables.writeReadme(readme, BenchTables.resultsDir(ROOT));
        }
        assertThat(BenchTables.readmeBlock(readme))
                .as("README.md's benchmark tables (run BenchTablesTest with -Dfanout.updateReadme=true)")
                .isEqualTo(generated);
    }

    @Test
    void everyBenchmarkHasCommittedResultsInTheSharedSchema() throws IOException {
        List<String> names = new ArrayList<>();
        for (JsonNode r : results()) {
            names.add(r.get("name").asText());
            for (String field : List.of("date", "command", "label", "cores", "warmup", "rounds", "repeat", "agree",
                    "agree_within", "measurements", "details")) {
                assertThat(r.has(field)).as("%s.json has %s", r.get("name").asText(), field).isTrue();
            }
            assertThat(r.get("command").asText()).startsWith("deploy/bin/fanout-");
            boolean allAgree = true;
            for (JsonNode m : r.get("measurements")) {
                assertThat(m.get("runs").size()).isEqualTo(r.get("repeat").asInt());
                List<Double> pooled = new ArrayList<>();
                List<Double> medians = new ArrayList<>();
                for (JsonNode run : m.get("runs")) {
                    assertThat(run.get("a").size()).isEqualTo(run.get("b").size()).isEqualTo(run.get("ratios").size());
                    for (int i = 0; i < run.get("ratios").size(); i++) {
                        double ratio = run.get("b").get(i).asDouble() / run.get("a").get(i).asDouble();
                        assertThat(run.get("ratios").get(i).asDouble()).isCloseTo(ratio, offset(1e-3 * ratio));
                        pooled.add(run.get("ratios").get(i).asDouble());
                    }
                    medians.add(run.get("median").asDouble());
                }
                double median = BenchRecord.median(pooled.stream().mapToDouble(Double::doubleValue).toArray());
                assertThat(m.get("median").asDouble()).isCloseTo(median, offset(1e-3));
                if (!m.get("goal").isNull()) {
                    assertThat(m.get("met").asBoolean()).isEqualTo(BenchRecord.lowerIsBetter(m)
                            ? median <= m.get("goal").asDouble() : median >= m.get("goal").asDouble());
                }
                if (medians.size() > 1) {
                    double lo = medians.stream().min(Double::compare).orElseThrow();
                    double hi = medians.stream().max(Double::compare).orElseThrow();
                    assertThat(m.get("agree").asBoolean()).isEqualTo(hi - lo <= BenchRecord.AGREE_WITHIN * lo);
                    allAgree &= m.get("agree").asBoolean();
                }
            }
            if (r.get("repeat").asInt() > 1) {
                assertThat(r.get("agree").asBoolean()).isEqualTo(allAgree);
            }
        }
        assertThat(names).contains("khop", "ppr", "partitioned", "channel");
    }

    @Test
    void theRecordWritesPerRoundRatiosTheirMedianAndWhetherTwoRunsAgree(@org.junit.jupiter.api.io.TempDir Path dir)
            throws IOException {
        BenchRecord record = new BenchRecord("demo", "deploy/bin/fanout-bench", new String[] {"khop", "--parallelism", ""},
                ROOT, 3, 1);
        assertThat(record.option("--repeat", "2")).isTrue();
        assertThat(record.option("--results", dir.toString())).isTrue();
        assertThat(record.option("--graph", "x")).isFalse();
        record.startRun(0);
        record.add("close", "close", "x/s", "a", "b", 1.0, new double[] {10, 10, 10}, new double[] {9, 11, 12});
        record.add("apart", "apart", "x/s", "a", "b", null, new double[] {10, 10, 10}, new double[] {10, 10, 10});
        record.startRun(1);
        record.add("close", "close", "x/s", "a", "b", 1.0, new double[] {10, 10, 10}, new double[] {10, 12, 11});
        record.add("apart", "apart", "x/s", "a", "b", null, new double[] {10, 10, 10}, new double[] {20, 20, 20});
        record.add("bytes", "bytes per edge", "bytes/edge", "edges", "bytes", 10.0, true, new double[] {10, 10},
                new double[] {90, 110});
        JsonNode r = BenchRecord.JSON.readTree(record.write().toFile());
        assertThat(r.get("command").asText()).isEqualTo("deploy/bin/fanout-bench khop --parallelism \"\"");
        JsonNode close = r.get("measurements").get(0);
        assertThat(close.get("runs").get(0).get("ratios").toString()).isEqualTo("[0.9,1.1,1.2]");
        assertThat(close.get("runs").get(0).get("median").asDouble()).isEqualTo(1.1);
        assertThat(close.get("median").asDouble()).isEqualTo(1.1); // of 0.9 1.0 1.1 1.1 1.2 1.2
        assertThat(close.get("met").asBoolean()).isTrue();
        assertThat(close.get("agree").asBoolean()).isTrue(); // 1.1 and 1.1
        JsonNode apart = r.get("measurements").get(1);
        assertThat(apart.get("agree").asBoolean()).isFalse(); // 1.0 and 2.0
        assertThat(apart.get("met").isNull()).isTrue();
        assertThat(r.get("agree").asBoolean()).isFalse();
        JsonNode bytes = r.get("measurements").get(2); // one run: median 10 (9 and 11), at most 10 is met
        assertThat(bytes.get("better").asText()).isEqualTo("lower");
        assertThat(bytes.get("met").asBoolean()).isTrue();
        assertThat(BenchTables.markdown(dir)).contains("| bytes per edge | **10.00** |").contains("<= 10.0: met");
    }

    private static List<JsonNode> results() throws IOException {
        List<JsonNode> found = new ArrayList<>();
        try (Stream<Path> files = Files.list(BenchTables.resultsDir(ROOT))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                found.add(BenchRecord.JSON.readTree(f.toFile()));
            }
        }
        return found;
    }
}
