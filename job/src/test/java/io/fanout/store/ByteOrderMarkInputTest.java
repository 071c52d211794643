package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.batch.SeedFile;
import io.fanout.batch.SeedSet;
import io.fanout.features.FeatureDType;
import io.fanout.features.NodeFeatures;
import io.fanout.flink.updates.UpdateLine;
import io.fanout.flink.updates.UpdateLineFormat;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphFiles;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.sampling.link.LinkSeeds;
import io.fanout.testing.SharedData;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.RecordAndPosition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Input files that start with a UTF-8 byte-order mark (as Windows tools write them) read as the same files without
 * it, plain or gzipped (the mark then inside the decompressed text): real graphs copied with the mark and loaded
 * through the real loaders, including the partitioned store's byte-range reads, seed files and link seeds.
 */
class ByteOrderMarkInputTest {
    private static final byte[] BOM = {(byte) 0xef, (byte) 0xbb, (byte) 0xbf};

    @TempDir
    Path tmp;

    /** Every file of the dataset {@code name}, its text (decompressed) written after a mark, gzipped or plain. */
    private Path copyWithMark(String name, boolean gzip) throws IOException {
        Path dir = Files.createDirectories(tmp.resolve(name + (gzip ? "-gz" : "-plain")));
        try (DirectoryStream<Path> files = Files.newDirectoryStream(SharedData.graph(name))) {
            for (Path file : files) {
                String plainName = file.getFileName().toString().replaceFirst("\\.gz$", "");
                writeWithMark(dir.resolve(plainName + (gzip ? ".gz" : "")), text(file));
            }
        }
        return dir;
    }

    private static byte[] text(Path file) throws IOException {
        try (InputStream in = GraphFiles.open(file)) {
            return in.readAllBytes();
        }
    }

    private static Path writeWithMark(Path file, byte[] text) throws IOException {
        try (OutputStream raw = Files.newOutputStream(file);
                OutputStream out = file.getFileName().toString().endsWith(".gz") ? new GZIPOutputStream(raw) : raw) {
            out.write(BOM);
            out.write(text);
        }
        byte[] head = new byte[3];
        try (InputStream in = Files.newInputStream(file)) {
            in.readNBytes(head, 0, 3);
        }
        // The copy really starts with the mark (plain) or is gzip (whose text does).
        assertThat(file.getFileName().toString().endsWith(".gz") ? head[0] == 0x1f : head[0] == BOM[0]).isTrue();
        return file;
    }

    private static GraphSpec spec(Path dir, boolean nodes) throws IOException {
        Path nodeFile = null;
        if (nodes) {
            nodeFile = Files.exists(dir.resolve("nodes.tsv")) ? dir.resolve("nodes.tsv") : dir.resolve("nodes.tsv.gz");
        }
        return new GraphSpec(dir.toString(), EdgeDirection.OUT, nodeFile == null ? null : nodeFile.toString(),
                FeatureDType.FLOAT32, false);
    }

    private static void assertSameCsr(CsrGraph actual, CsrGraph expected) {
        assertThat(actual.numNodes()).isEqualTo(expected.numNodes());
        assertThat(actual.offsets()).isEqualTo(expected.offsets());
        assertThat(actual.targets()).isEqualTo(expected.targets());
    }

    @ParameterizedTest(name = "karate, gzip {0}")
    @ValueSource(booleans = {false, true})
    void karateWithAMarkLoadsAsTheSameGraph(boolean gzip) throws Exception {
        Path copy = copyWithMark("karate", gzip);
        for (EdgeDirection direction : EdgeDirection.values()) {
            // Undirected by its header only: a header lost to the mark would fail or load half the edges.
            CsrGraph expected = GraphLoader.load(SharedData.graph("karate"), direction);
            assertThat(expected.numEdges()).isEqualTo(156);
            assertSameCsr(GraphLoader.load(copy, direction), expected);
        }
        assertThat(GraphLoader.headerFacts(copy, null).directed()).isFalse();
    }

