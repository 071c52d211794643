package io.fanout.graph.typed;

import io.fanout.graph.GraphFormatException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The files of a typed (heterogeneous) graph directory: one {@code edges.<src>__<rel>__<dst>.tsv[.gz]} per edge
 * type and optionally one {@code nodes.<type>.tsv[.gz]} per node type (shared/data/README.md). Found by name only,
 * so the submitting client can validate options against the types without reading a row.
 */
public final class TypedGraphFiles {
    private final Path dir;
    private final Map<EdgeType, Path> edges;
    private final Map<String, Path> nodes;

    private TypedGraphFiles(Path dir, Map<EdgeType, Path> edges, Map<String, Path> nodes) {
        this.dir = dir;
        this.edges = Collections.unmodifiableMap(edges);
        this.nodes = Collections.unmodifiableMap(nodes);
    }

    /** True when {@code graph} is a typed edge file or a directory holding one (its name has {@code __}). */
    public static boolean isTyped(Path graph) throws IOException {
        if (!Files.isDirectory(graph)) {
            return edgeTypeOf(graph) != null;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(graph)) {
            for (Path entry : entries) {
                if (edgeTypeOf(entry) != null) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Lists the typed graph at {@code graph} (a directory, or one typed edge file and the node files beside it).
     *
     * @throws GraphFormatException when a directory mixes typed and untyped edge files, or a name is not a type
     * @throws NoSuchFileException if {@code graph} does not exist
     */
    public static TypedGraphFiles of(Path graph) throws IOException {
        if (!Files.exists(graph)) {
            throw new NoSuchFileException(graph.toString(), null, "path does not exist");
        }
        boolean single = !Files.isDirectory(graph);
        Path dir = single ? graph.toAbsolutePath().getParent() : graph;
        Map<EdgeType, Path> edges = new TreeMap<>();
        Map<String, Path> nodes = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                String stem = stem(name);
                if (stem == null || Files.isDirectory(entry)) {
                    continue;
                }
                if (stem.startsWith("edges.") && (!single || entry.getFileName().equals(graph.getFileName()))) {
                    EdgeType type = edgeTypeOf(entry);
                    if (type == null) {
                        throw new GraphFormatException(entry, "untyped edge file in a typed graph directory: every"
                                + " edge file must be edges.<src>__<rel>__<dst>.tsv");
                    }
                    if (edges.put(type, entry) != null) {
                        throw new GraphFormatException(entry, "edge type " + type + " has two files");
                    }
                } else if (stem.startsWith("nodes.") && !stem.substring(6).isEmpty()) {
                    if (nodes.put(stem.substring(6), entry) != null) {
                        throw new GraphFormatException(entry, "node type " + stem.substring(6) + " has two files");
                    }
                } else if (stem.equals("edges") && !single) {
                    throw new GraphFormatException(entry, "untyped edge file in a typed graph directory: every edge"
                            + " file must be edges.<src>__<rel>__<dst>.tsv");
                }
            }
        }
        if (edges.isEmpty()) {
            throw new GraphFormatException(graph, "no typed edge file (edges.<src>__<rel>__<dst>.tsv[.gz])");
        }
        return new TypedGraphFiles(dir, edges, nodes);
    }

    /** The edge type a file name {@code edges.<src>__<rel>__<dst>.tsv[.gz]} declares, or null for other names. */
    static EdgeType edgeTypeOf(Path file) throws GraphFormatException {
        String stem = stem(file.getFileName().toString());
        if (stem == null || !stem.startsWith("edges.") || !stem.contains(EdgeType.SEPARATOR)) {
            return null;
        }
        try {
            return EdgeType.parse(stem.substring("edges.".length()));
        } catch (IllegalArgumentException e) {
            throw new GraphFormatException(file, e.getMessage());
        }
    }

    /** The name without {@code .tsv} or {@code .tsv.gz}, or null when it has neither. */
    private static String stem(String name) {
        if (name.endsWith(".tsv.gz")) {
            return name.substring(0, name.length() - 7);
        }
        return name.endsWith(".tsv") ? name.substring(0, name.length() - 4) : null;
    }

    public Path dir() {
        return dir;
    }

    /** Edge type -> file, in edge-type name order. */
    public Map<EdgeType, Path> edges() {
        return edges;
    }

    /** Node type -> node file, for the types that have one, in name order. */
    public Map<String, Path> nodeFiles() {
        return nodes;
    }

    /** Every node type an edge type or a node file names, in name order. */
    public java.util.SortedSet<String> nodeTypes() {
        java.util.SortedSet<String> types = new java.util.TreeSet<>(nodes.keySet());
        for (EdgeType t : edges.keySet()) {
            types.add(t.src());
            types.add(t.dst());
        }
        return types;
    }
}
