package io.fanout.sampling.partitioned;

import it.unimi.dsi.fastutil.longs.Long2ObjectLinkedOpenHashMap;

/**
 * A bounded least-recently-used cache of node heads ({@link NeighborBuckets#head}) for a lookup over a fixed graph:
 * a hit saves a keyed-state read (a RocksDB get and a copy of the value, the largest cost of answering a request).
 * Bounded by bytes, so it does not grow with the graph; the keyed state stays the truth (a restored lookup starts
 * empty). In power-law graphs the frontier of a later hop is dominated by high-degree nodes, so a small cache
 * catches many of a hop's requests.
 *
 * <p>Beside the heads, up to a quarter as many bytes hold the later buckets (1 and up) of nodes longer than one
 * bucket, by node: such a hub is requested by nearly every batch, and each pick in a later bucket would otherwise
 * read and copy that whole bucket from keyed state. Apart, so hubs' buckets never evict heads (on R-MAT's 100 M
 * edges, where the heads fill the cache, sharing one budget cut head hits from 64 % to 55 %).
 *
 * <p>Not thread-safe; one per lookup subtask.
 */
public final class HeadCache {
    /** JVM bytes per cached head besides its values: the array header and the map's entry and links. */
    static final int ENTRY_OVERHEAD = 64;

    private final long capacityBytes;
    private final long bucketCapacityBytes;
    private final Long2ObjectLinkedOpenHashMap<long[]> heads = new Long2ObjectLinkedOpenHashMap<>();
    /** Node -> its later buckets by index (entry 0 unused: bucket 0 is in the head), filled as they are read. */
    private final Long2ObjectLinkedOpenHashMap<long[][]> later = new Long2ObjectLinkedOpenHashMap<>();
    private long bytes;
    private long bucketBytes;
    private long hits;
    private long misses;
    private long bucketHits;
    private long bucketMisses;

    /**
     * @param capacityBytes the most bytes the cached heads take, {@code >= 0} (0: nothing is cached); later buckets
     *     take at most a quarter of that on top
     */
    public HeadCache(long capacityBytes) {
        this(capacityBytes, Math.max(capacityBytes, 0) / 4);
    }

    /** With at most {@code capacityBytes} of heads and {@code bucketCapacityBytes} of later buckets, both {@code >= 0}. */
    HeadCache(long capacityBytes, long bucketCapacityBytes) {
        if (capacityBytes < 0 || bucketCapacityBytes < 0) {
            throw new IllegalArgumentException("cache capacity must be >= 0 bytes, got "
                    + Math.min(capacityBytes, bucketCapacityBytes));
        }
        this.capacityBytes = capacityBytes;
        this.bucketCapacityBytes = bucketCapacityBytes;
    }

    /**
     * The node's head, or null (a miss, counted); a hit makes it the most recently used once the cache is over half
     * full ({@link ValueCache#probe}).
     */
    public long[] get(long node) {
        long[] head = ValueCache.probe(heads, node, bytes, capacityBytes);
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

    /**
     * Bucket {@code bucket} (>= 1) of {@code node}, or null (a miss, counted); a hit makes the node's buckets recent
     * once their cache is over half full (as {@link #get}).
     */
    public long[] bucket(long node, int bucket) {
        long[][] buckets = ValueCache.probe(later, node, bucketBytes, bucketCapacityBytes);
        long[] values = buckets == null || bucket >= buckets.length ? null : buckets[bucket];
        if (values == null) {
            bucketMisses++;
        } else {
            bucketHits++;
        }
        return values;
    }

    /**
     * Caches bucket {@code bucket} (>= 1, not yet cached) of {@code node}, which has {@code numBuckets}, dropping the
     * least recently used nodes' buckets beyond their capacity. A bucket larger than an eighth of it is not cached.
     */
    public void putBucket(long node, int bucket, int numBuckets, long[] values) {
        long size = sizeOf(values);
        if (size > bucketCapacityBytes / 8) {
            return;
        }
        long[][] buckets = later.getAndMoveToLast(node);
        if (buckets == null) {
            buckets = new long[numBuckets][];
            later.putAndMoveToLast(node, buckets);
            bucketBytes += ENTRY_OVERHEAD + 8L * numBuckets;
        }
        if (buckets[bucket] == null) {
            buckets[bucket] = values;
            bucketBytes += size;
        }
        while (bucketBytes > bucketCapacityBytes && !later.isEmpty()) {
            bucketBytes -= sizeOfBuckets(later.removeFirst());
        }
    }

    private static long sizeOfBuckets(long[][] buckets) {
        long size = ENTRY_OVERHEAD + 8L * buckets.length;
        for (long[] bucket : buckets) {
            size += bucket == null ? 0 : sizeOf(bucket);
        }
        return size;
    }

    public long hits() {
        return hits;
    }

    /** Later-bucket reads answered from the cache. */
    public long bucketHits() {
        return bucketHits;
    }

    /** Later-bucket reads that went to keyed state. */
    public long bucketMisses() {
        return bucketMisses;
    }

    /** Bytes the cached later buckets take now (at most their capacity). */
    public long bucketBytes() {
        return bucketBytes;
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
