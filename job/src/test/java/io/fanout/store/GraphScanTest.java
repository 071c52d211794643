package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.NodeIdSet;
import io.fanout.testing.SharedData;
import io.fanout.testing.SmallHeapJvm;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The client's streaming scan: the same node ids as a full load, the same errors, and a heap far smaller than
 * the graph (a child JVM that cannot load the graph scans it).
 */
class GraphScanTest {
    @TempDir
    Path tmp;

    private static void assertSameIds(NodeIdMap a, NodeIdMap b) {
        assertThat(a.size()).isEqualTo(b.size());
        assertThat(a.isIdentity()).isEqualTo(b.isIdentity());
        for (int i = 0; i < a.size(); i++) {
            assertThat(a.id(i)).isEqualTo(b.id(i));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cora", "pubmed", "citeseer", "ego_twitter_u", "college_msg"})
    void scanGivesTheIdsOfTheLoad(String name) throws Exception {
        Path graph = SharedData.graph(name);
        Path nodes = null;
        for (String file : new String[] {"nodes.tsv.gz", "nodes.tsv"}) {
            if (Files.exists(graph.resolve(file))) {
                nodes = graph.resolve(file);
            }
        }
        GraphSpec spec = new GraphSpec(graph.toString(), EdgeDirection.OUT, nodes == null ? null : nodes.toString(),
                FeatureDType.FLOAT32, false);
        assertSameIds(GraphStore.scanNodeIds(spec), GraphStore.load(spec).ids());
    }

    @Test
    void sparseIdsAndNodeFileOnlyNodes() throws Exception {
        Path edges = tmp.resolve("edges.tsv");
        long big = (1L << 62) + 5;
        Files.writeString(edges, "# directed=true columns=src,dst\n" + big + "\t7\n7\t3000000000\n");
        Path nodes = tmp.resolve("nodes.tsv");
        Files.writeString(nodes, "7\t0\t1.0\n3000000000\t1\t2.0\n" + big + "\t-1\t3.0\n42\t2\t4.0\n");
        GraphSpec spec = new GraphSpec(edges.toString(), EdgeDirection.OUT, nodes.toString(), FeatureDType.FLOAT32, false);
        NodeIdMap scanned = GraphStore.scanNodeIds(spec);
        assertSameIds(scanned, GraphStore.load(spec).ids());
        assertThat(scanned.size()).isEqualTo(4); // 42 is an isolated node of the node file
        assertThat(scanned.indexOf(42)).isEqualTo(1);
    }

    @Test
    void nodeIdSetSwitchesToSortedRunsForHugeIds() {
        NodeIdSet set = new NodeIdSet();
        for (long i = 0; i < 100; i++) {
            set.add(i * 3);
        }
        set.add(1L << 40);
        set.add(3);
        NodeIdMap map = set.toMap();
        assertThat(map.size()).isEqualTo(101);
        assertThat(map.maxId()).isEqualTo(1L << 40);
        assertThat(map.indexOf(297)).isEqualTo(99);
        NodeIdSet dense = new NodeIdSet();
        dense.add(4);
        dense.addRange(3);
        dense.add(3);
        assertThat(dense.toMap().isIdentity()).isTrue();
        assertThat(dense.toMap().size()).isEqualTo(5);
    }

    @Test
    void nodeFileErrorsSurfaceInTheScanWithFileAndLine() throws Exception {
        Path edges = tmp.resolve("edges.tsv");
        Files.writeString(edges, "# directed=true columns=src,dst num_nodes=4\n0\t1\n2\t3\n");
        Path nodes = tmp.resolve("nodes.tsv");
        Files.writeString(nodes, "0\t1\t0.5\n1\t1\t0.5\n2\t0\t0.5\n1\t1\t0.5\n3\t1\t0.5\n");
        assertThatThrownBy(() -> GraphStore.scanNodeIds(spec(edges, nodes)))
                .isInstanceOf(GraphFormatException.class)
                .hasMessage(nodes + " line 4: node id 1 is given twice (an earlier line has it too)");

        Files.writeString(nodes, "0\t1\t0.5\n1\t1\t0.5\n3\t1\t0.5\n");
        assertThatThrownBy(() -> GraphStore.scanNodeIds(spec(edges, nodes)))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageContaining(nodes + ": the node file has no row for node id 2 (every node");

        Files.writeString(nodes, "0\t1\t0.5\n1\t1\t0.5\n2\t1\t0.5\n3\t1\t0.5\n9\t1\t0.5\n");
        assertThatThrownBy(() -> GraphStore.scanNodeIds(spec(edges, nodes)))
                .isInstanceOf(GraphFormatException.class)
                .hasMessage(nodes + " line 5: node id 9 is not below num_nodes=4 declared in the edge file header");

        Files.writeString(nodes, "0\t1\t0.5\n1\t1\t0.5\t0.25\n");
        assertThatThrownBy(() -> GraphStore.scanNodeIds(spec(edges, nodes)))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageContaining(nodes + " line 2: ragged row");
    }

    private static GraphSpec spec(Path edges, Path nodes) {
        return new GraphSpec(edges.toString(), EdgeDirection.OUT, nodes.toString(), FeatureDType.FLOAT32, false);
    }

    /** Runs {@link Probe} in a JVM with a 24 MiB heap; returns its exit code and output. */
    private static String[] probe(String mode, Path graph) throws Exception {
        SmallHeapJvm.Outcome outcome = SmallHeapJvm.run("24m", Probe.class, 120, mode, graph.toString());
        return new String[] {String.valueOf(outcome.exitCode()), outcome.output()};
    }

    @Test
    void aClientHeapFarSmallerThanTheGraphScansIt() throws Exception {
        Path cnr = SharedData.graph("cnr_2000"); // 3.2 M edges: the load stages ~50 MB, the CSR alone ~14 MB
        String[] load = probe("load", cnr);
        assertThat(load[1]).as("the graph does not fit this heap").contains("OutOfMemoryError");
        String[] scan = probe("scan", cnr);
        assertThat(scan[0]).as(scan[1]).isEqualTo("0");
        assertThat(scan[1]).contains("nodes=325557");
    }

    /** Child-JVM entry point of {@link #aClientHeapFarSmallerThanTheGraphScansIt}. */
    public static final class Probe {
        public static void main(String[] args) throws Exception {
            GraphSpec spec = GraphSpec.edges(Path.of(args[1]), EdgeDirection.OUT);
            NodeIdMap ids = args[0].equals("scan") ? GraphStore.scanNodeIds(spec) : GraphStore.load(spec).ids();
            System.out.println("nodes=" + ids.size() + " heap=" + Runtime.getRuntime().maxMemory() + File.separator);
        }
    }
}
