package io.fanout.sampling.hetero;

import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A typed graph read with plain string splits, independently of the loader: per edge type its rows (the edge id is
 * the row), the set of stored (src, dst) pairs and each node's degree in a sampling direction.
 */
public final class TypedReference {
    /** One edge type's file as read. */
    public static final class TypeEdges {
        public final boolean directed;
        /** Row i = {src, dst}. */
        public final List<long[]> rows = new ArrayList<>();
        final Set<String> pairs = new HashSet<>();
        final Map<Long, Integer> outDegree = new HashMap<>();
        final Map<Long, Integer> inDegree = new HashMap<>();

        TypeEdges(boolean directed) {
            this.directed = directed;
        }

        /** True when the graph stores the edge a -> b (either way for an undirected file). */
        public boolean has(long a, long b) {
            return pairs.contains(a + ">" + b) || (!directed && pairs.contains(b + ">" + a));
        }

        /** Neighbours of {@code v} in {@code direction} (undirected: both ways, a self-loop once). */
        public int degree(long v, EdgeDirection direction) {
            if (!directed) {
                return outDegree.getOrDefault(v, 0);
            }
            return (direction == EdgeDirection.OUT ? outDegree : inDegree).getOrDefault(v, 0);
        }
    }

    public final Map<EdgeType, TypeEdges> types = new HashMap<>();

    public static TypedReference read(Path dir) throws Exception {
        TypedReference ref = new TypedReference();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                if (!name.startsWith("edges.") || !name.endsWith(".tsv")) {
                    continue;
                }
                EdgeType type = EdgeType.parse(name.substring(6, name.length() - 4));
                try (BufferedReader in = Files.newBufferedReader(file)) {
                    String header = in.readLine();
                    TypeEdges edges = new TypeEdges(!header.contains("directed=false"));
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        String[] f = line.split("\t");
                        long a = Long.parseLong(f[0]);
                        long b = Long.parseLong(f[1]);
                        edges.rows.add(new long[] {a, b});
                        edges.pairs.add(a + ">" + b);
                        edges.outDegree.merge(a, 1, Integer::sum);
                        edges.inDegree.merge(b, 1, Integer::sum);
                        if (!edges.directed && a != b) {
                            edges.outDegree.merge(b, 1, Integer::sum);
                        }
                    }
                    ref.types.put(type, edges);
                }
            }
        }
        return ref;
    }
}
