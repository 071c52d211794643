package io.fanout.flink.partitioned;

/** One stored edge with its neighbour's degree, on its way into a PPR fetch operator: a Flink POJO keyed by {@link #node}. */
public class PprEdge {
    /** The node whose list the edge belongs to. */
    public long node;
    public long neighbor;
    /** The edge's place in the list ({@link EdgeRecord#order}). */
    public long order;
    /** The neighbour's degree (the push's queue threshold needs it before the neighbour's own list is fetched). */
    public int neighborDegree;

    public PprEdge() {}

    public PprEdge(long node, long neighbor, long order, int neighborDegree) {
        this.node = node;
        this.neighbor = neighbor;
        this.order = order;
        this.neighborDegree = neighborDegree;
    }
}
