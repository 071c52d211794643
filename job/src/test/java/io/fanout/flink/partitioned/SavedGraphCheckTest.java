package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.store.GraphSpec;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SavedGraphCheckTest {
    @TempDir
    Path tmp;

    @Test
    void theDescriptionChangesWithTheFilesHopsBucketSizeDirectionAndNodeFile() throws Exception {
        Path cora = SharedData.graph("cora");
        Path graph = Files.createDirectories(tmp.resolve("cora"));
        Files.copy(cora.resolve("edges.tsv"), graph.resolve("edges.tsv"));
        Path nodes = Files.copy(cora.resolve("nodes.tsv.gz"), tmp.resolve("nodes.tsv.gz"));
        GraphSpec spec = GraphSpec.edges(graph, EdgeDirection.OUT);
        String saved = SavedGraphCheck.describe(spec, 2, 4096);

        assertThat(SavedGraphCheck.describe(GraphSpec.edges(graph, EdgeDirection.OUT), 2, 4096)).isEqualTo(saved);
        assertThat(saved).startsWith("graph " + graph.toAbsolutePath() + " (1 edge parts, fingerprint ")
                .endsWith("edge-dir out), 2 hops, bucket size 4096, split bytes 16777216, no node file, state layout 3");
        List<String> others = List.of(
                SavedGraphCheck.describe(spec, 1, 4096),
                SavedGraphCheck.describe(spec, 3, 4096),
                SavedGraphCheck.describe(spec, 2, 7),
                SavedGraphCheck.describe(GraphSpec.edges(graph, EdgeDirection.IN), 2, 4096),
                SavedGraphCheck.describe(new GraphSpec(graph.toString(), EdgeDirection.OUT, nodes.toString(),
                        FeatureDType.FLOAT16, false), 2, 4096));
        assertThat(others).doesNotContain(saved).doesNotHaveDuplicates();
        assertThat(others.get(0)).contains("1 hop, bucket size");

        // Same rows, a new modification time: the loaded files are not these any more.
        Path part = graph.resolve("edges.tsv");
        Files.setLastModifiedTime(part, FileTime.fromMillis(Files.getLastModifiedTime(part).toMillis() + 1000));
        assertThat(SavedGraphCheck.describe(spec, 2, 4096)).isNotEqualTo(saved);
    }
}
