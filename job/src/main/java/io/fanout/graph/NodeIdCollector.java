package io.fanout.graph;

import it.unimi.dsi.fastutil.longs.LongArrays;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the node ids a graph's files mention (edge endpoints, node-file rows, a declared {@code num_nodes})
 * and builds their {@link NodeIdMap}.
 *
 * <p>Dense ids (the common case) are marked in a bit set no larger than the ids themselves, which also tells
 * whether the map is the identity; ids too sparse for that are sorted and de-duplicated instead, so the cost
 * follows the number of ids, never the value of the largest one.
 */
public final class NodeIdCollector {
    private final List<long[]> arrays = new ArrayList<>();
    private final List<Integer> lengths = new ArrayList<>();
    private long total;
    private long maxId = -1;
    private long range;

    /** Adds the first {@code length} entries of {@code ids} (kept, not copied, until {@link #build}). */
    public NodeIdCollector add(long[] ids, int length) {
        long max = maxId;
        for (int i = 0; i < length; i++) {
            long id = ids[i];
            if (id < 0) {
                throw new IllegalArgumentException("negative node id " + id);
            }
            if (id > max) {
                max = id;
            }
        }
        maxId = max;
        arrays.add(ids);
        lengths.add(length);
        total += length;
        return this;
    }

    /** Adds the ids {@code 0..count-1} (a declared {@code num_nodes}: ids never mentioned are isolated nodes). */
    public NodeIdCollector addRange(long count) {
        if (count > NodeIdMap.MAX_NODES) {
            throw new IllegalArgumentException("num_nodes=" + count + " is more than the " + NodeIdMap.MAX_NODES
                    + " nodes a store holds");
        }
        range = Math.max(range, count);
        maxId = Math.max(maxId, count - 1);
        return this;
    }

    /** The map of every id added. */
    public NodeIdMap build() {
        if (maxId < NodeIdMap.MAX_NODES && maxId + 1 <= 64 * (total + range) + 4096) {
            return fromBitSet();
        }
        return fromSorted();
    }

    private NodeIdMap fromBitSet() {
        int n = (int) (maxId + 1);
        long[] words = new long[(n + 63) >>> 6];
        for (long i = 0; i < range; i += 64) { // whole words for the declared range
            int w = (int) (i >>> 6);
            long left = range - i;
            words[w] = left >= 64 ? -1L : (1L << left) - 1;
        }
        for (int a = 0; a < arrays.size(); a++) {
            long[] ids = arrays.get(a);
            for (int i = 0, len = lengths.get(a); i < len; i++) {
                long id = ids[i];
                words[(int) (id >>> 6)] |= 1L << id;
            }
        }
        long count = IdBits.count(words);
        if (count == n) {
            return NodeIdMap.identity(n);
        }
        return NodeIdMap.ofAscending(IdBits.ascending(words, count));
    }

    private NodeIdMap fromSorted() {
        long all = total + range;
        if (all > Integer.MAX_VALUE - 8) {
            // More mentions than one array holds: sort each part and merge would be the next step.
            throw new IllegalArgumentException(all + " node id mentions are more than one sort pass holds ("
                    + (Integer.MAX_VALUE - 8) + ")");
        }
        long[] ids = new long[(int) all];
        int k = 0;
        for (long i = 0; i < range; i++) {
            ids[k++] = i;
        }
        for (int a = 0; a < arrays.size(); a++) {
            System.arraycopy(arrays.get(a), 0, ids, k, lengths.get(a));
            k += lengths.get(a);
        }
        LongArrays.radixSort(ids);
        int unique = 0;
        for (int i = 0; i < ids.length; i++) {
            if (i == 0 || ids[i] != ids[i - 1]) {
                ids[unique++] = ids[i];
            }
        }
        if (unique > NodeIdMap.MAX_NODES) {
            throw new IllegalArgumentException(unique + " distinct node ids are more than the " + NodeIdMap.MAX_NODES
                    + " nodes a store holds");
        }
        return NodeIdMap.ofAscending(java.util.Arrays.copyOf(ids, unique));
    }
}