    @ParameterizedTest(name = "cora with node features, gzip {0}")
    @ValueSource(booleans = {false, true})
    void coraWithAMarkOnEdgesAndNodesLoadsAsTheSameGraphAndFeatures(boolean gzip) throws Exception {
        Path copy = copyWithMark("cora", gzip);
        GraphStore expected = GraphStore.load(spec(SharedData.graph("cora"), true));
        GraphStore actual = GraphStore.load(spec(copy, true));
        assertSameCsr(actual.adjacency(), expected.adjacency());
        NodeFeatures want = expected.features();
        NodeFeatures got = actual.features();
        assertThat(got.numNodes()).isEqualTo(2708);
        assertThat(got.dim()).isEqualTo(want.dim()).isEqualTo(1433);
        for (int node = 0; node < want.numNodes(); node++) {
            assertThat(got.label(node)).as("label of %d", node).isEqualTo(want.label(node));
            for (int c = 0; c < want.dim(); c++) {
                if (got.value(node, c) != want.value(node, c)) {
                    assertThat(got.value(node, c)).as("feature %d of node %d", c, node).isEqualTo(want.value(node, c));
                }
            }
        }
        // The client's streaming scans (memory store, and the partitioned store's node-id file).
        assertThat(GraphStore.scanNodeIds(spec(copy, true)).size()).isEqualTo(2708);
        NodeIdFile.NodeIds ids = NodeIdFile.write(spec(copy, true), tmp.resolve("ids"));
        assertThat(ids.numNodes()).isEqualTo(2708);
        assertThat(ids.identity()).isTrue();
    }

