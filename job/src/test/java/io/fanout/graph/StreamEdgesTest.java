package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link GraphLoader#streamEdges}: a part streams in constant memory whatever the earlier parts' headers declare, and
 * the byte ranges of {@link GraphLoader#edgeSplits} read every row of a part exactly once, with the order keys and
 * the errors of a whole read.
 */
class StreamEdgesTest {
    private static final GraphLoader.EdgeSplit WHOLE_PART_1 = new GraphLoader.EdgeSplit(1, 0, Long.MAX_VALUE);

    @Test
    void earlierPartsHeadersAreReadWithoutStagingTheirDeclaredEdges(@TempDir Path dir) throws Exception {
        // Part 0 declares 2 billion rows (a capacity hint; a mismatch is only logged). Staging arrays of that size
        // (32 GB) cannot be allocated: reading part 1 must not stage anything for part 0's header.
        Files.writeString(dir.resolve("edges.00000.tsv"), "# directed=false num_edges=2000000000 columns=src,dst\n0\t1\n");
        String header = "# directed=false num_edges=2 columns=src,dst\n";
        Files.writeString(dir.resolve("edges.00001.tsv"), header + "1\t2\n3\t3\n");
        List<long[]> edges = new ArrayList<>();
        long rows = GraphLoader.streamEdges(dir, null, WHOLE_PART_1, EdgeDirection.OUT, (node, neighbor, order) ->
                edges.add(new long[] {node, neighbor, order}));
        assertThat(rows).isEqualTo(2);
        // Undirected: 1-2 both ways, the self-loop 3-3 once; order = part index << 40 | the line's byte offset.
        assertThat(edges).extracting(e -> e[0] + ">" + e[1]).containsExactly("1>2", "2>1", "3>3");
        assertThat(edges).extracting(e -> e[2]).containsExactly((1L << 40) | header.length(),
                (1L << 40) | header.length(), (1L << 40) | (header.length() + 4));
    }

    /** Every split size, from a few bytes (most lines cut) to the whole file: the same edges, keys and order. */
    @ParameterizedTest(name = "split {0} bytes")
    @ValueSource(longs = {13, 100, 1000, 4096, 1 << 20})
    void splitsReadEveryRowOnceWithTheWholeReadsOrderKeys(long splitBytes) throws Exception {
        Path cora = SharedData.graph("cora");
        List<long[]> whole = stream(cora, List.of(new GraphLoader.EdgeSplit(0, 0, Long.MAX_VALUE)));
        List<GraphLoader.EdgeSplit> splits = GraphLoader.edgeSplits(cora, splitBytes);
        long size = Files.size(cora.resolve("edges.tsv"));
        assertThat(splits).hasSize((int) Math.max(1, (size + splitBytes - 1) / splitBytes));
        List<long[]> split = stream(cora, splits);
        assertThat(split).hasSameSizeAs(whole).hasSize(2 * 5278);
        for (int i = 0; i < whole.size(); i++) {
            assertThat(split.get(i)).containsExactly(whole.get(i));
        }
    }

    /**
     * A range in the middle of a part without a columns= header takes the columns from the part's first data row,
     * as a whole read does, and a bad row there is reported with its line counted from the file's start.
     */
    @Test
    void aRangeInTheMiddleKnowsTheColumnsAndNamesTheLineOfAnError(@TempDir Path dir) throws Exception {
        StringBuilder text = new StringBuilder("# directed=true\n");
        for (int i = 0; i < 300; i++) {
            text.append(i).append('\t').append(i + 1).append('\t').append(i * 0.5).append('\n');
            if (i == 150) {
                text.append("# a comment\n");
            }
        }
        Path file = Files.writeString(dir.resolve("edges.tsv"), text);
        List<GraphLoader.EdgeSplit> splits = GraphLoader.edgeSplits(file, 500);
        assertThat(splits.size()).isGreaterThan(5);
        assertThat(stream(file, splits)).hasSize(300);

        String bad = text.toString().replace("\n250\t251\t125.0\n", "\n250\t251\tlots\n");
        Files.writeString(file, bad);
        // Line 253: the header, 251 rows before it (0..249 and the comment).
        assertThatThrownBy(() -> GraphLoader.readEdges(file, null)).hasMessageContaining("line 253: bad weight 'lots'");
        assertThatThrownBy(() -> stream(file, GraphLoader.edgeSplits(file, 500)))
                .isInstanceOf(GraphFormatException.class)
                .hasMessage(file + " line 253: bad weight 'lots' (expected a decimal number)");
    }

    @Test
    void aCompressedPartIsOneSplit() throws Exception {
        Path twitter = SharedData.graph("ego_twitter_u");
        assertThat(GraphLoader.edgeSplits(twitter, 1024)).containsExactly(new GraphLoader.EdgeSplit(0, 0, Long.MAX_VALUE));
        assertThatThrownBy(() -> GraphLoader.edgeSplits(twitter, 0)).hasMessageContaining("split size must be >= 1 byte");
    }

    private static List<long[]> stream(Path graph, List<GraphLoader.EdgeSplit> splits) throws Exception {
        List<long[]> edges = new ArrayList<>();
        for (GraphLoader.EdgeSplit split : splits) {
            GraphLoader.streamEdges(graph, null, split, EdgeDirection.OUT,
                    (node, neighbor, order) -> edges.add(new long[] {node, neighbor, order}));
        }
        return edges;
    }

    @Test
    void splitsFirstRowsCountRowsAcrossPartsAndRangesAndTheWeightColumnIsFound(@TempDir Path dir) throws Exception {
        // Three parts of pubmed's rows (the later ones without a header) in 4 KB ranges: each split's first row is the
        // number of data rows before it, so a reader numbers its rows as a whole load does.
        List<String> lines = Files.readAllLines(SharedData.graph("pubmed").resolve("edges.tsv"));
        List<String> rows = lines.subList(1, lines.size());
        int third = rows.size() / 3;
        for (int part = 0; part < 3; part++) {
            List<String> chunk = rows.subList(part * third, part == 2 ? rows.size() : (part + 1) * third);
            Files.writeString(dir.resolve("edges." + part + ".tsv"), (part == 0 ? lines.get(0) + "\n" : "")
                    + String.join("\n", chunk) + "\n");
        }
        List<GraphLoader.EdgeSplit> splits = GraphLoader.edgeSplits(dir, 4096, false);
        long[] first = GraphLoader.splitFirstRows(dir, false, null, splits, null, null);
        assertThat(splits.size()).isGreaterThan(10);
        assertThat(first[0]).isZero();
        for (int i = 0; i < splits.size(); i++) {
            long read = GraphLoader.streamEdges(dir, false, null, splits.get(i), EdgeDirection.OUT,
                    (node, neighbor, order) -> { });
            long next = i + 1 < splits.size() ? first[i + 1] : rows.size();
            assertThat(next - first[i]).as("split %d", i).isEqualTo(read);
        }
        assertThat(GraphLoader.hasWeightColumn(dir, false, null)).isFalse();
        assertThat(GraphLoader.hasWeightColumn(SharedData.graph("bitcoin_alpha"), false, null)).isTrue();
        Path inferred = Files.writeString(dir.resolve("w.tsv"), "# directed=true\n0\t1\t2.5\n");
        assertThat(GraphLoader.hasWeightColumn(inferred, false, null)).as("a third field is a weight").isTrue();
    }
}
