package io.fanout.connectors.channel.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A set of (epoch, batch id) keys stored as runs of consecutive keys, so the batches one endpoint
 * delivered (mostly in order) stay a handful of ranges however many there are. Key = epoch in the
 * high 32 bits, batch id in the low 32.
 */
public final class BatchKeySet {
    /** First key of a run -> one past its last key. */
    private final TreeMap<Long, Long> runs = new TreeMap<>();
    private long size;

    public static long key(int epoch, int batchId) {
        return ((long) epoch << 32) | (batchId & 0xffffffffL);
    }

    /** Adds a key; false if it was already present. */
    public boolean add(int epoch, int batchId) {
        long k = key(epoch, batchId);
        Map.Entry<Long, Long> before = runs.floorEntry(k);
        if (before != null && k < before.getValue()) {
            return false;
        }
        long start = k;
        long end = k + 1;
        if (before != null && before.getValue() == k) {
            start = before.getKey();
        }
        Long after = runs.get(end);
        if (after != null) {
            runs.remove(end);
            end = after;
        }
        runs.put(start, end);
        size++;
        return true;
    }

    public boolean contains(int epoch, int batchId) {
        long k = key(epoch, batchId);
        Map.Entry<Long, Long> before = runs.floorEntry(k);
        return before != null && k < before.getValue();
    }

    /** Number of keys. */
    public long size() {
        return size;
    }

    /** The runs as {first, endExclusive} pairs in key order. */
    public List<long[]> runs() {
        List<long[]> out = new ArrayList<>(runs.size());
        runs.forEach((s, e) -> out.add(new long[] {s, e}));
        return out;
    }

    /** Rebuilds a set from its runs (as written by {@link #runs()}); runs must be sorted, disjoint and non-empty. */
    public static BatchKeySet ofRuns(List<long[]> runs) {
        BatchKeySet set = new BatchKeySet();
        long lastEnd = Long.MIN_VALUE;
        for (long[] r : runs) {
            if (r[0] >= r[1] || r[0] < lastEnd) {
                throw new IllegalArgumentException("invalid batch key run [" + r[0] + ", " + r[1] + ") after " + lastEnd);
            }
            set.runs.put(r[0], r[1]);
            set.size += r[1] - r[0];
            lastEnd = r[1];
        }
        return set;
    }

    public BatchKeySet copy() {
        BatchKeySet c = new BatchKeySet();
        c.runs.putAll(runs);
        c.size = size;
        return c;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BatchKeySet b && runs.equals(b.runs);
    }

    @Override
    public int hashCode() {
        return runs.hashCode();
    }

    @Override
    public String toString() {
        return "BatchKeySet{" + size + " keys in " + runs.size() + " runs}";
    }
}
