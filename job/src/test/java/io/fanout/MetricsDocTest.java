package io.fanout;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/METRICS.md lists exactly the metrics the code registers: every {@code counter}, {@code gauge},
 * {@code meter} and {@code histogram} call of the main sources, under its file's {@code addGroup}, is a row with its
 * Prometheus name and kind, and every row of Fanout's tables is such a registration.
 */
class MetricsDocTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final String SCOPE = "flink_taskmanager_job_task_operator_";
    /** A registration: the method, then a literal name or a variable plus a literal suffix ({@code name + "_qsize"}). */
    private static final Pattern REGISTRATION = Pattern.compile(
            "\\.(counter|gauge|meter|histogram)\\(\\s*(?:\"([^\"]*)\"|(\\w+)\\s*\\+\\s*\"([^\"]*)\")?");
    private static final Pattern GROUP = Pattern.compile("\\.addGroup\\(\\s*\"([^\"]*)\"\\s*\\)");
    private static final Pattern ROW = Pattern.compile("^\\| `(" + SCOPE + "[^`]+)` \\| (counter|gauge|meter|histogram) \\|",
            Pattern.MULTILINE);

    @Test
    void metricsMdListsExactlyTheRegisteredMetrics() throws IOException {
        Map<String, String> registered = new TreeMap<>();
        for (String module : List.of("connectors", "job")) {
            registered.putAll(registrations(ROOT.resolve(module).resolve("src/main/java")));
        }
        String doc = Files.readString(ROOT.resolve("deploy/METRICS.md"), StandardCharsets.UTF_8);
        Map<String, String> documented = documented(doc);
        assertThat(documented).as("deploy/METRICS.md's rows (name -> kind) against the registrations in the sources")
                .isEqualTo(registered);
        // The sampler's batch counter is what the end-to-end tests read; it must be among them.
        assertThat(registered).containsEntry(SCOPE + "fanout_batchesSampled", "counter");
        assertThat(doc).contains("channel protocol version " + ChannelProtocol.VERSION);
    }

    /** The scan on files written here: groups, variable-prefixed names, and a registration it cannot read refused. */
    @Test
    void theScanReadsGroupsAndPrefixesAndRefusesWhatItCannotRead(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve("A.java"), "class A { void f(MetricGroup g) { var m = g.addGroup(\"x\");\n"
                + " m.counter(\"hits\"); m.gauge(name + \"_size\", () -> 1); // m.gauge(\"commented\")\n } }\n");
        Files.writeString(tmp.resolve("B.java"), "class B { void f(MetricGroup g) { g.meter(\"rate\", v); } }\n");
        assertThat(registrations(tmp)).containsOnly(Map.entry(SCOPE + "x_hits", "counter"),
                Map.entry(SCOPE + "x_<name>_size", "gauge"), Map.entry(SCOPE + "rate", "meter"));
        Files.writeString(tmp.resolve("C.java"), "class C { void f(MetricGroup g) { g.gauge(NAMES[0], v); } }\n");
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> registrations(tmp)))
                .hasMessageContaining("C.java").hasMessageContaining("gauge");
        assertThat(documented("| `" + SCOPE + "x_hits` | counter | m |\n| `other` | gauge | n |\n"))
                .containsOnly(Map.entry(SCOPE + "x_hits", "counter"));
    }

    /** Prometheus name -> kind of every metric registered in the .java files under root. */
    static Map<String, String> registrations(Path root) throws IOException {
        Map<String, String> out = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
        for (Path file : files) {
            String code = ArchitectureTest.codeOnlyKeepingStrings(Files.readString(file, StandardCharsets.UTF_8));
            List<String> groups = new ArrayList<>();
            Matcher g = GROUP.matcher(code);
            while (g.find()) {
                groups.add(g.group(1));
            }
            Matcher m = REGISTRATION.matcher(code);
            while (m.find()) {
                String name = m.group(2) != null ? m.group(2) : m.group(4) != null ? "<" + m.group(3) + ">" + m.group(4) : null;
                if (name == null) {
                    throw new AssertionError(file + " registers a " + m.group(1) + " whose name this test cannot read:"
                            + " give it a literal name (or a variable + \"literal suffix\")");
                }
                if (groups.size() > 1) {
                    throw new AssertionError(file + " adds metric groups " + groups + ": one group per file, please");
                }
                out.put(SCOPE + (groups.isEmpty() ? "" : groups.get(0) + "_") + name, m.group(1));
            }
        }
        return out;
    }

    /** Prometheus name -> kind of every row of METRICS.md's Fanout tables (rows whose name has the operator scope). */
    static Map<String, String> documented(String doc) {
        Map<String, String> out = new TreeMap<>();
        Matcher m = ROW.matcher(doc);
        while (m.find()) {
            assertThat(out.put(m.group(1), m.group(2))).as("%s listed twice", m.group(1)).isNull();
        }
        return out;
    }
}
