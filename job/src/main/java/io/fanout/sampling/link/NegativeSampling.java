package io.fanout.sampling.link;

import java.util.Locale;

/** How link seeds get negatives (GLT/PyG {@code NegativeSampling} modes). */
public enum NegativeSampling {
    /** Positives only: {@code #META.edge_label_index}. */
    NONE,
    /** Random node pairs that are not edges, labelled 0 beside the positives labelled 1. */
    BINARY,
    /** Per positive edge, destinations that its source has no edge to. */
    TRIPLET;

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
