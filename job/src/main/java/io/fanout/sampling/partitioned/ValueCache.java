package io.fanout.sampling.partitioned;

import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectLinkedOpenHashMap;

/**
 * A bounded least-recently-used cache of one value per node, bounded by the bytes its caller says each value takes,
 * for a lookup over a fixed graph (the partitioned PPR's fetched lists): a hit saves a keyed-state read, a RocksDB get
 * and the value's deserialisation. Keyed state stays the truth; a restored lookup starts empty. A value over an eighth
 * of the capacity is not cached: one hub would evict many nodes. Not thread-safe; one per lookup subtask.
 *
 * @param <V> the cached value (never changed by its readers)
 */
public final class ValueCache<V> {
    private final long capacityBytes;
    private final Long2ObjectLinkedOpenHashMap<V> values = new Long2ObjectLinkedOpenHashMap<>();
    private final Long2LongOpenHashMap sizes = new Long2LongOpenHashMap();
    private long bytes;
    private long hits;
    private long misses;

    /** @param capacityBytes the most bytes the cached values take, {@code >= 0} (0: nothing is cached) */
    public ValueCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("cache capacity must be >= 0 bytes, got " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
    }

    /**
     * The node's value, or null (a miss, counted); a hit makes it the most recently used once the cache is over half
     * full ({@link #probe}).
     */
    public V get(long node) {
        V value = probe(values, node, bytes, capacityBytes);
        if (value == null) {
            misses++;
        } else {
            hits++;
        }
        return value;
    }

    /**
     * Caches {@code value} of {@code node} (not yet cached), said to take {@code size} bytes, dropping the least
     * recently used values beyond the capacity.
     */
    public void put(long node, V value, long size) {
        if (capacityBytes == 0 || size > capacityBytes / 8 || values.containsKey(node)) {
            return;
        }
        values.putAndMoveToLast(node, value);
        sizes.put(node, size);
        bytes += size;
        while (bytes > capacityBytes) {
            bytes -= sizes.remove(values.firstLongKey());
            values.removeFirst();
        }
    }

    /**
     * The value of {@code node} in a least-recently-used {@code map} holding {@code bytes} of at most
     * {@code capacityBytes} (0: off, always null), made the most recently used only once the map is over half full.
     * Below that nothing is dropped soon, and a plain probe costs about half of one that also relinks the entry and
     * its neighbours (14 against 31-34 ns a hit, 131 k cached heads): a graph whose values all fit pays no order
     * upkeep, and by the first drop every value hit since the map was half full is in recency order. The policy of
     * this cache and of {@link HeadCache}'s heads and later buckets.
     */
    static <T> T probe(Long2ObjectLinkedOpenHashMap<T> map, long node, long bytes, long capacityBytes) {
        if (capacityBytes == 0) {
            return null;
        }
        return bytes > capacityBytes / 2 ? map.getAndMoveToLast(node) : map.get(node);
    }

    public long hits() {
        return hits;
    }

    public long misses() {
        return misses;
    }

    /** Bytes the cached values take now (at most the capacity). */
    public long bytes() {
        return bytes;
    }

    public int size() {
        return values.size();
    }
}
