package io.fanout.graph;

import java.util.Arrays;

/**
 * The graph's int64 node ids and the dense {@code int} indices every store and sampler uses, both ways.
 *
 * <p>Indices are ranks: index {@code i} is the {@code i}-th smallest id, so the map is monotone (sorting by
 * index sorts by id) and a load is deterministic. When the ids are exactly {@code 0..n-1} the map is the
 * identity and costs nothing; otherwise it keeps the ascending ids (8 bytes per node) and finds an index by
 * binary search. Sparse ids such as 10^12-valued user ids therefore never size an array by the largest id.
 */
public final class NodeIdMap {
    /** Most nodes a store holds: an index is an {@code int} and per-node arrays must fit a Java array. */
    public static final int MAX_NODES = Integer.MAX_VALUE - 9;

    private final int size;
    /** Ascending ids, or null for the identity. */
    private final long[] ids;

    private NodeIdMap(int size, long[] ids) {
        this.size = size;
        this.ids = ids;
    }

    /** The map of the ids {@code 0..size-1}. */
    public static NodeIdMap identity(int size) {
        if (size < 0 || size > MAX_NODES) {
            throw new IllegalArgumentException("node count " + size + " outside 0.." + MAX_NODES);
        }
        return new NodeIdMap(size, null);
    }

    /**
     * The map of the given ids, which must be strictly ascending and non-negative; the identity when they are
     * {@code 0..n-1}. The array is kept, not copied.
     */
    public static NodeIdMap ofAscending(long[] ascendingIds) {
        int n = ascendingIds.length;
        if (n > MAX_NODES) {
            throw new IllegalArgumentException("more than " + MAX_NODES + " nodes");
        }
        for (int i = 1; i < n; i++) {
            if (ascendingIds[i] <= ascendingIds[i - 1]) {
                throw new IllegalArgumentException("ids must be strictly ascending: " + ascendingIds[i - 1] + " then "
                        + ascendingIds[i] + " at position " + i);
            }
        }
        if (n > 0 && ascendingIds[0] < 0) {
            throw new IllegalArgumentException("negative node id " + ascendingIds[0]);
        }
        if (n == 0 || ascendingIds[n - 1] == n - 1) {
            return new NodeIdMap(n, null); // strictly ascending from >= 0 and ending at n-1: exactly 0..n-1
        }
        return new NodeIdMap(n, ascendingIds);
    }

    /** Number of nodes. */
    public int size() {
        return size;
    }

    /** True when every id equals its index (ids {@code 0..size-1}). */
    public boolean isIdentity() {
        return ids == null;
    }

    /** The id of the node at {@code index}. */
    public long id(int index) {
        return ids == null ? index : ids[index];
    }

    /** The index of node {@code id}, or -1 when the graph has no such node. */
    public int indexOf(long id) {
        if (ids == null) {
            return id >= 0 && id < size ? (int) id : -1;
        }
        int at = Arrays.binarySearch(ids, id);
        return at >= 0 ? at : -1;
    }

    /** True when the graph has node {@code id}. */
    public boolean contains(long id) {
        return indexOf(id) >= 0;
    }

    /**
     * The ascending ids for hot loops ({@code id(i) == ids[i]}), or null for the identity; read-only by
     * contract.
     */
    public long[] idsOrNull() {
        return ids;
    }

    /** The largest id, or -1 for an empty map. */
    public long maxId() {
        return size == 0 ? -1 : id(size - 1);
    }

    /** Heap bytes held (0 for the identity beyond the object itself). */
    public long heapBytes() {
        return 24 + (ids == null ? 0 : 16 + 8L * ids.length);
    }

    @Override
    public String toString() {
        return "NodeIdMap{" + size + " nodes, " + (ids == null ? "identity" : "ids " + id(0) + ".." + maxId()) + "}";
    }
}
