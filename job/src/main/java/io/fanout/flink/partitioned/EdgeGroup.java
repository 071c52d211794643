package io.fanout.flink.partitioned;

/**
 * Consecutive stored edges of one node from one edge split, on their way into the keyed adjacency (a Flink POJO
 * keyed by {@link #node}): one network record and one state write carry many edges.
 */
public class EdgeGroup {
    /** The node whose neighbour list the edges belong to. */
    public long node;
    /**
     * The first edge's place in the list (file index << 40 | its line's byte offset). The edges of a group are
     * that edge and the node's next ones in the same split, and no other group of the node falls between them, so sorting
     * a node's groups by {@code order} and concatenating them gives the memory store's list.
     */
    public long order;
    /** Neighbour ids in list order. */
    public long[] neighbors;

    public EdgeGroup() {}

    public EdgeGroup(long node, long order, long[] neighbors) {
        this.node = node;
        this.order = order;
        this.neighbors = neighbors;
    }
}
