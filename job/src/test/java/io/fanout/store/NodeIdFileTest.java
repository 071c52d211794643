package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.NodeIdSet;
import io.fanout.testing.SharedData;
import io.fanout.testing.SmallHeapJvm;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link NodeIdFile}: the node ids of the in-heap scan, in id order, through spilled sort runs; the scan's errors;
 * edge parts whose headers all declare num_nodes, whose rows it does not read; and a client heap that the ids do not
 * fit (a child JVM whose in-heap id set runs out of memory writes the file).
 */
class NodeIdFileTest {
    @TempDir
    Path tmp;

    private static GraphSpec spec(Path edges, Path nodes) {
        return new GraphSpec(edges.toString(), EdgeDirection.OUT, nodes == null ? null : nodes.toString(),
                FeatureDType.FLOAT32, false);
    }

    /** The ids the file lists, or 0..n-1 for an identity result. */
    private static void assertIdsOf(NodeIdFile.NodeIds written, NodeIdMap expected) throws Exception {
        assertThat(written.numNodes()).isEqualTo(expected.size());
        assertThat(written.identity()).isEqualTo(expected.isIdentity());
        if (written.identity()) {
            return;
        }
        List<String> lines = Files.readAllLines(written.file());
        assertThat(lines).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertThat(Long.parseLong(lines.get(i))).isEqualTo(expected.id(i));
        }
    }

    @ParameterizedTest(name = "{0}, ids below {1} in a bit set")
    @CsvSource({"cora, 0", "cora, 1500", "citeseer, 0", "citeseer, 3000", "ego_twitter_u, 0", "ego_twitter_u, 40000",
            "college_msg, 0", "bitcoin_alpha, 0", "bitcoin_alpha, 100000000"})
    void theIdsOfTheInHeapScanThroughSpilledRuns(String name, long denseIds) throws Exception {
        Path graph = SharedData.graph(name);
        Path nodes = Files.exists(graph.resolve("nodes.tsv.gz")) ? graph.resolve("nodes.tsv.gz") : null;
        GraphSpec spec = spec(graph, nodes);
        // Runs of 1,000 ids: ego_twitter_u's 2.7 M endpoint mentions spill thousands of runs, merged in rounds; with
        // a bit set the ids below it are marked there and merged with the runs of the rest.
        NodeIdMap scanned = GraphStore.scanNodeIds(spec);
        NodeIdFile.NodeIds written = NodeIdFile.write(spec, tmp, 1000, denseIds);
        assertIdsOf(written, scanned);
        // The ids a client scanned already give the same file, named alike, without reading the graph again.
        NodeIdFile.NodeIds fromMap = NodeIdFile.write(scanned, tmp);
        assertThat(fromMap).isEqualTo(written);
        try (Stream<Path> left = Files.list(tmp)) {
            assertThat(left.filter(p -> !p.getFileName().toString().endsWith(".txt")))
                    .as("no run or temporary file left").isEmpty();
        }
    }

    @Test
    void sparseIdsAreWrittenOnceNamedByTheirContent() throws Exception {
        Path edges = tmp.resolve("edges.tsv");
        long big = Long.MAX_VALUE;
        Files.writeString(edges, "# directed=true columns=src,dst\n" + big + "\t7\n7\t3000000000\n3000000000\t7\n");
        Path nodes = tmp.resolve("nodes.tsv");
        Files.writeString(nodes, "7\t1\n3000000000\t0\n" + big + "\t1\n12\t-1\n");
        Path dir = tmp.resolve("ids");
        NodeIdFile.NodeIds first = NodeIdFile.write(spec(edges, nodes), dir, 2, 10);
        assertThat(first.numNodes()).isEqualTo(4);
        assertThat(Files.readString(first.file())).isEqualTo("7\n12\n3000000000\n" + big + "\n");
        assertThat(first.file().getFileName().toString()).startsWith("fanout-node-ids-").endsWith(".txt");

        // The same ids again: the same file, left alone (a job reading it sees no change).
        FileTime before = FileTime.fromMillis(Files.getLastModifiedTime(first.file()).toMillis() - 60_000);
        Files.setLastModifiedTime(first.file(), before);
        NodeIdFile.NodeIds again = NodeIdFile.write(spec(edges, nodes), dir, 3, 0);
        assertThat(again.file()).isEqualTo(first.file());
        assertThat(Files.getLastModifiedTime(again.file())).isEqualTo(before);

        // Other ids, another file.
        Files.writeString(nodes, "7\t1\n3000000000\t0\n" + big + "\t1\n13\t-1\n");
        NodeIdFile.NodeIds other = NodeIdFile.write(spec(edges, nodes), dir);
        assertThat(other.file()).isNotEqualTo(first.file());
        assertThat(Files.readString(other.file())).isEqualTo("7\n13\n3000000000\n" + big + "\n");
    }

    @Test
    void aDeclaredNodeCountAndIdsZeroToNNeedNoFile() throws Exception {
        Path edges = tmp.resolve("edges.tsv");
        Files.writeString(edges, "# directed=true columns=src,dst num_nodes=10\n0\t1\n5\t6\n");
        NodeIdFile.NodeIds ids = NodeIdFile.write(spec(edges, null), tmp, 2, 4);
        assertThat(ids.identity()).isTrue();
        assertThat(ids.numNodes()).isEqualTo(10);

        Files.writeString(edges, "# directed=true columns=src,dst\n0\t1\n5\t6\n");
        assertIdsOf(NodeIdFile.write(spec(edges, null), tmp, 2, 0),
                NodeIdMap.ofAscending(new long[] {0, 1, 5, 6}));
        Path nodes = tmp.resolve("nodes.tsv");
        Files.writeString(nodes, "0\t1\n1\t0\n2\t0\n3\t0\n4\t0\n5\t1\n6\t1\n");
        ids = NodeIdFile.write(spec(edges, nodes), tmp, 2, 3); // the node file's rows fill the gaps
        assertThat(ids.identity()).isTrue();
        assertThat(ids.numNodes()).isEqualTo(7);
    }

    /**
     * Every part declaring num_nodes: no edge row is read on the client (a bad row deep in a part does not stop it);
     * the load, which reads each part's ranges with that part's header, names the bad row. A part without num_nodes
     * is scanned whole, as before.
     */
    @Test
    void headersDeclaringNumNodesInEveryPartNeedNoRowRead() throws Exception {
        Path graph = Files.createDirectories(tmp.resolve("declared"));
        Files.writeString(graph.resolve("edges.00000.tsv"), "# directed=false num_nodes=8\n0\t1\n1\t2\n");
        Files.writeString(graph.resolve("edges.00001.tsv"), "# directed=false num_nodes=8\n2\t3\n3\t9\n");
        NodeIdFile.NodeIds ids = NodeIdFile.write(spec(graph, null), tmp, 2, 4);
        assertThat(ids.identity()).isTrue();
        assertThat(ids.numNodes()).isEqualTo(8);
        Throwable load = catchThrowable(() -> {
            for (io.fanout.graph.GraphLoader.EdgeSplit split : io.fanout.graph.GraphLoader.edgeSplits(graph, 1 << 20)) {
                io.fanout.graph.GraphLoader.streamEdges(graph, null, split, EdgeDirection.OUT, (node, n, order) -> { });
            }
        });
        assertThat(load).isInstanceOf(GraphFormatException.class)
                .hasMessageContaining(graph.resolve("edges.00001.tsv").toString()).hasMessageContaining("line 3")
                .hasMessageContaining("not below num_nodes=8");

        Files.writeString(graph.resolve("edges.00001.tsv"), "# directed=false\n2\t3\n3\t9\n");
        assertThat(catchThrowable(() -> NodeIdFile.write(spec(graph, null), tmp, 2, 4)))
                .as("a part without num_nodes: every row is read").isInstanceOf(GraphFormatException.class)
                .hasMessageContaining(graph.resolve("edges.00001.tsv").toString()).hasMessageContaining("line 3");

        Files.writeString(graph.resolve("edges.00000.tsv"), "# directed=false num_nodes=8\n");
        Files.writeString(graph.resolve("edges.00001.tsv"), "# directed=false num_nodes=8\n\n");
        assertThat(catchThrowable(() -> NodeIdFile.write(spec(graph, null), tmp, 2, 4)))
                .isInstanceOf(GraphFormatException.class).hasMessageContaining("empty graph");
    }

    /** Each bad node file fails as the in-heap scan fails: same message, naming the file and line. */
    @Test
    void nodeFileErrorsAreTheScansErrors() throws Exception {
        Path edges = tmp.resolve("edges.tsv");
        Files.writeString(edges, "# directed=true columns=src,dst num_nodes=4\n0\t1\n2\t3\n");
        Path nodes = tmp.resolve("nodes.tsv");
        String[] bad = {
            "0\t1\t0.5\n1\t1\t0.5\n2\t0\t0.5\n1\t1\t0.5\n3\t1\t0.5\n", // id 1 twice: line 4
            "0\t1\t0.5\n1\t1\t0.5\n3\t1\t0.5\n", // no row for 2
            "0\t1\t0.5\n1\t1\t0.5\n2\t1\t0.5\n3\t1\t0.5\n9\t1\t0.5\n", // above num_nodes: line 5
            "0\t1\t0.5\n1\t1\t0.5\t0.25\n", // ragged: line 2
        };
        for (String text : bad) {
            Files.writeString(nodes, text);
            Throwable heap = catchThrowable(() -> GraphStore.scanNodeIds(spec(edges, nodes)));
            assertThat(heap).isInstanceOf(GraphFormatException.class);
            for (long denseIds : new long[] {0, 2, 1000}) { // runs only, some ids in the bit set, all of them
                Throwable spilled = catchThrowable(() -> NodeIdFile.write(spec(edges, nodes), tmp.resolve("ids"), 2,
                        denseIds));
                assertThat(spilled).as(text).isInstanceOf(GraphFormatException.class).hasMessage(heap.getMessage());
            }
        }
        Files.writeString(edges, "# directed=true columns=src,dst\n0\t1\n2\tthree\n");
        Throwable heap = catchThrowable(() -> GraphStore.scanNodeIds(spec(edges, null)));
        assertThat(catchThrowable(() -> NodeIdFile.write(spec(edges, null), tmp.resolve("ids"), 2, 0)))
                .isInstanceOf(GraphFormatException.class).hasMessageContaining(edges + " line 3")
                .hasMessage(heap.getMessage());
    }

    /** Runs {@link Probe} in a JVM with a 40 MiB heap. */
    private static SmallHeapJvm.Outcome probe(String mode, Path graph, Path dir) throws Exception {
        return SmallHeapJvm.run("40m", Probe.class, 180, mode, graph.toString(), dir.toString());
    }

    /**
     * 5 M distinct sparse ids (40 MB as longs): the in-heap id set cannot hold them in a 40 MiB heap, the spilled
     * sort lists them all.
     */
    @Test
    void idsThatDoNotFitTheClientHeapAreWrittenInOrder() throws Exception {
        Path edges = tmp.resolve("sparse.tsv");
        int rows = 2_500_000;
        try (BufferedWriter out = Files.newBufferedWriter(edges)) {
            out.write("# directed=true columns=src,dst\n");
            for (int i = 0; i < rows; i++) {
                // Each row two new ids, in no order: i scattered by an odd multiplier modulo 2^32.
                long a = ((i * 2_654_435_761L) & 0xffffffffL) * 2;
                out.write((a + (1L << 40)) + "\t" + (a + 1 + (1L << 40)) + "\n");
            }
        }
        assertThat(probe("set", edges, tmp).output()).as("the ids do not fit this heap").contains("OutOfMemoryError");
        SmallHeapJvm.Outcome file = probe("file", edges, tmp.resolve("ids"));
        assertThat(file.exitCode()).as(file.output()).isZero();
        assertThat(file.output()).contains("nodes=" + 2 * rows);
        try (Stream<Path> written = Files.list(tmp.resolve("ids"))) {
            Path ids = written.filter(p -> p.toString().endsWith(".txt")).findFirst().orElseThrow();
            try (Stream<String> lines = Files.lines(ids)) {
                long[] previous = {-1};
                long[] count = {0};
                lines.mapToLong(Long::parseLong).forEach(id -> {
                    assertThat(id).isGreaterThan(previous[0]);
                    previous[0] = id;
                    count[0]++;
                });
                assertThat(count[0]).isEqualTo(2L * rows);
            }
        }
    }

    /** Child-JVM entry point of {@link #idsThatDoNotFitTheClientHeapAreWrittenInOrder}. */
    public static final class Probe {
        public static void main(String[] args) throws Exception {
            GraphSpec spec = GraphSpec.edges(Path.of(args[1]), EdgeDirection.OUT);
            long nodes;
            if (args[0].equals("set")) {
                NodeIdSet set = new NodeIdSet();
                io.fanout.graph.GraphLoader.scanNodeIds(Path.of(args[1]), null, set);
                nodes = set.toMap().size();
            } else {
                nodes = NodeIdFile.write(spec, Path.of(args[2])).numNodes();
            }
            System.out.println("nodes=" + nodes);
        }
    }
}
