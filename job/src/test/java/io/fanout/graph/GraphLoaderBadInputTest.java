package io.fanout.graph;

import static io.fanout.graph.GraphLoaderTest.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.testing.SharedData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Every kind of malformed input fails loudly, naming the file and the 1-based line (no silent skipping). */
class GraphLoaderBadInputTest {
    private static final String HEADER = "# directed=true columns=src,dst\n";
    private static final String WEIGHTED = "# directed=true columns=src,dst,weight,timestamp\n";

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        non-numeric id        | HEADER  | 0\\t1\\n1\\tabc\\n          | 3 | non-numeric dst id 'abc'
        decimal id            | HEADER  | 0\\t1\\n1.5\\t2\\n          | 3 | non-numeric src id '1.5'
        negative id           | HEADER  | 0\\t1\\n#c\\n-3\\t4\\n      | 4 | negative src id -3
        id beyond int64       | HEADER  | 99999999999999999999\\t1\\n | 2 | out of the int64 range
        missing column        | HEADER  | 0\\t1\\n7\\n                | 3 | missing column dst
        missing weight        | WEIGHTED| 0\\t1\\t1\\t5\\n0\\t2\\n    | 3 | missing column weight
        missing timestamp     | WEIGHTED| 0\\t1\\t1\\n                | 2 | missing column timestamp
        too many columns      | HEADER  | 0\\t1\\n1\\t2\\t3\\n        | 3 | too many columns
        too many, weighted    | WEIGHTED| 0\\t1\\t1\\t5\\tx\\n        | 2 | too many columns
        too many, no header   | NONE    | 0\\t1\\t2\\t3\\t4\\n        | 1 | too many columns
        one field, no header  | NONE    | 0\\n                        | 1 | missing column dst
        bad weight            | WEIGHTED| 0\\t1\\theavy\\t5\\n        | 2 | bad weight 'heavy'
        NaN weight            | WEIGHTED| 0\\t1\\tNaN\\t5\\n          | 2 | bad weight 'NaN'
        overflowing weight    | WEIGHTED| 0\\t1\\t1e99\\t5\\n         | 2 | out of float range
        bad timestamp         | WEIGHTED| 0\\t1\\t1\\tnoon\\n         | 2 | bad timestamp 'noon'
        decimal timestamp     | WEIGHTED| 0\\t1\\t1\\t12.5\\n         | 2 | bad timestamp '12.5'
        huge timestamp        | WEIGHTED| 0\\t1\\t1\\t99999999999999999999\\n | 2 | out of int64 range
        blank line            | HEADER  | 0\\t1\\n\\n1\\t2\\n         | 3 | empty line
        id over num_nodes     | # num_nodes=5 columns=src,dst\\n | 0\\t1\\n1\\t5\\n | 3 | not below num_nodes=5
        id under id_base      | # id_base=1\\n | 1\\t2\\n0\\t1\\n    | 3 | below id_base=1
        bad directed          | # directed=maybe\\n | 0\\t1\\n        | 1 | directed=maybe
        unknown column        | # columns=src,dst,label\\n | 0\\t1\\t2\\n | 1 | unknown column 'label'
        columns not src,dst   | # columns=dst,src\\n | 0\\t1\\n      | 1 | must start with src,dst
        bad num_nodes         | # num_nodes=lots\\n | 0\\t1\\n        | 1 | num_nodes=lots
        """)
    void badRowNamesFileAndLine(String name, String header, String body, long line, String problem) throws IOException {
        String content = (header.equals("HEADER") ? HEADER : header.equals("WEIGHTED") ? WEIGHTED
                : header.equals("NONE") ? "" : unescape(header)) + unescape(body);
        Path file = write(tmp, "edges.tsv", content);
        // directed=true: what the rows with a directed= header say, and what the others need to get to their rows.
        assertThatThrownBy(() -> GraphLoader.load(file, EdgeDirection.OUT, true))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("line " + line + ":")
                .hasMessageContaining(problem)
                .satisfies(e -> assertThat(((GraphFormatException) e).line()).isEqualTo(line));
    }

    @Test
    void lineNumbersCountAcrossReadBuffers() throws IOException {
        StringBuilder content = new StringBuilder(HEADER);
        int rows = 300_000; // ~3 MB: several 1 MiB reads
        for (int i = 0; i < rows; i++) {
            content.append(i).append('\t').append(i + 1).append('\n');
        }
        content.append("7\tx7\n");
        Path file = write(tmp, "edges.tsv", content.toString());
        assertThatThrownBy(() -> GraphLoader.load(file, EdgeDirection.OUT))
                .hasMessageContaining(file + " line " + (rows + 2) + ": non-numeric dst id 'x7'");
    }

    @Test
    void errorInGzippedPartNamesThatPart() throws IOException {
        write(tmp, "edges.0.tsv", HEADER + "0\t1\n");
        Path gz = tmp.resolve("edges.1.tsv.gz");
        try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
            out.write("1\t2\n2\t-1\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        assertThatThrownBy(() -> GraphLoader.load(tmp, EdgeDirection.OUT))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageContaining(gz + " line 2: negative dst id -1");
    }

    @Test
    void truncatedGzipNamesTheFile() throws IOException {
        byte[] whole = Files.readAllBytes(SharedData.graph("ego_twitter_u").resolve("edges.tsv.gz"));
        Path cut = tmp.resolve("edges.tsv.gz");
        Files.write(cut, java.util.Arrays.copyOf(whole, whole.length / 2));
        assertThatThrownBy(() -> GraphLoader.load(cut, EdgeDirection.OUT))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("cannot read " + cut + " after line ");
    }

    @Test
    void emptyGraphNamesThePath() throws IOException {
        Path headerOnly = write(tmp, "edges.tsv", HEADER + "# nothing else\n");
        assertThatThrownBy(() -> GraphLoader.load(headerOnly, EdgeDirection.OUT))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageContaining(headerOnly.toString())
                .hasMessageContaining("empty graph");
        Path emptyFile = write(tmp, "edges.empty.tsv", "");
        assertThatThrownBy(() -> GraphLoader.load(emptyFile, EdgeDirection.OUT))
                .hasMessageContaining(emptyFile.toString())
                .hasMessageContaining("empty graph");
        // A directory whose parts are all empty names the directory.
        assertThatThrownBy(() -> GraphLoader.load(tmp, EdgeDirection.OUT))
                .hasMessageStartingWith(tmp + ": empty graph");
    }

    @Test
    void typedEdgeFilesAreRejectedAsHeterogeneous() throws IOException {
        Path hetero = SharedData.graph("cora_hetero");
        assertThatThrownBy(() -> GraphLoader.load(hetero, EdgeDirection.OUT))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageContaining("edges.paper__cites__paper.tsv")
                .hasMessageContaining("heterogeneous graphs are not supported yet");
        Path typed = write(tmp, "edges.user__follows__user.tsv", HEADER + "0\t1\n");
        assertThatThrownBy(() -> GraphLoader.load(typed, EdgeDirection.OUT))
                .hasMessageContaining(typed.toString())
                .hasMessageContaining("heterogeneous graphs are not supported yet");
    }

    @Test
    void directoryWithoutEdgeFilesNamesTheDirectory() throws IOException {
        write(tmp, "nodes.tsv", "0\t1\n");
        assertThatThrownBy(() -> GraphLoader.load(tmp, EdgeDirection.OUT))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageStartingWith(tmp + ": no edge file");
    }

    @Test
    void missingPathIsNamed() {
        Path missing = tmp.resolve("no-such-graph");
        assertThatThrownBy(() -> GraphLoader.load(missing, EdgeDirection.OUT))
                .isInstanceOf(NoSuchFileException.class)
                .hasMessageContaining(missing.toString());
    }

    @Test
    void partsThatDisagreeAreRejected() throws IOException {
        write(tmp, "edges.a.tsv", "# directed=false columns=src,dst\n0\t1\n");
        Path b = write(tmp, "edges.b.tsv", "# directed=true columns=src,dst\n1\t2\n");
        assertThatThrownBy(() -> GraphLoader.load(tmp, EdgeDirection.OUT))
                .hasMessageContaining(b + " line 1: header directed=true disagrees with directed=false");
        write(tmp, "edges.b.tsv", "# directed=false columns=src,dst,weight\n1\t2\t1\n");
        assertThatThrownBy(() -> GraphLoader.load(tmp, EdgeDirection.OUT))
                .hasMessageContaining(b + " line 1: header columns=src,dst,weight disagrees with columns=src,dst");
        // A headerless part inherits columns=src,dst, so a third column is one too many.
        write(tmp, "edges.b.tsv", "1\t2\t1\n");
        assertThatThrownBy(() -> GraphLoader.load(tmp, EdgeDirection.OUT))
                .hasMessageContaining(b + " line 1: too many columns");
    }

    private static String unescape(String text) {
        return text.strip().replace("\\t", "\t").replace("\\n", "\n");
    }
}
