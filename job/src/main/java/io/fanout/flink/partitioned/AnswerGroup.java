package io.fanout.flink.partitioned;

/**
 * The answers to one {@link RequestGroup}, back to its batch (a Flink POJO keyed by {@link #batchKey}): node
 * {@code i} of the group (frontier position {@code positions[i]}) sampled {@code neighbors[ends[i-1] .. ends[i])}
 * ({@code ends[-1]} = 0), in draw order.
 */
public class AnswerGroup {
    public long batchKey;
    public int[] positions;
    public int[] ends;
    public long[] neighbors;

    public AnswerGroup() {}

    public AnswerGroup(long batchKey, int[] positions, int[] ends, long[] neighbors) {
        this.batchKey = batchKey;
        this.positions = positions;
        this.ends = ends;
        this.neighbors = neighbors;
    }

    /** Number of frontier nodes answered. */
    public int size() {
        return positions.length;
    }

    /** Puts each answered node's neighbours at its frontier position of {@code inOrder}. */
    void scatter(long[][] inOrder) {
        for (int i = 0, from = 0; i < positions.length; from = ends[i++]) {
            inOrder[positions[i]] = java.util.Arrays.copyOfRange(neighbors, from, ends[i]);
        }
    }
}
