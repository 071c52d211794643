package io.fanout.sampling.partitioned;

/**
 * A plain batch's k-hop subgraph as a hop stage grows it from per-node answers: one de-duplicated subgraph
 * ({@link BatchAssembly}) or one tree per seed ({@link DisjointBatchAssembly}). Its state is what the stage carries
 * between hops.
 */
public interface HopAssembly {
    /** The node ids to expand at the next hop, in order. */
    long[] frontier();

    /** The tree of each {@link #frontier()} node (the stream it draws from), or null when not disjoint. */
    int[] frontierTrees();

    /**
     * Applies one hop given as groups of answers, as lookups send them: group {@code g} answered frontier positions
     * {@code positions[g][i]} with the neighbours {@code neighbors[g][ends[g][i-1] .. ends[g][i])}, in draw order;
     * every frontier position answered exactly once.
     */
    void addHop(int[][] positions, int[][] ends, long[][] neighbors);

    /** The seeds as given (duplicates kept). */
    long[] batch();

    /** Node ids: the seeds first, then each hop's new nodes in discovery order. */
    long[] ids();

    /** Each node's tree, the index of its seed (PyG's disjoint {@code batch}), or null when not disjoint. */
    int[] trees();

    /** Edge sources (local indices), in edge order. */
    int[] rows();

    /** Edge targets (local indices), in edge order. */
    int[] cols();

    /** Per hop, hops+1 entries: [0] = the seeds. */
    int[] numSampledNodes();

    /** Per hop, one entry per hop applied (GLT/PyG). */
    int[] numSampledEdges();
}
