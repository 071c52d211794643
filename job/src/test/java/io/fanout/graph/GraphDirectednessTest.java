package io.fanout.graph;

import static io.fanout.graph.GraphLoaderTest.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.GraphSpec;
import io.fanout.store.SharedGraphs;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Directedness comes from the directed= header or the caller's option, never from a silent default. */
class GraphDirectednessTest {
    private static final String ROWS = "0\t1\n1\t2\n";

    @TempDir
    Path tmp;

    @Test
    void aHeaderlessFileNeedsTheOption() throws IOException {
        Path file = write(tmp, "edges.tsv", ROWS);
        assertThatThrownBy(() -> GraphLoader.load(file, EdgeDirection.OUT))
                .isInstanceOf(GraphFormatException.class)
                .hasMessage(file + " line 1: no directed= header: declare directed=true or directed=false in a first"
                        + " '#' line, or give the option fanout.directed (--directed true|false)");
        assertThat(GraphLoader.load(file, EdgeDirection.OUT, true).numEdges()).isEqualTo(2);
        CsrGraph undirected = GraphLoader.load(file, EdgeDirection.OUT, false);
        assertThat(undirected.numEdges()).isEqualTo(4);
        assertThat(undirected.hasEdge(2, 1)).isTrue();
        // Another part without a header takes the first part's directedness, as before.
        write(tmp, "edges.b.tsv", "2\t3\n");
        assertThat(GraphLoader.load(tmp, EdgeDirection.OUT, false).numEdges()).isEqualTo(6);
    }

    @Test
    void anOptionThatDisagreesWithAHeaderNamesBoth() throws IOException {
        Path file = write(tmp, "edges.tsv", "# directed=false columns=src,dst\n" + ROWS);
        assertThatThrownBy(() -> GraphLoader.load(file, EdgeDirection.OUT, true))
                .isInstanceOf(GraphFormatException.class)
                .hasMessage(file + " line 1: header directed=false disagrees with the option fanout.directed"
                        + " (--directed) true");
        assertThat(GraphLoader.load(file, EdgeDirection.OUT, false).numEdges()).isEqualTo(4);
        assertThat(GraphLoader.load(file, EdgeDirection.OUT).numEdges()).isEqualTo(4);
        // A later part's header is held to the option too, not only to the first part.
        Path dir = tmp.resolve("parts");
        java.nio.file.Files.createDirectory(dir);
        write(dir, "edges.a.tsv", ROWS);
        Path b = write(dir, "edges.b.tsv", "# directed=true\n2\t3\n");
        assertThatThrownBy(() -> GraphLoader.load(dir, EdgeDirection.OUT, false))
                .hasMessage(b + " line 1: header directed=true disagrees with the option fanout.directed (--directed) false");
    }

    @Test
    void sharedGraphsKeepOneHeaderlessFileApartPerDirectedness() throws IOException {
        Path file = write(tmp, "edges.tsv", ROWS);
        GraphSpec spec = GraphSpec.edges(file, EdgeDirection.OUT);
        try (SharedGraphs.Lease directed = SharedGraphs.acquire(spec.withDirected(true));
                SharedGraphs.Lease undirected = SharedGraphs.acquire(spec.withDirected(false))) {
            assertThat(directed.graph().adjacency().numEdges()).isEqualTo(2);
            assertThat(undirected.graph().adjacency().numEdges()).isEqualTo(4);
        }
        assertThatThrownBy(() -> SharedGraphs.acquire(file, EdgeDirection.OUT)).hasMessageContaining("no directed= header");
    }
}
