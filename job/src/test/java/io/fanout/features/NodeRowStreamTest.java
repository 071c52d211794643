package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphFormatException;
import io.fanout.graph.NodeIdMap;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Streaming a node file part by part and encoding each row on its own (how the partitioned store loads node
 * data) gives the bytes of the in-memory store's rows, uint8 included with the streamed per-column ranges, on
 * real-valued features split over two parts and on cora's file.
 */
class NodeRowStreamTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(FeatureDType.class)
    void streamedRowsEncodeAsTheStoredRows(FeatureDType dtype) throws Exception {
        // Real-valued columns (negative, wide and constant ones) over two parts, ids 0..299 out of order.
        Random random = new Random(3);
        Path dir = Files.createDirectories(tmp.resolve("nodes"));
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            ids.add(i);
        }
        java.util.Collections.shuffle(ids, random);
        StringBuilder[] parts = {new StringBuilder(), new StringBuilder("# second part\n")};
        for (int i = 0; i < ids.size(); i++) {
            StringBuilder row = parts[i < 120 ? 0 : 1].append(ids.get(i)).append('\t').append(random.nextInt(5) - 1);
            row.append('\t').append(random.nextGaussian() * 1e-3).append('\t').append(random.nextDouble() * 1e4 - 5e3)
                    .append('\t').append(2.5).append('\t').append(random.nextInt(7)).append('\n');
        }
        Files.writeString(dir.resolve("nodes.0.tsv"), parts[0]);
        Files.writeString(dir.resolve("nodes.1.tsv"), parts[1]);
        assertStreamMatchesStore(dir, 300, dtype);
    }

    @Test
    void coraStreamsAsItLoads() throws Exception {
        assertStreamMatchesStore(SharedData.graph("cora").resolve("nodes.tsv.gz"), 2708, FeatureDType.UINT8);
    }

    @Test
    void aBadRowInAStreamedPartNamesFileAndLine() throws Exception {
        Path file = Files.writeString(tmp.resolve("nodes.tsv"), "0\t1\t0.5\n1\t1\tNaN\n");
        assertThatThrownBy(() -> NodeFileReader.streamRows(file, 0, (id, label, f) -> {}))
                .isInstanceOf(GraphFormatException.class).hasMessageContaining(file.toString())
                .hasMessageContaining("line 2").hasMessageContaining("feature f0 'NaN'");
    }

    private static void assertStreamMatchesStore(Path path, int n, FeatureDType dtype) throws Exception {
        NodeFeatures stored = NodeFileReader.read(path).build(NodeIdMap.identity(n), dtype);
        float[] scale = null;
        float[] offset = null;
        if (dtype == FeatureDType.UINT8) {
            float[][] range = NodeFileReader.columnRanges(path);
            offset = range[0];
            scale = NodeFeatures.uint8Scale(range[0], range[1]);
            assertThat(scale).containsExactly(stored.scale());
            assertThat(offset).containsExactly(stored.offset());
        }
        int rows = 0;
        for (int part = 0; part < NodeFileReader.parts(path).size(); part++) {
            final float[] s = scale;
            final float[] o = offset;
            List<long[]> seen = new ArrayList<>();
            rows += (int) NodeFileReader.streamRows(path, part, (id, label, features) -> {
                byte[] expected = stored.gatherRows(new int[] {(int) id}, 1);
                assertThat(NodeFeatures.encodeRow(features, dtype, s, o)).as("row of node %d", id).containsExactly(expected);
                assertThat(label).isEqualTo(stored.label((int) id));
                seen.add(new long[] {id});
            });
            assertThat(seen).isNotEmpty();
        }
        assertThat(rows).isEqualTo(n);
    }
}
