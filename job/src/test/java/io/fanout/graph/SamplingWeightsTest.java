package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.testing.SharedData;
import io.fanout.testing.ShiftedWeights;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weights that drive sampling ({@code fanout.weight-column}) are validated at load and in the client's scan:
 * a negative weight, a node whose weights are all 0, a missing column: each an error naming file and line.
 * The alias tables built from valid weights encode exactly {@code w / sum}.
 */
class SamplingWeightsTest {
    @TempDir
    Path tmp;

    /** The 1-based line of the first data row of {@code file} whose third column is negative. */
    static long firstNegativeWeightLine(Path file) throws Exception {
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            long line = 0;
            for (String text; (text = in.readLine()) != null; ) {
                line++;
                if (!text.startsWith("#") && text.split("\t")[2].startsWith("-")) {
                    return line;
                }
            }
        }
        throw new IllegalStateException("no negative weight in " + file);
    }

    @Test
    void signedBitcoinRatingsAreRefusedAsSamplingWeightsNamingTheLine() throws Exception {
        Path raw = SharedData.graph("bitcoin_alpha").resolve("edges.tsv");
        long line = firstNegativeWeightLine(raw);
        String where = raw + " line " + line + ":";
        assertThatThrownBy(() -> GraphLoader.readEdges(raw, null, "weight", null))
                .isInstanceOf(GraphFormatException.class).hasMessageStartingWith(where)
                .hasMessageContaining("negative weight").hasMessageContaining("fanout.weight-column");
        assertThatThrownBy(() -> GraphLoader.scanNodeIds(raw, null, "weight", null, new NodeIdSet()))
                .isInstanceOf(GraphFormatException.class).hasMessageStartingWith(where);
        // As an edge feature (no weight column asked for) a signed rating is fine.
        assertThat(GraphLoader.load(raw, EdgeDirection.OUT).weights()).contains(-10f, 10f);
    }

    @Test
    void aNodeWhoseWeightsAreAllZeroIsRefusedAtItsFirstEdge() throws Exception {
        Path file = tmp.resolve("edges.tsv");
        Files.writeString(file, "# directed=true columns=src,dst,weight\n0\t1\t1\n0\t2\t2.5\n# a comment\n1\t2\t0\n"
                + "2\t0\t1\n1\t0\t0\n");
        assertThatThrownBy(() -> {
            GraphLoader.EdgeList edges = GraphLoader.readEdges(file, null, "weight", null);
            edges.build(edges.nodeIds(new NodeIdCollector()), EdgeDirection.OUT, false);
        }).isInstanceOf(GraphFormatException.class).hasMessageStartingWith(file + " line 5:")
                .hasMessageContaining("node 1 has 2 out-edges and every weight is 0");
        // In-edges: node 1's only in-edge (0 -> 1) weighs 1, node 2's weigh 2.5 and 0, node 0's 1 and 0: fine.
        GraphLoader.EdgeList edges = GraphLoader.readEdges(file, null, "weight", null);
        assertThat(edges.build(edges.nodeIds(new NodeIdCollector()), EdgeDirection.IN, false).numEdges()).isEqualTo(5);
    }

    @Test
    void theWeightColumnMustExist() throws Exception {
        Path cora = SharedData.graph("cora");
        assertThatThrownBy(() -> GraphLoader.readEdges(cora, null, "weight", null))
                .isInstanceOf(GraphFormatException.class).hasMessageContaining("fanout.weight-column 'weight'").hasMessageContaining("line 1:")
                .hasMessageContaining("src,dst");
        Path shifted = ShiftedWeights.bitcoinAlpha(tmp);
        assertThatThrownBy(() -> GraphLoader.readEdges(shifted, null, "timestamp", null))
                .isInstanceOf(GraphFormatException.class).hasMessageContaining("'timestamp'")
                .hasMessageContaining("src,dst,weight,timestamp");
    }

    @Test
    void aliasTablesEncodeTheWeightsExactly() throws Exception {
        Path shifted = ShiftedWeights.bitcoinAlpha(tmp);
        for (EdgeDirection direction : EdgeDirection.values()) {
            GraphLoader.EdgeList edges = GraphLoader.readEdges(shifted, null, "weight", null);
            CsrGraph graph = edges.build(edges.nodeIds(new NodeIdCollector()), direction, false);
            AliasTable alias = AliasTable.build(graph);
            double worst = 0;
            for (int v = 0; v < graph.numNodes(); v++) {
                int start = graph.start(v);
                int d = graph.degree(v);
                double sum = 0;
                for (int i = start; i < start + d; i++) {
                    sum += graph.weights()[i];
                }
                for (int i = start; i < start + d; i++) {
                    worst = Math.max(worst, Math.abs(alias.probability(start, d, i) - graph.weights()[i] / sum) / d);
                }
            }
            assertThat(worst).as("largest error / degree, %s", direction).isLessThan(0x1.0p-32);
        }
        CsrGraph star = new CsrGraph(new int[] {0, 4, 4, 4, 4, 4}, new int[] {1, 2, 3, 4},
                new float[] {0, 1, 0, 3}, null, EdgeDirection.OUT);
        AliasTable alias = AliasTable.build(star);
        assertThat(alias.probability(0, 4, 0)).isZero();
        assertThat(alias.probability(0, 4, 2)).isZero();
        assertThat(alias.probability(0, 4, 3)).isCloseTo(0.75, org.assertj.core.api.Assertions.within(1e-9));
    }
}
