package io.fanout.graph;

/** Which way sampling walks an edge: from its source ({@code out}) or from its destination ({@code in}). */
public enum EdgeDirection {
    /** Expand a node to the destinations of its out-edges (GLT/PyG {@code edge_dir='out'}). */
    OUT,
    /** Expand a node to the sources of its in-edges (GLT/PyG {@code edge_dir='in'}). */
    IN;

    /** Parses {@code out} or {@code in}, case-insensitively. */
    public static EdgeDirection parse(String value) {
        switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "out":
                return OUT;
            case "in":
                return IN;
            default:
                throw new IllegalArgumentException("edge direction must be 'out' or 'in', got '" + value + "'");
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
