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
    /**
     * With edge ids ({@code fanout.with-edge}): each sampled edge's input row, parallel to {@link #neighbors}, and its
     * weight (weighted graphs) and time (temporal sampling); else null.
     */
    public long[] eids;
    public float[] weights;
    public long[] times;

    public AnswerGroup() {}

    public AnswerGroup(long batchKey, int[] positions, int[] ends, long[] neighbors) {
        this.batchKey = batchKey;
        this.positions = positions;
        this.ends = ends;
        this.neighbors = neighbors;
    }

    /**
     * A batch's received groups side by side, as the assemblies take them ({@code positions[g]}, {@code ends[g]},
     * {@code neighbors[g]} of group {@code g}): applied where they arrived, no array per frontier node.
     */
    record Received(int[][] positions, int[][] ends, long[][] neighbors, int drawn) {
        static Received of(java.util.List<AnswerGroup> received) {
            int groups = received.size();
            int[][] positions = new int[groups][];
            int[][] ends = new int[groups][];
            long[][] neighbors = new long[groups][];
            int drawn = 0;
            for (int g = 0; g < groups; g++) {
                AnswerGroup a = received.get(g);
                positions[g] = a.positions;
                ends[g] = a.ends;
                neighbors[g] = a.neighbors;
                drawn = Math.addExact(drawn, a.neighbors.length);
            }
            return new Received(positions, ends, neighbors, drawn);
        }

        /**
         * {@code --with-edge}: the received groups' edge data in the order an assembly adds their edges over a
         * frontier of {@code frontier} nodes ({@link io.fanout.sampling.partitioned.SampledEdgeData#ofHop}).
         */
        static io.fanout.sampling.partitioned.SampledEdgeData edgeData(java.util.List<AnswerGroup> received,
                Received answers, int frontier, boolean weighted, boolean timed) {
            int groups = received.size();
            long[][] eids = new long[groups][];
            float[][] weights = new float[groups][];
            long[][] times = new long[groups][];
            for (int g = 0; g < groups; g++) {
                AnswerGroup a = received.get(g);
                eids[g] = a.eids;
                weights[g] = a.weights;
                times[g] = a.times;
                if ((weighted && a.weights == null) || (timed && a.times == null)) {
                    throw new IllegalStateException("an answer group without the weights or times of its edges");
                }
            }
            if (groups == 0) {
                return io.fanout.sampling.partitioned.SampledEdgeData.empty(weighted, timed);
            }
            return io.fanout.sampling.partitioned.SampledEdgeData.ofHop(frontier, answers.positions(), answers.ends(),
                    answers.neighbors(), eids, weights, times);
        }
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
