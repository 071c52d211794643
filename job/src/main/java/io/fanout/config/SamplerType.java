package io.fanout.config;

/** The sampling algorithms a Fanout job can run. */
public enum SamplerType {
    /** Uniform k-hop neighbour sampling with in-batch de-duplication (GLT's NeighborSampler). */
    KHOP,
    /** Top-k personalized PageRank neighbours per seed by forward push (GiGL's DistPPRNeighborSampler). */
    PPR;

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
