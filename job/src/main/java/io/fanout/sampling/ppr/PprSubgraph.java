package io.fanout.sampling.ppr;

/**
 * One batch's PPR neighbourhoods in GiGL's message form: node ids plus virtual edges seed -> neighbour.
 *
 * <p>{@code ids} lists the batch's unique seeds first (first-occurrence order), then every selected PPR
 * neighbour that is not already listed, in edge order. Edge {@code e} goes from local index
 * {@code edgeIndex[e]} (a seed) to local index {@code edgeIndex[numEdges + e]} (its neighbour): the
 * row-major int64 {@code [2, N]} layout of {@code #META.edge_index}. {@code edgeAttr[2e]} is the PPR score
 * and {@code edgeAttr[2e + 1]} the hop proximity {@code 1 / (1 + hop)}: the row-major float64 {@code [N, 2]}
 * layout of {@code #META.edge_attr}. Edges are grouped by seed (in {@code ids} order), best score first,
 * ties by node id. The arrays are exact-length and owned by the caller.
 */
public final class PprSubgraph {
    private final int[] ids;
    private final int[] batch;
    private final int numSeeds;
    private final int[] edgeIndex;
    private final double[] edgeAttr;
    private final long pushes;

    PprSubgraph(int[] ids, int[] batch, int numSeeds, int[] edgeIndex, double[] edgeAttr, long pushes) {
        this.ids = ids;
        this.batch = batch;
        this.numSeeds = numSeeds;
        this.edgeIndex = edgeIndex;
        this.edgeAttr = edgeAttr;
        this.pushes = pushes;
    }

    /** Global ids, unique seeds first. */
    public int[] ids() {
        return ids;
    }

    /** The batch's seeds as given (duplicates kept). */
    public int[] batch() {
        return batch;
    }

    /** Number of unique seeds: {@code ids[0..numSeeds)}. */
    public int numSeeds() {
        return numSeeds;
    }

    public int numNodes() {
        return ids.length;
    }

    /** Number of PPR edges N. */
    public int numEdges() {
        return edgeIndex.length / 2;
    }

    /** int64 [2, N] row-major: seed local indices, then neighbour local indices. */
    public int[] edgeIndex() {
        return edgeIndex;
    }

    /** float64 [N, 2] row-major: per edge [ppr_score, hop_proximity]. */
    public double[] edgeAttr() {
        return edgeAttr;
    }

    /** Forward-push operations the batch took (all its seeds). */
    public long pushes() {
        return pushes;
    }
}
