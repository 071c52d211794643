package io.fanout.flink.partitioned;

/**
 * One stored edge on its way into a PPR fetch operator, with its neighbour's degree once known: a Flink POJO keyed by
 * {@link #node} (into the fetch operators) or by {@link #neighbor} (into {@link NeighborDegreeOperator}).
 */
public class PprEdge {
    /** The node whose list the edge belongs to. */
    public long node;
    public long neighbor;
    /** The edge's load group ({@link EdgeGroup#order}): sorting by it, then {@link #position}, gives the list order. */
    public long order;
    /** The edge's place in its load group. */
    public int position;
    /** The neighbour's degree (the push's queue threshold needs it before the neighbour's own list is fetched). */
    public int neighborDegree;

    public PprEdge() {}

    public PprEdge(long node, long neighbor, long order, int position, int neighborDegree) {
        this.node = node;
        this.neighbor = neighbor;
        this.order = order;
        this.position = position;
        this.neighborDegree = neighborDegree;
    }
}
