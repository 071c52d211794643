package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphFormatException;
import io.fanout.graph.NodeIdCollector;
import io.fanout.graph.NodeIdMap;
import io.fanout.testing.SharedData;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The node file reader and feature store on the real cora and pubmed node files, and on bad input. */
public class NodeFileReaderTest {
    @TempDir
    Path tmp;

    /** The rows of a node file as a plain split would read them (an independent reference). */
    public static List<String[]> referenceRows(Path file) throws Exception {
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(file.toString().endsWith(".gz")
                ? new GZIPInputStream(Files.newInputStream(file)) : Files.newInputStream(file), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (!line.startsWith("#")) {
                    rows.add(line.split("\t"));
                }
            }
        }
        return rows;
    }

    private static NodeFeatures load(Path file, FeatureDType dtype) throws Exception {
        NodeFileReader.NodeRows rows = NodeFileReader.read(file);
        NodeIdCollector ids = new NodeIdCollector();
        rows.collectIds(ids);
        return rows.build(ids.build(), dtype);
    }

    @ParameterizedTest
    @CsvSource({"FLOAT32", "FLOAT16", "UINT8"})
    void coraFeaturesAndLabelsMatchTheFileInEveryDtype(FeatureDType dtype) throws Exception {
        Path file = SharedData.graph("cora").resolve("nodes.tsv.gz");
        NodeFeatures features = load(file, dtype);
        List<String[]> reference = referenceRows(file);
        assertThat(features.numNodes()).isEqualTo(2708).isEqualTo(reference.size());
        assertThat(features.dim()).isEqualTo(1433);
        assertThat(features.bytesPerValue()).isEqualTo(dtype.bytes());
        assertThat(features.maxError()).as("0/1 features are exact in every dtype").isZero();
        for (String[] row : reference) {
            int node = Integer.parseInt(row[0]);
            assertThat(features.label(node)).isEqualTo(Integer.parseInt(row[1]));
            for (int c = 0; c < 1433; c++) {
                assertThat(features.value(node, c)).isEqualTo(Float.parseFloat(row[2 + c]));
            }
        }
        // gatherRows is the message tensor: row i = node i's features in the dtype's little-endian bytes.
        byte[] gathered = features.gatherRows(new int[] {5, 0}, 2);
        assertThat(gathered).hasSize(2 * 1433 * dtype.bytes());
        long[] labels = features.gatherLabels(new int[] {5, 0}, 2);
        assertThat(labels).containsExactly(features.label(5), features.label(0));
    }

    @Test
    void pubmedHasLabelsOnly() throws Exception {
        NodeFeatures features = load(SharedData.graph("pubmed").resolve("nodes.tsv"), FeatureDType.FLOAT32);
        assertThat(features.numNodes()).isEqualTo(19717);
        assertThat(features.dim()).isZero();
        assertThat(features.hasFeatures()).isFalse();
        assertThat(features.hasLabels()).isTrue();
    }

    @Test
    void quantisationErrorIsWithinHalfAStepAndReported() throws Exception {
        StringBuilder text = new StringBuilder("# id label f0 f1 f2\n");
        java.util.Random random = new java.util.Random(3);
        float[][] values = new float[200][3];
        for (int i = 0; i < 200; i++) {
            values[i][0] = (float) random.nextGaussian();
            values[i][1] = 1000f + 50f * random.nextFloat();
            values[i][2] = 7.25f; // constant column: scale 0, exact
            text.append(i).append('\t').append(i % 4).append('\t').append(values[i][0]).append('\t')
                    .append(values[i][1]).append('\t').append(values[i][2]).append('\n');
        }
        Path file = tmp.resolve("nodes.tsv");
        Files.writeString(file, text);
        NodeFeatures q = load(file, FeatureDType.UINT8);
        NodeFeatures h = load(file, FeatureDType.FLOAT16);
        double worst = 0;
        for (int i = 0; i < 200; i++) {
            for (int c = 0; c < 3; c++) {
                double err = Math.abs(q.value(i, c) - values[i][c]);
                assertThat(err).isLessThanOrEqualTo(q.scale()[c] / 2 * 1.0001 + 1e-4);
                worst = Math.max(worst, err);
                assertThat(Math.abs(h.value(i, c) - values[i][c])).isLessThanOrEqualTo(Math.abs(values[i][c]) / 1024);
            }
        }
        assertThat(q.maxError()).isPositive().isCloseTo(worst, org.assertj.core.data.Offset.offset(1e-4));
        assertThat(q.value(17, 2)).isEqualTo(7.25f);
        assertThat(q.offset()[1]).isGreaterThanOrEqualTo(1000f);
    }

    @Test
    void sparseInt64IdsAndAnyRowOrder() throws Exception {
        long big = 1L << 62;
        Path file = tmp.resolve("nodes.tsv");
        Files.writeString(file, big + "\t1\t0.5\n7\t-1\t1.5\n1000000000000\t2\t2.5\n");
        NodeFileReader.NodeRows rows = NodeFileReader.read(file);
        NodeIdCollector collector = new NodeIdCollector();
        rows.collectIds(collector);
        NodeIdMap ids = collector.build();
        assertThat(ids.isIdentity()).isFalse();
        assertThat(ids.id(0)).isEqualTo(7);
        assertThat(ids.id(2)).isEqualTo(big);
        NodeFeatures features = rows.build(ids, FeatureDType.FLOAT32);
        assertThat(features.value(ids.indexOf(big), 0)).isEqualTo(0.5f);
        assertThat(features.label(ids.indexOf(7))).isEqualTo(-1);
        assertThat(features.value(ids.indexOf(1_000_000_000_000L), 0)).isEqualTo(2.5f);
    }

    static Stream<Arguments> badRows() {
        return Stream.of(
                Arguments.of("0\t1\t0.5\n1\t2\t0.5\t0.7\n", 2, "ragged row: 2 features where earlier rows have 1"),
                Arguments.of("0\t1\t0.5\n1\t2\n", 2, "ragged row: 0 features where earlier rows have 1"),
                Arguments.of("0\t1\t0.5\n1\t2\tabc\n", 2, "feature f0 'abc' is not a finite decimal number"),
                Arguments.of("0\t1\tNaN\n", 1, "feature f0 'NaN' is not a finite decimal number"),
                Arguments.of("0\t1\t1e999\n", 1, "out of the float32 range"),
                Arguments.of("0\t1.5\t0.5\n", 1, "label '1.5' is not an integer"),
                Arguments.of("0\tcat\t0.5\n", 1, "label 'cat' is not an integer"),
                Arguments.of("0\t-2\t0.5\n", 1, "label -2 is negative"),
                Arguments.of("x\t1\t0.5\n", 1, "non-numeric node id 'x'"),
                Arguments.of("-3\t1\t0.5\n", 1, "negative node id '-3'"),
                Arguments.of("# header\n0\t1\t0.5\n\n1\t1\t0.5\n", 3, "empty line"),
                Arguments.of("0\t1\t0.5\n0\t2\t0.5\n", 2, "node id 0 already has a row at " ),
                Arguments.of("5\n", 1, "missing label column"));
    }

    @ParameterizedTest
    @MethodSource("badRows")
    void badRowsNameTheFileAndLine(String text, int line, String problem) throws Exception {
        Path file = tmp.resolve("nodes.tsv");
        Files.writeString(file, text);
        assertThatThrownBy(() -> load(file, FeatureDType.FLOAT32))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("line " + line + ":")
                .hasMessageContaining(problem)
                .satisfies(e -> assertThat(((GraphFormatException) e).line()).isEqualTo(line));
    }

    @Test
    void aNodeWithoutARowIsAnError() throws Exception {
        Path file = tmp.resolve("nodes.tsv");
        Files.writeString(file, "0\t1\t0.5\n2\t1\t0.5\n");
        NodeFileReader.NodeRows rows = NodeFileReader.read(file);
        assertThatThrownBy(() -> rows.build(NodeIdMap.identity(4), FeatureDType.FLOAT32))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("no row for node id 1 and 1 more of the graph's 4 nodes");
    }
}