    /**
     * The partitioned store reads byte ranges of a plain part and, for a later part, the earlier parts' headers apart:
     * every split size gives the same edges and order keys as the file without the mark, and a part after a marked
     * one inherits that part's header.
     */
    @ParameterizedTest(name = "split {0} bytes")
    // 24281: the marked copy (48563 bytes) would get a last split at byte 48562, past the end of its text.
    @ValueSource(longs = {7, 100, 1000, 24281, 48559, 48560, 1 << 20})
    void partitionedSplitsOfAMarkedPartReadAsTheUnmarkedFile(long splitBytes) throws Exception {
        Path cora = SharedData.graph("cora");
        Path copy = copyWithMark("cora", false);
        List<GraphLoader.EdgeSplit> splits = GraphLoader.edgeSplits(copy, splitBytes);
        assertThat(splits).isEqualTo(GraphLoader.edgeSplits(cora, splitBytes));
        List<String> expected = stream(cora, GraphLoader.edgeSplits(cora, splitBytes));
        assertThat(expected).hasSize(2 * 5278);
        assertThat(stream(copy, splits)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "gzip {0}")
    @ValueSource(booleans = {false, true})
    void aPartAfterAMarkedPartInheritsItsHeader(boolean gzip) throws Exception {
        // Part 0: karate with a mark (its header says directed=false); part 1: rows only, no header.
        Path dir = Files.createDirectories(tmp.resolve("parts"));
        String gz = gzip ? ".gz" : "";
        writeWithMark(dir.resolve("edges.0.tsv" + gz), text(SharedData.graph("karate").resolve("edges.tsv")));
        Files.writeString(dir.resolve("edges.1.tsv"), "0\t33\n");
        List<String> part1 = stream(dir, List.of(new GraphLoader.EdgeSplit(1, 0, Long.MAX_VALUE)));
        // Undirected from part 0's header: the row gives both directions.
        assertThat(part1).containsExactly("0>33@" + (1L << 40), "33>0@" + (1L << 40));
    }

    private static List<String> stream(Path graph, List<GraphLoader.EdgeSplit> splits) throws IOException {
        List<String> edges = new ArrayList<>();
        for (GraphLoader.EdgeSplit split : splits) {
            GraphLoader.streamEdges(graph, null, split, EdgeDirection.OUT,
                    (node, neighbor, order) -> edges.add(node + ">" + neighbor + "@" + order));
        }
        return edges;
    }

    @ParameterizedTest(name = "gzip {0}")
    @ValueSource(booleans = {false, true})
    void typedGraphWithMarksLoadsAsTheSameGraph(boolean gzip) throws Exception {
        // cora_hetero: typed edge files, a label node file (nodes.paper) and an ids-only one (nodes.word).
        Path copy = copyWithMark("cora_hetero", gzip);
        TypedGraphStore expected = TypedGraphStore.load(spec(SharedData.graph("cora_hetero"), false));
        TypedGraphStore actual = TypedGraphStore.load(spec(copy, false));
        assertThat(actual.nodeIds().keySet()).containsExactly("paper", "word");
        assertThat(actual.nodeIds("paper").size()).isEqualTo(2708);
        assertThat(actual.nodeIds("word").size()).isEqualTo(1433);
        assertThat(actual.adjacency().keySet()).isEqualTo(expected.adjacency().keySet());
        for (var e : expected.adjacency().entrySet()) {
            TypedAdjacency got = actual.adjacency().get(e.getKey());
            assertSameCsr(got.csr(), e.getValue().csr());
        }
        assertThat(actual.features("paper").label(17)).isEqualTo(expected.features("paper").label(17));

        // Link seeds with a mark, resolved against the typed graph's ids.
        Path links = writeWithMark(tmp.resolve("links.tsv" + (gzip ? ".gz" : "")), "# seed edges\n0\t633\n5\t7\n".getBytes());
        EdgeType cites = EdgeType.parse("paper__cites__paper");
        LinkSeeds seeds = LinkSeeds.read(links, cites, actual.nodeIds("paper"), actual.nodeIds("paper"));
        assertThat(seeds.size()).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"seeds.txt", "seeds.txt.gz"})
    void seedFilesWithAMarkHoldTheSameSeeds(String name) throws Exception {
        StringBuilder text = new StringBuilder("# karate's even nodes\n");
        for (int id = 0; id < 34; id += 2) {
            text.append(id).append('\n');
        }
        Path plain = tmp.resolve("plain-" + name);
        try (OutputStream raw = Files.newOutputStream(plain);
                OutputStream out = name.endsWith(".gz") ? new GZIPOutputStream(raw) : raw) {
            out.write(text.toString().getBytes());
        }
        Path marked = writeWithMark(tmp.resolve(name), text.toString().getBytes());

        // The memory store's seed parser.
        SeedSet seeds = SeedSet.parse(marked.toString(), 34);
        assertThat(seeds.size()).isEqualTo(17);
        assertThat(seeds.toArray()).isEqualTo(SeedSet.parse(plain.toString(), 34).toArray()).startsWith(0, 2, 4);
        assertThat(SeedSet.idsNamed(marked.toString()).id(0)).isEqualTo(0);

        // The partitioned store's indexed seed file: chunks found by offset, the first one right after the mark.
        SeedFile indexed = SeedFile.index(marked, 5);
        SeedFile reference = SeedFile.index(plain, 5);
        assertThat(indexed.numSeeds()).isEqualTo(17);
        assertThat(indexed.contentHash()).isEqualTo(reference.contentHash());
        assertThat(chunks(indexed, 0)).isEqualTo(chunks(reference, 0)).startsWith(0L, 2L, 4L);
        assertThat(chunks(indexed, 2)).isEqualTo(chunks(reference, 2)).startsWith(20L);
    }

    private static List<Long> chunks(SeedFile file, int from) throws IOException {
        List<Long> ids = new ArrayList<>();
        try (SeedFile.Cursor cursor = file.open(from)) {
            for (int c = from; c < file.numChunks(); c++) {
                for (long id : cursor.nextChunk()) {
                    ids.add(id);
                }
            }
        }
        return ids;
    }

    @Test
    void graphUpdateFilesWithAMarkReadTheirFirstLine() throws Exception {
        Path file = writeWithMark(tmp.resolve("update-0001.tsv"), "+\t0\t33\n-\t0\t1\n".getBytes());
        long size = Files.size(file);
        FileSourceSplit split = new FileSourceSplit("0", new org.apache.flink.core.fs.Path(file.toUri()), 0, size,
                0, size);
        List<String> lines = new ArrayList<>();
        try (BulkFormat.Reader<UpdateLine> reader = new UpdateLineFormat().createReader(new Configuration(), split)) {
            BulkFormat.RecordIterator<UpdateLine> batch = reader.readBatch();
            for (RecordAndPosition<UpdateLine> r; (r = batch.next()) != null; ) {
                lines.add(r.getRecord().text);
            }
        }
        assertThat(lines).containsExactly("+\t0\t33", "-\t0\t1", null);
    }
}
