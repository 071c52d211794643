package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link GraphLoader#streamEdges}: a part streams in constant memory whatever the earlier parts' headers declare. */
class StreamEdgesTest {
    @Test
    void earlierPartsHeadersAreReadWithoutStagingTheirDeclaredEdges(@TempDir Path dir) throws Exception {
        // Part 0 declares 2 billion rows (a capacity hint; a mismatch is only logged). Staging arrays of that size
        // (32 GB) cannot be allocated: reading part 1 must not stage anything for part 0's header.
        Files.writeString(dir.resolve("edges.00000.tsv"), "# directed=false num_edges=2000000000 columns=src,dst\n0\t1\n");
        Files.writeString(dir.resolve("edges.00001.tsv"), "# directed=false num_edges=2 columns=src,dst\n1\t2\n3\t3\n");
        List<long[]> edges = new ArrayList<>();
        long rows = GraphLoader.streamEdges(dir, null, 1, EdgeDirection.OUT, (node, neighbor, order) ->
                edges.add(new long[] {node, neighbor, order}));
        assertThat(rows).isEqualTo(2);
        // Undirected: 1-2 both ways, the self-loop 3-3 once; order = part index << 40 | row.
        assertThat(edges).extracting(e -> e[0] + ">" + e[1]).containsExactly("1>2", "2>1", "3>3");
        assertThat(edges.get(0)[2] >>> 40).isEqualTo(1);
    }
}
