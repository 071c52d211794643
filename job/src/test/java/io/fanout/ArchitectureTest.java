package io.fanout;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps docs/ARCHITECTURE.md true: every main package of the three modules is in its layer table, uses only the
 * layers its row names, stays off Flink where the row says "no", and no packages form a cycle.
 */
class ArchitectureTest {
    /**
     * Package cycles tolerated for now, each as its packages (without {@code io.fanout.}) in name order. Listed in
     * docs/ARCHITECTURE.md under "To fix"; remove an entry once its cycle is broken (the test fails on a stale one).
     */
    static final List<Set<String>> KNOWN_CYCLES = List.of();

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> MODULES = List.of("connectors", "job", "deploy");
    private static final String PREFIX = "io.fanout.";
    private static final Pattern FANOUT_REF = Pattern.compile("\\bio\\.fanout((?:\\.[a-z_][a-z0-9_]*)+)\\.(?:[A-Z]|\\*)");
    private static final Pattern FLINK_REF = Pattern.compile("\\borg\\.apache\\.flink\\.");
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    /** A row of the layer table. */
    record Layer(String name, List<String> packages, List<String> mayUse, boolean flink) {}

    /** What the sources say: each package's uses of other packages and the files that use Flink. */
    record Sources(Map<String, Set<String>> uses, Map<String, Set<String>> flinkFiles) {}

    static List<Layer> layers;
    static Sources main;

    @BeforeAll
    static void read() throws IOException {
        layers = layers(Files.readString(ROOT.resolve("docs/ARCHITECTURE.md"), StandardCharsets.UTF_8));
        List<Path> roots = MODULES.stream().map(m -> ROOT.resolve(m).resolve("src/main/java")).toList();
        main = scan(roots);
    }

    @Test
    void everyPackageIsInExactlyOneLayer() {
        Map<String, List<String>> layersOf = new TreeMap<>();
        layers.forEach(l -> l.packages().forEach(p -> layersOf.computeIfAbsent(p, k -> new ArrayList<>()).add(l.name())));
        assertThat(layersOf).as("packages listed in more than one layer")
                .allSatisfy((p, ls) -> assertThat(ls).as(p).hasSize(1));
        assertThat(layersOf.keySet()).as("the layer table of docs/ARCHITECTURE.md against the main packages")
                .containsExactlyInAnyOrderElementsOf(main.uses().keySet());
        Set<String> names = layers.stream().map(Layer::name).collect(Collectors.toSet());
        layers.forEach(l -> assertThat(names).as("layers named in row %s", l.name()).containsAll(l.mayUse()));
    }

    @Test
    void packagesUseOnlyTheLayersTheirRowNames() {
        assertThat(violations(layers, main)).as("uses that docs/ARCHITECTURE.md forbids").isEmpty();
    }

    @Test
    void layersWithoutFlinkDoNotUseIt() {
        assertThat(flinkViolations(layers, main)).as("Flink in a layer marked 'no' (package: files)").isEmpty();
    }

    @Test
    void noPackageCyclesBeyondTheKnownOnes() {
        List<Set<String>> cycles = cycles(main.uses());
        assertThat(cycles).as("package cycles (io.fanout. left out); the known ones are %s", KNOWN_CYCLES)
                .containsExactlyInAnyOrderElementsOf(KNOWN_CYCLES);
    }

    @Test
    void theConnectorsConfigAndOptionsAreAsTheIssueAsks() {
        // Channel options in their own package, the endpoint independent of the sink, config on option types only.
        assertThat(main.uses().get("connectors.channel.endpoint")).doesNotContain("connectors.channel.sink");
        assertThat(main.uses().get("connectors.channel.options")).allMatch(p -> !p.startsWith("connectors.channel.s")
                && !p.equals("connectors.channel.endpoint"));
        assertThat(main.uses().get("config")).filteredOn(p -> p.startsWith("connectors."))
                .containsOnly("connectors.channel.options");
        assertThat(main.uses().get("sampling")).noneMatch(p -> p.startsWith("flink") || p.startsWith("connectors"));
    }

