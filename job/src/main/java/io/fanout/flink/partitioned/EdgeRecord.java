package io.fanout.flink.partitioned;

/** One stored edge on its way into the keyed adjacency: a Flink POJO keyed by {@link #node}. */
public class EdgeRecord {
    /** The node whose neighbour list the edge belongs to. */
    public long node;
    public long neighbor;
    /** The edge's place in the list (file index << 40 | its line's byte offset): sorting by it gives the memory store's order. */
    public long order;

    public EdgeRecord() {}

    public EdgeRecord(long node, long neighbor, long order) {
        this.node = node;
        this.neighbor = neighbor;
        this.order = order;
    }
}
