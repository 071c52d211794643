package io.fanout.sampling;

import it.unimi.dsi.fastutil.HashCommon;
import java.nio.LongBuffer;
import java.util.Arrays;

/**
 * A batch's node ids in discovery order and the index from an id to its local index (its position), for a store
 * with no dense id space to index by ({@link KHopSampler} indexes by node instead): the partitioned k-hop hops'
 * inducer and the partitioned PPR batch's slots.
 *
 * <p>Why not a {@code Long2IntOpenHashMap} beside a list of the ids: that keeps every id twice and 16 bytes a slot
 * (8 for the key, 4 for the value, at 3/4 load). Here the table holds only {@code position + 1} (0 = empty) and a
 * probe compares against the id list itself: 4 bytes a slot at at most 1/2 load, so the table a last hop probes
 * once per sampled edge is a third of the size and rebuilding it on resume writes no keys.
 *
 * <p>Not thread-safe; one per batch.
 */
public final class LocalIds {
    /** The most ids a batch holds: twice as many table slots must still be an int array's length. */
    public static final int MAX_IDS = 1 << 29;

    private long[] ids;
    private int size;
    /** Null until the first {@link #add} after {@link #adopt} (a reader that only reads ids by index builds none). */
    private int[] table;
    private int mask;
    /** After {@link #adopt}: ids expected beyond {@link #size} when the table is built. */
    private int expectedMore;

    /** Room for {@code expected} ids without growing. */
    public LocalIds(int expected) {
        ids = new long[Math.max(expected, 4)];
        table = new int[tableSize(expected)];
        mask = table.length - 1;
    }

    private LocalIds(long[] ids, int size) {
        this.ids = ids;
        this.size = size;
    }

    /**
     * The distinct ids {@code ids[0 .. size)} as local indices {@code 0 .. size-1}, the array taken as it is: not
     * copied, and new ids are appended into it while it has room past {@code size} (a full one is copied first). The
     * index is built at the first {@link #add}, sized for {@code size + expectedMore} ids.
     */
    public static LocalIds adopt(long[] ids, int size, int expectedMore) {
        if (size < 0 || size > ids.length) {
            throw new IllegalArgumentException(size + " ids in an array of " + ids.length);
        }
        LocalIds local = new LocalIds(ids, size);
        local.expectedMore = Math.max(0, expectedMore);
        return local;
    }

    /** The local index of {@code id}, added (as the next index) if it is new. */
    public int add(long id) {
        if (table == null) {
            ensureCapacity((int) Math.min(MAX_IDS, (long) size + Math.max(expectedMore, 16)));
        }
        int pos = (int) HashCommon.mix(id) & mask;
        int e;
        while ((e = table[pos]) != 0) {
            if (ids[e - 1] == id) {
                return e - 1;
            }
            pos = (pos + 1) & mask;
        }
        if (size == ids.length || 2 * (size + 1) > table.length) {
            ensureCapacity(size + 1 + (size >> 1));
            return add(id);
        }
        ids[size] = id;
        table[pos] = ++size;
        return size - 1;
    }

    /** Room for {@code capacity} ids in all without growing. */
    public void ensureCapacity(int capacity) {
        int need = tableSize(capacity);
        if (capacity > ids.length) {
            ids = Arrays.copyOf(ids, Math.max(capacity, ids.length + (ids.length >> 1)));
        }
        if (table == null || need > table.length) {
            table = new int[need];
            mask = need - 1;
            for (int i = 0; i < size; i++) {
                int pos = (int) HashCommon.mix(ids[i]) & mask;
                while (table[pos] != 0) {
                    pos = (pos + 1) & mask;
                }
                table[pos] = i + 1;
            }
        }
    }

    public int size() {
        return size;
    }

    /** The id of local index {@code index} ({@code < size()}). */
    public long id(int index) {
        return ids[index];
    }

    /** The ids in {@code [from, to)}, a copy. */
    public long[] range(int from, int to) {
        return Arrays.copyOfRange(ids, from, to);
    }

    /** All ids: the array itself when exactly full, else a copy (appending to a full one moves it first). */
    public long[] toArray() {
        return size == ids.length ? ids : Arrays.copyOf(ids, size);
    }

    /** Puts the ids in index order into {@code out} (one bulk copy). */
    public void putIds(LongBuffer out) {
        out.put(ids, 0, size);
    }

    private static int tableSize(int capacity) {
        if (capacity > MAX_IDS) {
            throw new IllegalStateException("a batch of more than " + MAX_IDS + " distinct nodes (" + capacity
                    + " asked for): lower --batch-size (or the fanouts, or raise --eps: what bounds the nodes a batch"
                    + " meets)");
        }
        // A power of two, at least twice the ids (load <= 1/2: short probe runs, misses end fast).
        return Integer.highestOneBit(Math.max(4, capacity) * 2 - 1) << 1;
    }
}
