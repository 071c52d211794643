package io.fanout.sampling.partitioned;

import java.util.Arrays;

/**
 * The updates to one node's neighbour list since it was loaded, versioned, so the list can be read as it was at
 * any version {@code v}: the loaded (base) list, in file order, without the base positions deleted at or before
 * {@code v}, then the additions made at or before {@code v} and not deleted by then, in the order they were made
 * (version order). A deletion removes the earliest live copy in that list order. The base list stays in its
 * {@link NeighborBuckets} untouched, so a read at {@code v} still reads only the buckets its picks fall in.
 *
 * <p>A Flink POJO (public arrays) kept whole in one keyed-state value per node: it grows with the node's updates,
 * not its degree. Dead entries are kept (a batch started earlier may still read an older version).
 */
public final class NeighborDelta {
    /** Version meaning "not deleted". */
    public static final long LIVE = Long.MAX_VALUE;

    /** Added neighbours in the order they were added, with the version each was added and deleted at. */
    public long[] addedNeighbors = new long[0];
    public long[] addedAt = new long[0];
    public long[] addedDeletedAt = new long[0];
    /** Deleted base positions in the order they were deleted, with the version of each deletion. */
    public int[] deletedBase = new int[0];
    public long[] deletedBaseAt = new long[0];

    public NeighborDelta() {}

    /** Finds a neighbour in the base list. */
    @FunctionalInterface
    public interface BaseSearch {
        /** The first base position holding {@code neighbor} that {@code skip} does not reject, or -1. */
        int find(long neighbor, java.util.function.IntPredicate skip) throws Exception;
    }

    /** Appends {@code neighbor} at {@code version} (versions arrive non-decreasing). */
    public void add(long neighbor, long version) {
        int n = addedNeighbors.length;
        addedNeighbors = Arrays.copyOf(addedNeighbors, n + 1);
        addedAt = Arrays.copyOf(addedAt, n + 1);
        addedDeletedAt = Arrays.copyOf(addedDeletedAt, n + 1);
        addedNeighbors[n] = neighbor;
        addedAt[n] = version;
        addedDeletedAt[n] = LIVE;
    }

    /**
     * Deletes the earliest live copy of {@code neighbor} in list order (the base list first) at {@code version}.
     * Returns false, changing nothing, when no copy is live: a delete of a missing edge.
     */
    public boolean delete(long neighbor, long version, BaseSearch base) throws Exception {
        int position = base.find(neighbor, this::baseDeleted);
        if (position >= 0) {
            int n = deletedBase.length;
            deletedBase = Arrays.copyOf(deletedBase, n + 1);
            deletedBaseAt = Arrays.copyOf(deletedBaseAt, n + 1);
            deletedBase[n] = position;
            deletedBaseAt[n] = version;
            return true;
        }
        for (int i = 0; i < addedNeighbors.length; i++) {
            if (addedNeighbors[i] == neighbor && addedDeletedAt[i] == LIVE) {
                addedDeletedAt[i] = version;
                return true;
            }
        }
        return false;
    }

    /** Whether base position {@code position} has been deleted (at any version). */
    public boolean baseDeleted(int position) {
        for (int p : deletedBase) {
            if (p == position) {
                return true;
            }
        }
        return false;
    }

    /** The base positions deleted at or before {@code version}, ascending. */
    private int[] deletedBy(long version) {
        int[] out = new int[deletedBase.length];
        int n = 0;
        for (int i = 0; i < deletedBase.length; i++) {
            if (deletedBaseAt[i] <= version) {
                out[n++] = deletedBase[i];
            }
        }
        out = Arrays.copyOf(out, n);
        Arrays.sort(out);
        return out;
    }

    /** The additions live at {@code version}, in list order. */
    private long[] addedBy(long version) {
        long[] out = new long[addedNeighbors.length];
        int n = 0;
        for (int i = 0; i < addedNeighbors.length; i++) {
            if (addedAt[i] <= version && addedDeletedAt[i] > version) {
                out[n++] = addedNeighbors[i];
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** The node's degree at {@code version}, its base list having {@code baseDegree} neighbours. */
    public int degreeAt(int baseDegree, long version) {
        return baseDegree - deletedBy(version).length + addedBy(version).length;
    }

    /**
     * The neighbours at list positions {@code positions} (of the list at {@code version}, in the order given),
     * reading the base list's buckets through {@code layout} and {@code reader}, each once.
     */
    public long[] gather(int[] positions, int baseDegree, long version, NeighborBuckets layout,
            NeighborBuckets.BucketReader reader) throws Exception {
        int[] deleted = deletedBy(version);
        long[] added = addedBy(version);
        int liveBase = baseDegree - deleted.length;
        int[] base = new int[positions.length];
        int baseCount = 0;
        for (int position : positions) {
            if (position < liveBase) {
                base[baseCount++] = basePosition(position, deleted);
            }
        }
        long[] fromBase = layout.gather(Arrays.copyOf(base, baseCount), reader);
        long[] out = new long[positions.length];
        int b = 0;
        for (int i = 0; i < positions.length; i++) {
            out[i] = positions[i] < liveBase ? fromBase[b++] : added[positions[i] - liveBase];
        }
        return out;
    }

    /** The base position of the {@code live}-th base neighbour not in {@code deleted} (ascending). */
    static int basePosition(int live, int[] deleted) {
        int position = live;
        for (int d : deleted) {
            if (d <= position) {
                position++;
            } else {
                break;
            }
        }
        return position;
    }
}
