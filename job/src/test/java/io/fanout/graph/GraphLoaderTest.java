package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.testing.SharedData;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Loads the shared real graphs and checks the CSR against the README counts and a naive re-read of the files. */
class GraphLoaderTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        // dataset, nodes, input rows, self-loops, stored directed edges (undirected: 2 * rows - self-loops)
        "karate,        34,      78,   0,     156",
        "cora,          2708,    5278, 0,     10556",
        "cora_cites,    2708,    5429, 0,     5429",
        "citeseer,      3327,    4676, 124,   9228",
        "pubmed,        19717,   44327, 3,    88651",
        "college_msg,   1899,    59835, 0,    59835",
        "bitcoin_alpha, 3783,    24186, 0,    24186",
        "ego_twitter_u, 81306, 1342310, 14, 2684606",
    })
    void loadsRealGraphWithReadmeCounts(String dataset, int nodes, int rows, int selfLoops, int stored) throws IOException {
        for (EdgeDirection direction : EdgeDirection.values()) {
            CsrGraph graph = GraphLoader.load(SharedData.graph(dataset), direction);
            assertThat(graph.numNodes()).as("nodes").isEqualTo(nodes);
            assertThat(graph.numEdges()).as("stored edges").isEqualTo(stored);
            assertThat(graph.direction()).isEqualTo(direction);
            assertThat(countSelfLoops(graph)).as("self-loops").isEqualTo(selfLoops);
            ReferenceEdges reference = ReferenceEdges.read(onlyEdgeFile(dataset));
            assertThat(reference.rows).isEqualTo(rows);
            reference.assertSameAs(graph, direction);
        }
    }

    @Test
    void directedCoraCitesHasEveryCitationInTheRightDirection() throws IOException {
        CsrGraph out = GraphLoader.load(SharedData.graph("cora_cites"), EdgeDirection.OUT);
        CsrGraph in = GraphLoader.load(SharedData.graph("cora_cites"), EdgeDirection.IN);
        ReferenceEdges rows = ReferenceEdges.read(onlyEdgeFile("cora_cites"));
        int oneWay = 0;
        for (int i = 0; i < rows.rows; i++) {
            int citing = rows.src[i];
            int cited = rows.dst[i];
            assertThat(out.hasEdge(citing, cited)).as("out %d -> %d", citing, cited).isTrue();
            assertThat(in.hasEdge(cited, citing)).as("in %d <- %d", cited, citing).isTrue();
            if (!out.hasEdge(cited, citing)) {
                oneWay++;
            }
        }
        // Directed: no reverse edges were invented (most citations are one-way).
        assertThat(oneWay).isGreaterThan(rows.rows / 2);
        // The first row is "21 0": 0 is cited by 21, so 21 is node 0's first IN neighbour; 0 cites nobody listed first.
        assertThat(in.targets()[in.start(0)]).isEqualTo(21);
        assertThat(out.hasEdge(0, 21)).isFalse();
    }

    @Test
    void undirectedGraphIsTheSameInBothDirections() throws IOException {
        CsrGraph out = GraphLoader.load(SharedData.graph("cora"), EdgeDirection.OUT);
        CsrGraph in = GraphLoader.load(SharedData.graph("cora"), EdgeDirection.IN);
        assertThat(in.offsets()).isEqualTo(out.offsets());
        assertThat(in.targets()).isEqualTo(out.targets());
        // Symmetric: 0 - 633 is the first row.
        assertThat(out.hasEdge(0, 633)).isTrue();
        assertThat(out.hasEdge(633, 0)).isTrue();
    }

    @Test
    void parallelEdgesAreKept() throws IOException {
        CsrGraph graph = GraphLoader.load(SharedData.graph("college_msg"), EdgeDirection.OUT);
        // 37 -> 474 appears 98 times in CollegeMsg (the most repeated pair).
        assertThat(occurrences(graph, 37, 474)).isEqualTo(98);
        assertThat(occurrences(graph, 1623, 1167)).isEqualTo(95);
        CsrGraph in = GraphLoader.load(SharedData.graph("college_msg"), EdgeDirection.IN);
        assertThat(occurrences(in, 474, 37)).isEqualTo(98);
    }

    @Test
    void weightsAndTimestampsFollowTheirEdges() throws IOException {
        CsrGraph college = GraphLoader.load(SharedData.graph("college_msg"), EdgeDirection.OUT);
        assertThat(college.hasWeights()).isTrue();
        assertThat(college.hasTimestamps()).isTrue();
        // Row 1: 0 1 1 1082040961 is node 0's first out-edge.
        int first = college.start(0);
        assertThat(college.targets()[first]).isEqualTo(1);
        assertThat(college.weights()[first]).isEqualTo(1.0f);
        assertThat(college.timestamps()[first]).isEqualTo(1082040961L);
        // Row 2: 2 3 1 1082155839.
        assertThat(college.targets()[college.start(2)]).isEqualTo(3);
        assertThat(college.timestamps()[college.start(2)]).isEqualTo(1082155839L);

        CsrGraph bitcoin = GraphLoader.load(SharedData.graph("bitcoin_alpha"), EdgeDirection.OUT);
        // Node 0's out-rows in file order: 0 159 10 1317182400, 0 1027 7 1348804800, 0 308 5 1378353600.
        int at = bitcoin.start(0);
        assertThat(bitcoin.targets()[at]).isEqualTo(159);
        assertThat(bitcoin.weights()[at]).isEqualTo(10f);
        assertThat(bitcoin.timestamps()[at]).isEqualTo(1317182400L);
        assertThat(bitcoin.targets()[at + 1]).isEqualTo(1027);
        assertThat(bitcoin.weights()[at + 1]).isEqualTo(7f);
        assertThat(bitcoin.timestamps()[at + 2]).isEqualTo(1378353600L);
        // Signed trust ratings survive: 0 3526 -1 1387429200.
        int signed = indexOf(bitcoin, 0, 3526);
        assertThat(bitcoin.weights()[signed]).isEqualTo(-1f);
        assertThat(bitcoin.timestamps()[signed]).isEqualTo(1387429200L);

        CsrGraph bitcoinIn = GraphLoader.load(SharedData.graph("bitcoin_alpha"), EdgeDirection.IN);
        // Node 0's in-rows: 3497 0 10 1407470400, then 429 0 10 1376539200.
        int inAt = bitcoinIn.start(0);
        assertThat(bitcoinIn.targets()[inAt]).isEqualTo(3497);
        assertThat(bitcoinIn.timestamps()[inAt]).isEqualTo(1407470400L);
        assertThat(bitcoinIn.targets()[inAt + 1]).isEqualTo(429);
        assertThat(bitcoinIn.timestamps()[inAt + 1]).isEqualTo(1376539200L);
        assertThat(bitcoinIn.weights()[indexOf(bitcoinIn, 3526, 0)]).isEqualTo(-1f);
    }

    @Test
    void directoryAndSingleFileLoadTheSameGraph() throws IOException {
        Path dir = SharedData.graph("cora_cites");
        CsrGraph fromDir = GraphLoader.load(dir, EdgeDirection.OUT);
        CsrGraph fromFile = GraphLoader.load(dir.resolve("edges.tsv"), EdgeDirection.OUT);
        assertThat(fromDir.offsets()).isEqualTo(fromFile.offsets());
        assertThat(fromDir.targets()).isEqualTo(fromFile.targets());
        // The directory also holds node_ids.tsv, which must be ignored.
        assertThat(Files.exists(dir.resolve("node_ids.tsv"))).isTrue();
        assertThat(GraphLoader.edgeFiles(dir)).containsExactly(dir.resolve("edges.tsv"));
    }

    @Test
    void gzipIsReadTransparently(@TempDir Path tmp) throws IOException {
        Path plain = SharedData.graph("pubmed").resolve("edges.tsv");
        Path gz = tmp.resolve("edges.tsv.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(gz))) {
            Files.copy(plain, out);
        }
        CsrGraph fromPlain = GraphLoader.load(plain, EdgeDirection.OUT);
        CsrGraph fromGz = GraphLoader.load(tmp, EdgeDirection.OUT);
        assertThat(fromGz.offsets()).isEqualTo(fromPlain.offsets());
        assertThat(fromGz.targets()).isEqualTo(fromPlain.targets());
        // A gzip file is recognised by its bytes even when not named .gz.
        Path unnamed = tmp.resolve("pubmed.bin");
        Files.copy(gz, unnamed);
        assertThat(GraphLoader.load(unnamed, EdgeDirection.OUT).targets()).isEqualTo(fromPlain.targets());
    }

    @Test
    void partsOfOneGraphAreReadInNameOrder(@TempDir Path tmp) throws IOException {
        List<String> lines = Files.readAllLines(SharedData.graph("college_msg").resolve("edges.tsv"));
        int split = 30_000;
        // Part names sort as a < b; the second part has no header and inherits the first part's settings.
        Files.write(tmp.resolve("edges.b.tsv"), lines.subList(split, lines.size()));
        Files.write(tmp.resolve("edges.a.tsv"), lines.subList(0, split));
        Files.writeString(tmp.resolve("nodes.tsv"), "this is not an edge file\n");
        Files.writeString(tmp.resolve("node_ids.tsv"), "0\tnot an edge\n");
        assertThat(GraphLoader.edgeFiles(tmp)).containsExactly(tmp.resolve("edges.a.tsv"), tmp.resolve("edges.b.tsv"));
        CsrGraph parts = GraphLoader.load(tmp, EdgeDirection.OUT);
        CsrGraph whole = GraphLoader.load(SharedData.graph("college_msg"), EdgeDirection.OUT);
        assertThat(parts.offsets()).isEqualTo(whole.offsets());
        assertThat(parts.targets()).isEqualTo(whole.targets());
        assertThat(parts.weights()).isEqualTo(whole.weights());
        assertThat(parts.timestamps()).isEqualTo(whole.timestamps());
    }

    @Test
    void headerlessFileTakesColumnsFromTheFirstRow(@TempDir Path tmp) throws IOException {
        Path plain = write(tmp, "edges.tsv", "0\t1\n1\t2\n2\t0\n");
        CsrGraph graph = GraphLoader.load(plain, EdgeDirection.OUT, true);
        assertThat(graph.numNodes()).isEqualTo(3);
        assertThat(graph.numEdges()).isEqualTo(3); // directed: no reverse edges
        assertThat(graph.hasEdge(1, 0)).isFalse();
        assertThat(graph.hasWeights()).isFalse();

        Path weighted = write(tmp, "weighted.tsv", "0\t1\t0.5\n1\t0\t2.25\n");
        CsrGraph w = GraphLoader.load(weighted, EdgeDirection.OUT, true);
        assertThat(w.weights()).containsExactly(0.5f, 2.25f);
        assertThat(w.hasTimestamps()).isFalse();

        Path timed = write(tmp, "timed.tsv", "0\t1\t1.5e-3\t-7\n");
        CsrGraph t = GraphLoader.load(timed, EdgeDirection.OUT, true);
        assertThat(t.weights()).containsExactly(1.5e-3f);
        assertThat(t.timestamps()).containsExactly(-7L);
    }

    @Test
    void acceptsSpacesCrlfCommentsAndMissingFinalNewline(@TempDir Path tmp) throws IOException {
        Path file = write(tmp, "edges.tsv", "# directed=false columns=src,dst\r\n"
                + "0 1\r\n"
                + "# a comment line in the middle\n"
                + "  1\t \t2  \r\n"
                + "2\t2\n"       // undirected self-loop: stored once
                + "0\t1");       // parallel undirected edge, no final newline
        CsrGraph graph = GraphLoader.load(file, EdgeDirection.OUT);
        assertThat(graph.numNodes()).isEqualTo(3);
        // 0-1 twice (both ways), 1-2 both ways, 2-2 once.
        assertThat(graph.numEdges()).isEqualTo(7);
        assertThat(neighbours(graph, 0)).containsExactly(1, 1);
        assertThat(neighbours(graph, 1)).containsExactly(0, 2, 0);
        assertThat(neighbours(graph, 2)).containsExactly(1, 2);
    }

    @Test
    void numNodesAddsIsolatedNodesAndIdBaseIsSubtracted(@TempDir Path tmp) throws IOException {
        Path file = write(tmp, "edges.tsv", "# directed=true num_nodes=10 id_base=1 columns=src,dst\n1\t2\n3\t1\n");
        CsrGraph graph = GraphLoader.load(file, EdgeDirection.OUT);
        assertThat(graph.numNodes()).isEqualTo(10);
        assertThat(neighbours(graph, 0)).containsExactly(1);
        assertThat(neighbours(graph, 2)).containsExactly(0);
        for (int v = 3; v < 10; v++) {
            assertThat(graph.degree(v)).isZero();
        }
    }

    @Test
    void linesLongerThanTheReadBufferAreHandled(@TempDir Path tmp) throws IOException {
        String longComment = "#" + "x".repeat(3 << 20) + "\n";
        Path file = write(tmp, "edges.tsv", "# directed=true columns=src,dst\n0\t1\n" + longComment + "1\t2\n");
        CsrGraph graph = GraphLoader.load(file, EdgeDirection.OUT);
        assertThat(graph.numEdges()).isEqualTo(2);
        assertThat(graph.hasEdge(1, 2)).isTrue();
    }

    @Test
    void keepsFileOrderWithinEachNodeSoLoadsAreDeterministic(@TempDir Path tmp) throws IOException {
        // num_nodes=10: ids 0..9 are the nodes (4, 6, 7, 8 isolated), so indices equal ids.
        Path file = write(tmp, "edges.tsv", "# directed=true columns=src,dst,weight num_nodes=10\n"
                + "5\t3\t1\n2\t9\t2\n5\t1\t3\n5\t3\t4\n2\t0\t5\n");
        CsrGraph out = GraphLoader.load(file, EdgeDirection.OUT);
        assertThat(neighbours(out, 5)).containsExactly(3, 1, 3);
        assertThat(neighbours(out, 2)).containsExactly(9, 0);
        assertThat(out.weights()[out.start(5) + 2]).isEqualTo(4f);
        CsrGraph in = GraphLoader.load(file, EdgeDirection.IN);
        assertThat(neighbours(in, 3)).containsExactly(5, 5);
        assertThat(in.weights()[in.start(3)]).isEqualTo(1f);
        assertThat(in.weights()[in.start(3) + 1]).isEqualTo(4f);
        assertThat(neighbours(in, 0)).containsExactly(2);
    }

    static int countSelfLoops(CsrGraph graph) {
        int loops = 0;
        for (int v = 0; v < graph.numNodes(); v++) {
            for (int i = graph.start(v); i < graph.end(v); i++) {
                loops += graph.targets()[i] == v ? 1 : 0;
            }
        }
        return loops;
    }

    static int[] neighbours(CsrGraph graph, int node) {
        return java.util.Arrays.copyOfRange(graph.targets(), graph.start(node), graph.end(node));
    }

    private static int occurrences(CsrGraph graph, int from, int to) {
        int count = 0;
        for (int i = graph.start(from); i < graph.end(from); i++) {
            count += graph.targets()[i] == to ? 1 : 0;
        }
        return count;
    }

    private static int indexOf(CsrGraph graph, int from, int to) {
        for (int i = graph.start(from); i < graph.end(from); i++) {
            if (graph.targets()[i] == to) {
                return i;
            }
        }
        throw new AssertionError(from + " -> " + to + " not found");
    }

    private static Path onlyEdgeFile(String dataset) throws IOException {
        List<Path> files = GraphLoader.edgeFiles(SharedData.graph(dataset));
        assertThat(files).hasSize(1);
        return files.get(0);
    }

    static Path write(Path dir, String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, content.getBytes(StandardCharsets.UTF_8));
        return file;
    }
}
