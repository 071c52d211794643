package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.NodeIdMap;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The submitting client's streaming scan of a typed graph ({@link TypedGraphStore#scanNodeIds}) gives each node type
 * exactly the ids the full load gives it, and checks the files as the load does; one edge type read alone
 * ({@link TypedGraphStore#readEdgeType}) is that type's adjacency in the load.
 */
class TypedGraphScanTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"cora_hetero", "bitcoin_alpha_typed"})
    void sameIdsAsTheLoad(String name) throws Exception {
        GraphSpec spec = new GraphSpec(SharedData.graph(name).toString(), EdgeDirection.OUT, null, FeatureDType.FLOAT32,
                false);
        TypedGraphStore loaded = TypedGraphStore.load(spec);
        Map<String, NodeIdMap> scanned = TypedGraphStore.scanNodeIds(spec, loaded.nodeIds().keySet());
        assertThat(scanned.keySet()).isEqualTo(loaded.nodeIds().keySet());
        for (String type : scanned.keySet()) {
            assertSameIds(scanned.get(type), loaded.nodeIds(type));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cora_hetero out", "cora_hetero in", "bitcoin_alpha_typed in"})
    void oneEdgeTypeReadAloneIsTheLoadsAdjacency(String graphAndDirection) throws Exception {
        // How a client reads ABLP's label edge types without the graph: each type's CSR as the full load builds it.
        String[] g = graphAndDirection.split(" ");
        GraphSpec spec = new GraphSpec(SharedData.graph(g[0]).toString(), EdgeDirection.valueOf(g[1].toUpperCase()),
                null, FeatureDType.FLOAT32, false);
        TypedGraphStore loaded = TypedGraphStore.load(spec);
        Map<String, NodeIdMap> scanned = TypedGraphStore.scanNodeIds(spec, loaded.nodeIds().keySet());
        for (var e : loaded.adjacency().entrySet()) {
            io.fanout.graph.typed.TypedAdjacency alone = TypedGraphStore.readEdgeType(spec, e.getKey(), scanned);
            assertThat(alone.valueBase()).isEqualTo(e.getValue().valueBase());
            assertThat(alone.csr().offsets()).as("%s", e.getKey()).isEqualTo(e.getValue().csr().offsets());
            assertThat(alone.csr().targets()).as("%s", e.getKey()).isEqualTo(e.getValue().csr().targets());
            assertThat(alone.csr().weights()).isEqualTo(e.getValue().csr().weights());
        }
    }

    @Test
    void sparseIdsNodeOnlyRowsAndABadRow() throws Exception {
        // Two node types with sparse ids; node 77 of "user" appears only in its node file.
        Path graph = Files.createDirectories(tmp.resolve("g"));
        Files.writeString(graph.resolve("edges.user__buys__item.tsv"),
                "# directed=true columns=src,dst\n1000000\t5\n3\t900000000000\n3\t5\n");
        Files.writeString(graph.resolve("nodes.user.tsv"), "# columns=id\n77\n3\n");
        GraphSpec spec = new GraphSpec(graph.toString(), EdgeDirection.IN, null, FeatureDType.FLOAT32, false);
        TypedGraphStore loaded = TypedGraphStore.load(spec);
        Map<String, NodeIdMap> scanned = TypedGraphStore.scanNodeIds(spec, Set.of("user", "item"));
        assertSameIds(scanned.get("user"), loaded.nodeIds("user"));
        assertSameIds(scanned.get("item"), loaded.nodeIds("item"));
        assertThat(scanned.get("user").size()).isEqualTo(3);
        Files.writeString(graph.resolve("edges.user__buys__item.tsv"), "# directed=true columns=src,dst\n1\t2\nx\t3\n");
        assertThatThrownBy(() -> TypedGraphStore.scanNodeIds(spec, Set.of("user")))
                .isInstanceOf(GraphFormatException.class).hasMessageContaining("edges.user__buys__item.tsv")
                .hasMessageContaining("line 3");
    }

    private static void assertSameIds(NodeIdMap a, NodeIdMap b) {
        assertThat(a.size()).isEqualTo(b.size());
        for (int i = 0; i < a.size(); i++) {
            assertThat(a.id(i)).isEqualTo(b.id(i));
        }
    }
}
