package io.fanout.sampling;

import java.util.Locale;

/** Which edges a k-hop batch's subgraph holds (PyG's {@code subgraph_type}). */
public enum SubgraphType {
    /** The sampled edges, as drawn. */
    DIRECTIONAL,
    /** The sampled edges and their reverses, duplicates dropped ({@code to_bidirectional}). */
    BIDIRECTIONAL,
    /** Every graph edge among the sampled nodes. */
    INDUCED;

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
