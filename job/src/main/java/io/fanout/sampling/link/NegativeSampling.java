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

    /** Parses {@code none}, {@code binary} or {@code triplet}, case-insensitively. */
    public static NegativeSampling parse(String value) {
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "none":
                return NONE;
            case "binary":
                return BINARY;
            case "triplet":
                return TRIPLET;
            default:
                throw new IllegalArgumentException("must be none, binary or triplet, got '" + value + "'");
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
