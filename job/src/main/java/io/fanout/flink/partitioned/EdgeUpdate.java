package io.fanout.flink.partitioned;

/**
 * One stored edge on its way into a versioned keyed adjacency (a Flink POJO keyed by {@link #node}): a loaded
 * edge (version 0, {@link #order} its file order) or an update's addition or deletion at {@link #version}.
 */
public class EdgeUpdate {
    /** The node whose neighbour list changes. */
    public long node;
    public long neighbor;
    /** 0 for a loaded edge; else the update's version ({@code >= 1}). */
    public long version;
    /** Loaded edge: file index << 40 | its line's byte offset (its list order); update: the update row's sequence number. */
    public long order;
    /** true for a loaded edge or an addition, false for a deletion. */
    public boolean add;
    /** The first stored edge of its update row (an undirected row yields two): the one a missing delete counts. */
    public boolean primary;
    /** Update: "source line N", for the log; null for a loaded edge. */
    public String where;

    public EdgeUpdate() {}

    /** A loaded edge. */
    public static EdgeUpdate loaded(EdgeRecord edge) {
        EdgeUpdate u = new EdgeUpdate();
        u.node = edge.node;
        u.neighbor = edge.neighbor;
        u.order = edge.order;
        u.add = true;
        u.primary = true;
        return u;
    }

    /** An update's stored edge. */
    public static EdgeUpdate of(long node, long neighbor, boolean add, long version, long sequence, boolean primary,
            String where) {
        EdgeUpdate u = new EdgeUpdate();
        u.node = node;
        u.neighbor = neighbor;
        u.add = add;
        u.version = version;
        u.order = sequence;
        u.primary = primary;
        u.where = where;
        return u;
    }
}
