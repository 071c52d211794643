package io.fanout.graph;

/** Which way sampling walks an edge: from its source ({@code out}) or from its destination ({@code in}). */
public enum EdgeDirection {
    /** Expand a node to the destinations of its out-edges (GLT/PyG {@code edge_dir='out'}). */
    OUT,
    /** Expand a node to the sources of its in-edges (GLT/PyG {@code edge_dir='in'}). */
    IN;

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