    /**
     * One message layer: the Flink operators of both stores hand their samples to {@code message} and take nothing
     * but the stream element type ({@code EncodedMessage}) from the wire format, so no operator writes keys.
     */
    @Test
    void theFlinkOperatorsOfBothStoresBuildMessagesOnlyThroughTheMessageLayer() throws IOException {
        assertThat(main.uses().get("flink.operator")).contains("message");
        assertThat(main.uses().get("flink.partitioned")).contains("message");
        Pattern wire = Pattern.compile("\\bio\\.fanout\\.connectors\\.message\\.([A-Z]\\w*|\\*)");
        Map<String, Set<String>> named = new TreeMap<>();
        for (String pkg : List.of("flink/operator", "flink/partitioned")) {
            List<Path> files;
            try (Stream<Path> list = Files.list(ROOT.resolve("job/src/main/java/io/fanout").resolve(pkg))) {
                files = list.filter(f -> f.toString().endsWith(".java")).sorted().toList();
            }
            for (Path file : files) {
                Matcher m = wire.matcher(codeOnly(Files.readString(file, StandardCharsets.UTF_8)));
                while (m.find()) {
                    named.computeIfAbsent(pkg + "/" + file.getFileName(), k -> new TreeSet<>()).add(m.group(1));
                }
            }
        }
        assertThat(named).as("wire-format types the Flink operators name").isNotEmpty()
                .allSatisfy((file, types) -> assertThat(types).as(file).containsOnly("EncodedMessage"));
    }

    /** The checks themselves, on real files written here: each kind of breach is found, comments are not code. */
    @Test
    void theChecksFindACycleAForbiddenUseAndFlinkWhereItIsBarred(@TempDir Path tmp) throws IOException {
        write(tmp, "io/fanout/graph/A.java", "package io.fanout.graph;\n"
                + "/** Mentions {@link io.fanout.job.Nothing} and \"io.fanout.job.X\" only in text. */\n"
                + "class A { String s = \"org.apache.flink.Nope\"; char c = '\"'; }\n");
        write(tmp, "io/fanout/sampling/B.java", "package io.fanout.sampling;\nimport io.fanout.graph.A;\n"
                + "import org.apache.flink.api.common.functions.MapFunction;\nclass B {}\n");
        write(tmp, "io/fanout/sampling/ppr/C.java", "package io.fanout.sampling.ppr;\nimport static io.fanout.sampling.B.x;\n"
                + "class C { io.fanout.random.SplitMix64 r; }\n");
        write(tmp, "io/fanout/random/D.java", "package io.fanout.random;\nimport io.fanout.sampling.ppr.*;\nclass D {}\n");
        Sources s = scan(List.of(tmp));
        assertThat(s.uses()).containsEntry("graph", Set.of())
                .containsEntry("sampling", Set.of("graph"))
                .containsEntry("sampling.ppr", Set.of("sampling", "random"))
                .containsEntry("random", Set.of("sampling.ppr"));
        assertThat(cycles(s.uses())).containsExactly(Set.of("random", "sampling.ppr"));
        List<Layer> table = layers("<!-- layers:begin -->\n| layer | packages | may use | Flink |\n|---|---|---|---|\n"
                + "| base | `random` | - | no |\n| storage | `graph` | base | no |\n"
                + "| sampling | `sampling`, `sampling.ppr` | storage, base | no |\n<!-- layers:end -->\n");
        assertThat(violations(table, s)).containsExactly("random (base) uses sampling.ppr (sampling)");
        assertThat(flinkViolations(table, s)).containsExactly("sampling: B.java");
    }

    /** Violations of the "may use" column, as "package (layer) uses package (layer)". */
    static List<String> violations(List<Layer> table, Sources sources) {
        Map<String, Layer> layerOf = new HashMap<>();
        table.forEach(l -> l.packages().forEach(p -> layerOf.put(p, l)));
        List<String> out = new ArrayList<>();
        new TreeMap<>(sources.uses()).forEach((p, used) -> {
            Layer from = layerOf.get(p);
            for (String q : new TreeSet<>(used)) {
                Layer to = layerOf.get(q);
                if (from != null && to != null && from != to && !from.mayUse().contains(to.name())) {
                    out.add(p + " (" + from.name() + ") uses " + q + " (" + to.name() + ")");
                }
            }
        });
        return out;
    }

    /** Packages of layers marked "no" whose files reference org.apache.flink, as "package: files". */
    static List<String> flinkViolations(List<Layer> table, Sources sources) {
        List<String> out = new ArrayList<>();
        for (Layer l : table) {
            for (String p : l.packages()) {
                Set<String> files = sources.flinkFiles().getOrDefault(p, Set.of());
                if (!l.flink() && !files.isEmpty()) {
                    out.add(p + ": " + String.join(", ", new TreeSet<>(files)));
                }
            }
        }
        return out;
    }

