package io.fanout.graph;

import it.unimi.dsi.fastutil.longs.LongArrays;
import java.util.Arrays;

/**
 * The distinct node ids of a stream of id mentions, kept without the edges: a bit set while the ids are dense
 * enough, sorted de-duplicated runs once they are not. What the submitting client holds to validate seeds
 * instead of the graph (a bit per id up to {@link #MAX_BITSET_IDS}, else 8 bytes per distinct node).
 */
public final class NodeIdSet {
    /** Largest id the bit set covers (64 MiB of bits); a larger id switches to sorted runs. */
    static final long MAX_BITSET_IDS = 1L << 29;
    private static final int BUFFER = 1 << 20;

    private long[] bits = new long[1024];
    private boolean sparse;
    /** Sorted distinct ids so far (sparse mode), and a buffer of unsorted mentions waiting to be merged. */
    private long[] sorted = new long[0];
    private long[] buffer;
    private int buffered;
    private long range;

    /** Adds one mentioned id (>= 0). */
    public void add(long id) {
        if (!sparse) {
            if (id < MAX_BITSET_IDS) {
                int word = (int) (id >>> 6);
                if (word >= bits.length) {
                    bits = Arrays.copyOf(bits, Math.max(word + 1, bits.length * 2));
                }
                bits[word] |= 1L << id;
                return;
            }
            toSparse();
        }
        if (buffered == buffer.length) {
            merge();
        }
        buffer[buffered++] = id;
    }

    /** Adds the ids {@code 0..count-1} (a declared {@code num_nodes}). */
    public void addRange(long count) {
        range = Math.max(range, count);
    }

    private void toSparse() {
        sparse = true;
        buffer = new long[BUFFER];
        sorted = IdBits.ascending(bits, IdBits.count(bits));
        bits = null;
    }

    /** Sorts the buffer and merges it into the sorted distinct ids. */
    private void merge() {
        LongArrays.radixSort(buffer, 0, buffered);
        long[] out = new long[sorted.length + buffered];
        int i = 0;
        int j = 0;
        int k = 0;
        while (i < sorted.length || j < buffered) {
            long next = j >= buffered || (i < sorted.length && sorted[i] <= buffer[j]) ? sorted[i++] : buffer[j++];
            if (k == 0 || out[k - 1] != next) {
                out[k++] = next;
            }
        }
        sorted = Arrays.copyOf(out, k);
        buffered = 0;
    }

    /** The map of every id added (and of the declared range). */
    public NodeIdMap toMap() {
        if (sparse || range > MAX_BITSET_IDS) {
            if (sparse) {
                merge();
            } else {
                toSparse();
            }
            return new NodeIdCollector().addRange(range).add(sorted, sorted.length).build();
        }
        long words = (range + 63) >>> 6;
        if (words > bits.length) {
            bits = Arrays.copyOf(bits, (int) words);
        }
        for (long i = 0; i < range; i += 64) {
            long left = range - i;
            bits[(int) (i >>> 6)] |= left >= 64 ? -1L : (1L << left) - 1;
        }
        long count = 0;
        int top = -1;
        for (int w = 0; w < bits.length; w++) {
            count += Long.bitCount(bits[w]);
            if (bits[w] != 0) {
                top = w;
            }
        }
        long maxId = top < 0 ? -1 : ((long) top << 6) + 63 - Long.numberOfLeadingZeros(bits[top]);
        if (count == maxId + 1) {
            return NodeIdMap.identity((int) count);
        }
        toSparse();
        return NodeIdMap.ofAscending(sorted);
    }

    /** Heap bytes held now (for logs and tests). */
    public long heapBytes() {
        return sparse ? 8L * (sorted.length + buffer.length) : 8L * bits.length;
    }
}
