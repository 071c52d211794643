package io.fanout.sampling;

import java.util.Locale;

/** How temporal k-hop sampling picks among the edges up to a seed's time (PyG's {@code temporal_strategy}). */
public enum TemporalStrategy {
    /** Draw uniformly (or by weight) among them. */
    UNIFORM,
    /** Take the fanout most recent of them. */
    LAST;

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
