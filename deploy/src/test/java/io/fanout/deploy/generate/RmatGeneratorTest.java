package io.fanout.deploy.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The R-MAT generator: deterministic per seed whatever the threads, skewed degrees, a header the loader reads. */
class RmatGeneratorTest {
    private static RmatGenerator.Spec spec(int scale, long edges, long seed, int parts) {
        RmatGenerator.Spec s = new RmatGenerator.Spec();
        s.scale = scale;
        s.edges = edges;
        s.seed = seed;
        s.parts = parts;
        return s;
    }

    private static String contents(Path dir) throws Exception {
        StringBuilder all = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path f : files.sorted().collect(Collectors.toList())) {
                all.append(f.getFileName()).append('\n').append(Files.readString(f));
            }
        }
        return all.toString();
    }

    @Test
    void sameSeedSameBytesWhateverTheThreadsOtherSeedOtherEdges(@TempDir Path tmp) throws Exception {
        new RmatGenerator(spec(12, 50_000, 7, 5)).writeParts(tmp.resolve("a"), 1);
        new RmatGenerator(spec(12, 50_000, 7, 5)).writeParts(tmp.resolve("b"), 3);
        new RmatGenerator(spec(12, 50_000, 8, 5)).writeParts(tmp.resolve("c"), 2);
        assertThat(contents(tmp.resolve("a"))).isEqualTo(contents(tmp.resolve("b")));
        assertThat(contents(tmp.resolve("a"))).isNotEqualTo(contents(tmp.resolve("c")));
    }

    @Test
    void headerIsTheSharedFormatAndTheLoaderReadsEveryPart(@TempDir Path tmp) throws Exception {
        RmatGenerator gen = new RmatGenerator(spec(10, 10_001, 3, 4));
        assertThat(gen.writeParts(tmp, 2)).isEqualTo(10_001);
        List<String> part0 = Files.readAllLines(tmp.resolve("edges.00000.tsv"));
        assertThat(part0.get(0)).startsWith("# name=rmat-s10-e10001-seed3 directed=false num_edges=2501 num_nodes=1024")
                .contains("columns=src,dst id_base=0");
        assertThat(part0).hasSize(1 + 2501);
        assertThat(Files.readAllLines(tmp.resolve("edges.00003.tsv")).get(0)).contains("num_edges=2500");
        // Undirected rows are written once with src <= dst, ids below 2^scale.
        for (String row : part0.subList(1, part0.size())) {
            String[] f = row.split("\t");
            assertThat(Long.parseLong(f[0])).isLessThanOrEqualTo(Long.parseLong(f[1]));
            assertThat(Long.parseLong(f[1])).isLessThan(1024);
        }
        CsrGraph g = GraphLoader.load(tmp, EdgeDirection.OUT);
        assertThat(g.numNodes()).isEqualTo(1024);
        long selfLoops = Files.list(tmp).flatMap(p -> {
            try {
                return Files.readAllLines(p).stream().skip(1);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }).filter(r -> r.split("\t")[0].equals(r.split("\t")[1])).count();
        // Each undirected row is stored both ways, a self-loop once.
        assertThat((long) g.numEdges()).isEqualTo(2 * 10_001 - selfLoops);
    }

    @Test
    void graph500ParametersGiveSkewedDegreesUniformOnesDoNot(@TempDir Path tmp) throws Exception {
        RmatGenerator.Spec skewed = spec(14, 16L << 14, 1, 2);
        RmatGenerator.Spec uniform = spec(14, 16L << 14, 1, 2);
        uniform.a = uniform.b = uniform.c = 0.25;
        new RmatGenerator(skewed).writeParts(tmp.resolve("skewed"), 2);
        new RmatGenerator(uniform).writeParts(tmp.resolve("uniform"), 2);
        CsrGraph s = GraphLoader.load(tmp.resolve("skewed"), EdgeDirection.OUT);
        CsrGraph u = GraphLoader.load(tmp.resolve("uniform"), EdgeDirection.OUT);
        double mean = 32.0; // 2 stored edges per undirected row, 16 rows per node id
        // Graph500's R-MAT: hubs of hundreds of times the mean degree and many isolated nodes.
        assertThat(maxDegree(s)).isGreaterThan((int) (20 * mean));
        assertThat(isolated(s)).isGreaterThan(s.numNodes() / 10);
        // a = b = c = d is an Erdos-Renyi-like graph: no hub above a few times the mean.
        assertThat(maxDegree(u)).isLessThan((int) (3 * mean));
        assertThat(isolated(u)).isZero();
    }

    @Test
    void badParametersAreRefusedNamingTheOption() {
        RmatGenerator.Spec s = spec(10, 100, 1, 1);
        s.a = 0.9;
        s.b = 0.2;
        assertThatThrownBy(() -> new RmatGenerator(s)).hasMessageContaining("--a --b --c");
        assertThatThrownBy(() -> new RmatGenerator(spec(0, 100, 1, 1))).hasMessageContaining("--scale");
        assertThatThrownBy(() -> new RmatGenerator(spec(10, 100, 1, 0))).hasMessageContaining("--parts");
        assertThat(RmatGenerator.parseCount("100M")).isEqualTo(100_000_000L);
        assertThat(RmatGenerator.parseCount("1e8")).isEqualTo(100_000_000L);
    }

    private static int maxDegree(CsrGraph g) {
        int max = 0;
        for (int v = 0; v < g.numNodes(); v++) {
            max = Math.max(max, g.offsets()[v + 1] - g.offsets()[v]);
        }
        return max;
    }

    private static int isolated(CsrGraph g) {
        int n = 0;
        for (int v = 0; v < g.numNodes(); v++) {
            n += g.offsets()[v + 1] == g.offsets()[v] ? 1 : 0;
        }
        return n;
    }
}
