package io.fanout.flink.partitioned;

/**
 * The edge groups of one edge split that one k-hop lookup subtask owns (a Flink POJO keyed by {@link #nodes}{@code [0]},
 * every node of it in that subtask's key groups): group {@code i} is node {@code nodes[i]}'s run of edges
 * {@code neighbors[ends[i-1] .. ends[i])} ({@code ends[-1]} = 0) whose first edge has order key {@code orders[i]}
 * ({@link EdgeGroup#order}). One record carries many nodes' groups, as a {@link RequestGroup} carries many requests.
 */
public class EdgeGroupBatch {
    public long[] nodes;
    public long[] orders;
    public int[] ends;
    public long[] neighbors;
    /** Weighted ({@code fanout.weight-column}): each neighbour's edge weight, parallel to {@link #neighbors}; else null. */
    public float[] weights;
    /** Temporal ({@code fanout.time-column}): each neighbour's edge time, parallel to {@link #neighbors}; else null. */
    public long[] times;
    /** {@code fanout.with-edge}: each neighbour's input row, parallel to {@link #neighbors}; else null. */
    public long[] eids;

    public EdgeGroupBatch() {}

    public EdgeGroupBatch(long[] nodes, long[] orders, int[] ends, long[] neighbors) {
        this.nodes = nodes;
        this.orders = orders;
        this.ends = ends;
        this.neighbors = neighbors;
    }

    /** One group alone. */
    static EdgeGroupBatch of(EdgeGroup group) {
        return new EdgeGroupBatch(new long[] {group.node}, new long[] {group.order}, new int[] {group.neighbors.length},
                group.neighbors);
    }

    /** Number of groups. */
    public int size() {
        return nodes.length;
    }
}
