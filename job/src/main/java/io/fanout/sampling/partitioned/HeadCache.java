package io.fanout.sampling.partitioned;

import it.unimi.dsi.fastutil.longs.Long2ObjectLinkedOpenHashMap;

/**
 * A bounded least-recently-used cache of node heads ({@link NeighborBuckets#head}) for a lookup over a fixed graph:
 * a hit saves a keyed-state read (a RocksDB get and a copy of the value, the largest cost of answering a request).
 * Bounded by bytes, so it does not grow with the graph; the keyed state stays the truth (a restored lookup starts
 * empty). In power-law graphs the frontier of a later hop is dominated by high-degree nodes, so a small cache
 * catches many of a hop's requests.
 *
 * <p>Not thread-safe; one per lookup subtask.
 */
public final class HeadCache {
    /** JVM bytes per cached head besides its values: the array header and the map's entry and links. */
    static final int ENTRY_OVERHEAD = 64;

    private final long capacityBytes;
    private final Long2ObjectLinkedOpenHashMap<long[]> heads = new Long2ObjectLinkedOpenHashMap<>();
    private long bytes;
    private long hits;
    private long misses;

    /** @param capacityBytes the most bytes the cached heads take, {@code >= 0} (0: nothing is cached) */
    public HeadCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("cache capacity must be >= 0 bytes, got " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
    }

    /** The node's head, or null (a miss, counted); a hit makes it the most recently used. */
    public long[] get(long node) {
        long[] head = capacityBytes == 0 ? null : heads.getAndMoveToLast(node);
        if (head == null) {
            misses++;
        } else {
            hits++;
        }
        return head;
    }

    /**
     * Caches {@code head} of {@code node} (not yet cached), dropping the least recently used heads beyond the
     * capacity. A head larger than an eighth of the capacity is not cached: one hub would evict many nodes.
     */
    public void put(long node, long[] head) {
        long size = sizeOf(head);
        if (size > capacityBytes / 8) {
            return;
        }
        heads.putAndMoveToLast(node, head);
        bytes += size;
        while (bytes > capacityBytes) {
            bytes -= sizeOf(heads.removeFirst());
        }
    }

    public long hits() {
        return hits;
    }

    public long misses() {
        return misses;
    }

    /** Bytes the cached heads take now (at most the capacity). */
    public long bytes() {
        return bytes;
    }

    public int size() {
        return heads.size();
    }

    static long sizeOf(long[] head) {
        return ENTRY_OVERHEAD + 8L * head.length;
    }
}
