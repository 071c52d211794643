package io.fanout.graph.typed;

import io.fanout.graph.GraphFiles;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.NodeIdCollector;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A node file that lists ids only ({@code nodes.<type>.tsv} with {@code columns=id}, one id per line): it names a
 * node type's nodes but carries no label or feature, so {@code NodeFileReader} (which needs a label column) is
 * not the reader for it.
 */
public final class NodeIdFile {
    private NodeIdFile() {
    }

    /** True when the first data row of {@code file} has a single field. */
    public static boolean idsOnly(Path file) throws IOException {
        try (BufferedReader in = open(file)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (!line.startsWith("#")) {
                    return line.strip().split("[\t ]+").length == 1;
                }
            }
        }
        return false;
    }

    /**
     * Adds every id of {@code file} to {@code ids}.
     *
     * @throws GraphFormatException naming the line of a row that is not one non-negative int64 id
     */
    public static void read(Path file, NodeIdCollector ids) throws IOException {
        long[] buffer = new long[4096];
        int n = 0;
        long lineNo = 0;
        try (BufferedReader in = open(file)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lineNo++;
                if (line.startsWith("#")) {
                    continue;
                }
                String text = line.strip();
                long id;
                try {
                    id = Long.parseLong(text);
                } catch (NumberFormatException e) {
                    throw new GraphFormatException(file, lineNo, "'" + text + "' is not a node id (expected one"
                            + " non-negative int64 id per line)");
                }
                if (id < 0) {
                    throw new GraphFormatException(file, lineNo, "negative node id " + id);
                }
                if (n == buffer.length) {
                    buffer = java.util.Arrays.copyOf(buffer, n * 2); // the collector keeps the array it is given
                }
                buffer[n++] = id;
            }
        }
        ids.add(buffer, n);
    }

    private static BufferedReader open(Path file) throws IOException {
        return new BufferedReader(new InputStreamReader(GraphFiles.open(file), StandardCharsets.UTF_8));
    }
}