    /** The layer table between the markers of docs/ARCHITECTURE.md. */
    static List<Layer> layers(String markdown) {
        int begin = markdown.indexOf("<!-- layers:begin -->");
        int end = markdown.indexOf("<!-- layers:end -->");
        assertThat(begin).as("docs/ARCHITECTURE.md has the layers:begin marker").isGreaterThanOrEqualTo(0);
        assertThat(end).as("docs/ARCHITECTURE.md has the layers:end marker").isGreaterThan(begin);
        List<Layer> out = new ArrayList<>();
        for (String line : markdown.substring(begin, end).split("\n")) {
            if (!line.startsWith("|") || line.startsWith("|---") || line.startsWith("| layer ")) {
                continue;
            }
            String[] cells = line.split("\\|");
            assertThat(cells).as("a layer row has four cells: %s", line).hasSizeGreaterThanOrEqualTo(5);
            List<String> packages = Stream.of(cells[2].split(","))
                    .map(c -> c.trim().replace("`", "")).filter(c -> !c.isEmpty()).toList();
            List<String> mayUse = Stream.of(cells[3].split(","))
                    .map(String::trim).filter(c -> !c.isEmpty() && !c.equals("-")).toList();
            String flink = cells[4].trim();
            assertThat(flink).as("Flink cell of %s", line).isIn("yes", "no");
            out.add(new Layer(cells[1].trim(), packages, mayUse, flink.equals("yes")));
        }
        assertThat(out).as("layer rows").isNotEmpty();
        return out;
    }

    /** Reads every .java file under the roots: its package, the io.fanout packages it names, whether it uses Flink. */
    static Sources scan(List<Path> roots) throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        Map<String, Set<String>> flink = new TreeMap<>();
        for (Path root : roots) {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(root)) {
                files = walk.filter(f -> f.toString().endsWith(".java")).sorted().toList();
            }
            for (Path file : files) {
                String code = codeOnly(Files.readString(file, StandardCharsets.UTF_8));
                Matcher pkg = PACKAGE.matcher(code);
                assertThat(pkg.find()).as("%s declares its package", file).isTrue();
                assertThat(pkg.group(1)).as("package of %s", file).startsWith(PREFIX);
                String from = pkg.group(1).substring(PREFIX.length());
                Set<String> used = uses.computeIfAbsent(from, k -> new TreeSet<>());
                Matcher ref = FANOUT_REF.matcher(code.substring(pkg.end()));
                while (ref.find()) {
                    String to = ref.group(1).substring(1);
                    if (!to.equals(from)) {
                        used.add(to);
                    }
                }
                if (FLINK_REF.matcher(code).find()) {
                    flink.computeIfAbsent(from, k -> new TreeSet<>()).add(file.getFileName().toString());
                }
            }
        }
        return new Sources(uses, flink);
    }

    /** The source without comments and the contents of string, text-block and char literals. */
    static String codeOnly(String src) {
        return stripComments(src, false);
    }

    /** The source without comments; string and char literals kept as written. */
    static String codeOnlyKeepingStrings(String src) {
        return stripComments(src, true);
    }

    private static String stripComments(String src, boolean keepStrings) {
        StringBuilder out = new StringBuilder(src.length());
        int i = 0;
        int n = src.length();
        while (i < n) {
            char c = src.charAt(i);
            if (c == '/' && i + 1 < n && src.charAt(i + 1) == '/') {
                while (i < n && src.charAt(i) != '\n') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && src.charAt(i + 1) == '*') {
                int close = src.indexOf("*/", i + 2);
                i = close < 0 ? n : close + 2;
                out.append(' ');
            } else if (src.startsWith("\"\"\"", i)) {
                int close = src.indexOf("\"\"\"", i + 3);
                int next = close < 0 ? n : close + 3;
                out.append(keepStrings ? src.substring(i, next) : "\"\"");
                i = next;
            } else if (c == '"' || c == '\'') {
                int start = i++;
                while (i < n && src.charAt(i) != c) {
                    i += src.charAt(i) == '\\' ? 2 : 1;
                }
                i = Math.min(i + 1, n);
                out.append(keepStrings ? src.substring(start, i) : "" + c + c);
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    /** Strongly connected components of more than one package (Tarjan), each as a set. */
    static List<Set<String>> cycles(Map<String, Set<String>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new java.util.HashSet<>();
        List<Set<String>> out = new ArrayList<>();
        int[] counter = {0};
        for (String v : new TreeSet<>(graph.keySet())) {
            if (!index.containsKey(v)) {
                strongConnect(v, graph, index, low, stack, onStack, out, counter);
            }
        }
        return out;
    }

    private static void strongConnect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
            Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> out, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]++);
        stack.push(v);
        onStack.add(v);
        for (String w : graph.getOrDefault(v, Set.of())) {
            if (!graph.containsKey(w)) {
                continue; // a package of another source set
            }
            if (!index.containsKey(w)) {
                strongConnect(w, graph, index, low, stack, onStack, out, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                out.add(component);
            }
        }
    }

    private static void write(Path root, String relative, String text) {
        try {
            Path file = root.resolve(relative);
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
