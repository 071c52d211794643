package io.fanout.sampling.ppr;

import java.util.Objects;

/**
 * One node's neighbour list as a push reads it when lists are fetched ({@link FetchingPush}): the node's true
 * degree, the neighbours a push reads (all d in list order, or the k positions of
 * {@link ForwardPush#readPositions} in read order when {@code d > k = num_neighbors_per_hop}) and each read
 * neighbour's true degree, which the queue threshold {@code alpha * eps * max(deg, 1)} needs before that
 * neighbour's own list is fetched.
 */
public final class FetchedList {
    private final int degree;
    private final long[] neighbors;
    private final int[] neighborDegrees;

    public FetchedList(int degree, long[] neighbors, int[] neighborDegrees) {
        Objects.requireNonNull(neighbors, "neighbors");
        Objects.requireNonNull(neighborDegrees, "neighborDegrees");
        if (neighbors.length != neighborDegrees.length) {
            throw new IllegalArgumentException(neighbors.length + " neighbours but " + neighborDegrees.length
                    + " degrees");
        }
        checkRead(degree, neighbors.length);
        this.degree = degree;
        this.neighbors = neighbors;
        this.neighborDegrees = neighborDegrees;
    }

    /**
     * Refuses a list of true degree {@code degree} with {@code read} read neighbours that no push could read: more than
     * the degree, or none of a node that has some.
     */
    static void checkRead(int degree, int read) {
        if (degree < read || (degree > 0 && read == 0)) {
            throw new IllegalArgumentException("degree " + degree + " with " + read + " read neighbours");
        }
    }

    /** The node's true degree (0 = dangling). */
    public int degree() {
        return degree;
    }

    /** Neighbours a push reads, in read order (read-only). */
    public long[] neighbors() {
        return neighbors;
    }

    /** True degree of each read neighbour (read-only). */
    public int[] neighborDegrees() {
        return neighborDegrees;
    }

    /**
     * The list a push of {@code node} reads, from the node's whole list in list order and each neighbour's degree:
     * capped to {@code maxNeighbors} (-1 = all) exactly as {@link ForwardPush} caps it.
     */
    public static FetchedList of(long node, long[] list, int[] listDegrees, int maxNeighbors, long neighborSeed) {
        int d = list.length;
        if (maxNeighbors < 1 || d <= maxNeighbors) {
            return new FetchedList(d, list, listDegrees);
        }
        int[] positions = readPositions(node, d, maxNeighbors, neighborSeed);
        long[] read = new long[maxNeighbors];
        int[] readDegrees = new int[maxNeighbors];
        for (int j = 0; j < maxNeighbors; j++) {
            read[j] = list[positions[j]];
            readDegrees[j] = listDegrees[positions[j]];
        }
        return new FetchedList(d, read, readDegrees);
    }

    /**
     * The list positions a push of {@code node} (degree {@code d}) reads, in read order: all d in list order, or the
     * k = {@code maxNeighbors} of {@link ForwardPush#readPositions} when {@code d > k} (-1 = all).
     */
    public static int[] readPositions(long node, int d, int maxNeighbors, long neighborSeed) {
        if (maxNeighbors < 1 || d <= maxNeighbors) {
            int[] all = new int[d];
            for (int i = 0; i < d; i++) {
                all[i] = i;
            }
            return all;
        }
        return ForwardPush.readPositions(neighborSeed, node, d, maxNeighbors);
    }
}
