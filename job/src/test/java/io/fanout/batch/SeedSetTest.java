package io.fanout.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SeedSetTest {
    private static final int CORA_NODES = 2708;

    @TempDir
    Path dir;

    private static Path sharedData() {
        return Path.of(System.getProperty("fanout.shared.dir", "../shared"), "data");
    }

    @Test
    void allNodesIsEveryIdInOrderWithoutStoringThem() throws IOException {
        SeedSet all = SeedSet.allNodes(CORA_NODES);
        assertThat(all.size()).isEqualTo(CORA_NODES);
        assertThat(all.isAllNodes()).isTrue();
        assertThat(all.get(0)).isZero();
        assertThat(all.get(2707)).isEqualTo(2707);
        assertThat(all.toArray()).isEqualTo(IntStream.range(0, CORA_NODES).toArray());
        assertThatThrownBy(() -> all.get(2708)).isInstanceOf(IndexOutOfBoundsException.class);
        // Only the count is stored: the serialized form of a huge graph's seed set stays tiny.
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(SeedSet.allNodes(1_000_000_000));
        }
        assertThat(bytes.size()).isLessThan(200);
        assertThatThrownBy(() -> SeedSet.allNodes(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fileSkipsBlankAndCommentLinesAndKeepsOrder() throws IOException {
        Path file = dir.resolve("train.txt");
        Files.writeString(file, "# training seeds of cora\n12\n\n  7  \n# another comment\n2707\r\n0\n");
        SeedSet seeds = SeedSet.parse(file.toString(), CORA_NODES);
        assertThat(seeds.isAllNodes()).isFalse();
        assertThat(seeds.toArray()).containsExactly(12, 7, 2707, 0);
        assertThat(seeds.size()).isEqualTo(4);
        assertThat(seeds.get(2)).isEqualTo(2707);
    }

    @Test
    void realCoraLabelSplitAsGzippedSeedFile() throws IOException {
        // The seeds of one real class of cora: ids read from ../shared/data/cora/nodes.tsv.gz.
        List<Integer> classThree = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new GZIPInputStream(
                Files.newInputStream(sharedData().resolve("cora/nodes.tsv.gz"))), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] cols = line.split("\t", 3);
                if (cols[1].equals("3")) {
                    classThree.add(Integer.parseInt(cols[0]));
                }
            }
        }
        assertThat(classThree).hasSizeGreaterThan(100);
        Path file = dir.resolve("class3.txt.gz");
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(("# cora label 3\n" + classThree.stream().map(String::valueOf).collect(Collectors.joining("\n")) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
        }
        SeedSet seeds = SeedSet.parse(file.toString(), CORA_NODES);
        assertThat(seeds.toArray()).containsExactly(classThree.stream().mapToInt(Integer::intValue).toArray());
    }

    @Test
    void commaListAndSingleId() throws IOException {
        assertThat(SeedSet.parse("1,5,9", CORA_NODES).toArray()).containsExactly(1, 5, 9);
        assertThat(SeedSet.parse(" 1 , 5,9 ", CORA_NODES).toArray()).containsExactly(1, 5, 9);
        assertThat(SeedSet.parse("2707", CORA_NODES).toArray()).containsExactly(2707);
    }

    @Test
    void malformedIdInFileNamesFileAndLine() throws IOException {
        Path file = dir.resolve("seeds.txt");
        Files.writeString(file, "# header\n3\n4x\n5\n");
        assertThatThrownBy(() -> SeedSet.parse(file.toString(), CORA_NODES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file + ":3")
                .hasMessageContaining("'4x'");
        Files.writeString(file, "3\n\n-4\n");
        assertThatThrownBy(() -> SeedSet.parse(file.toString(), CORA_NODES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file + ":3")
                .hasMessageContaining("negative")
                .hasMessageContaining("'-4'");
    }

    @Test
    void malformedListElementIsNamed() {
        assertThatThrownBy(() -> SeedSet.parse("1,abc,9", CORA_NODES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("element 2")
                .hasMessageContaining("'abc'");
        assertThatThrownBy(() -> SeedSet.parse("1,,9", CORA_NODES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("element 2")
                .hasMessageContaining("empty");
        assertThatThrownBy(() -> SeedSet.parse("-3", CORA_NODES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
    }

    @Test
    void unknownIdsInFileAreListedAndCounted() throws IOException {
        Path file = dir.resolve("seeds.txt");
        StringBuilder text = new StringBuilder("1\n");
        for (int i = 0; i < 12; i++) {
            text.append(CORA_NODES + i).append('\n');
        }
        text.append("99999999999999999999999\n"); // too large for any integer type: still "unknown"
        Files.writeString(file, text.toString());
        assertThatThrownBy(() -> SeedSet.parse(file.toString(), CORA_NODES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("13 unknown seed ids")
                .hasMessageContaining("2708 nodes")
                .hasMessageContaining("2708 (line 2)")
                .hasMessageContaining("2717 (line 11)")
                .hasMessageNotContaining("2718")
                .hasMessageContaining("3 more");
    }

    @Test
    void unknownIdsInListAreNamed() {
        assertThatThrownBy(() -> SeedSet.parse("1,2708,5,4000", CORA_NODES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 unknown seed ids")
                .hasMessageContaining("2708, 4000");
        assertThatThrownBy(() -> SeedSet.of(CORA_NODES, 3, 2708))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 unknown seed ids")
                .hasMessageContaining("2708");
    }

    @Test
    void missingFileAndEmptyFileAreErrors() throws IOException {
        assertThatThrownBy(() -> SeedSet.parse(dir.resolve("nope.txt").toString(), CORA_NODES))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining("nope.txt");
        Path empty = dir.resolve("empty.txt");
        Files.writeString(empty, "# nothing here\n\n");
        assertThatThrownBy(() -> SeedSet.parse(empty.toString(), CORA_NODES))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(empty.toString())
                .hasMessageContaining("no seed ids");
        assertThatThrownBy(() -> SeedSet.parse(" ", CORA_NODES)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void idsNamedAreTheSeedOptionsDistinctIdsWithoutAGraph() throws IOException {
        Path file = dir.resolve("seeds.txt");
        Files.writeString(file, "# partitioned seeds\n7\n3000000000\n7\n\n42\n");
        io.fanout.graph.NodeIdMap named = SeedSet.idsNamed(file.toString());
        assertThat(named.isIdentity()).isFalse();
        assertThat(named.idsOrNull()).containsExactly(7L, 42L, 3000000000L);
        // With that map the seeds keep their order and duplicates, as over a whole graph's ids.
        SeedSet seeds = SeedSet.parse(file.toString(), named);
        assertThat(IntStream.range(0, seeds.size()).mapToLong(i -> named.id(seeds.get(i))).toArray())
                .containsExactly(7L, 3000000000L, 7L, 42L);
        // Ids 0..k-1 make an identity map (no id array kept).
        assertThat(SeedSet.idsNamed("2,0,1,1").isIdentity()).isTrue();
        assertThat(SeedSet.idsNamed("2,0,1,1").size()).isEqualTo(3);
        // A malformed line fails as a parse over the graph's ids would, naming file and line.
        Files.writeString(file, "1\n-5\n");
        assertThatThrownBy(() -> SeedSet.idsNamed(file.toString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file + ":2").hasMessageContaining("negative seed id");
    }
}
