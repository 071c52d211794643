package io.fanout.sampling.partitioned;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Where a node's neighbours live when its list is cut into fixed-size buckets, so no stored value grows with the
 * node's degree: position {@code p} of the list (the in-memory store's order) is entry {@code p % size} of bucket
 * {@code p / size}; every bucket but the last holds exactly {@code size} neighbours.
 *
 * <p>While edges load (in any order), each is kept under its order key (file index, row), and the buckets are
 * cut once, in key order ({@link #cut}).
 *
 * <p>A request's picks ({@link NeighborPicks#positions}) are read bucket by bucket ({@link #bucketsOf}), each
 * bucket once, so a hop reads at most {@code min(picks, buckets)} buckets of a hot node, never its whole list,
 * and the answer keeps the draw order: the same neighbours as the in-memory sampler.
 */
public final class NeighborBuckets {
    private final int size;

    /** @param size neighbours per bucket, {@code >= 1} */
    public NeighborBuckets(int size) {
        if (size < 1) {
            throw new IllegalArgumentException("bucket size must be >= 1, got " + size);
        }
        this.size = size;
    }

    /** Neighbours per bucket. */
    public int size() {
        return size;
    }

    /** The bucket holding list position {@code position}. */
    public int bucket(long position) {
        return Math.toIntExact(position / size);
    }

    /** The entry of list position {@code position} within its bucket. */
    public int offset(long position) {
        return (int) (position % size);
    }

    /** Buckets of a node of degree {@code degree}. */
    public int bucketCount(long degree) {
        return Math.toIntExact((degree + size - 1) / size);
    }

    /** Neighbours in bucket {@code bucket} of a node of degree {@code degree}. */
    public int bucketLength(long degree, int bucket) {
        long first = (long) bucket * size;
        if (bucket < 0 || first >= degree) {
            throw new IllegalArgumentException("bucket " + bucket + " of a node of degree " + degree);
        }
        return (int) Math.min(size, degree - first);
    }

    /**
     * The distinct buckets {@code positions} fall in, ascending: the buckets a request reads, each once.
     * {@code positions} may repeat (with replacement) and come in draw order.
     */
    public int[] bucketsOf(int[] positions) {
        int[] buckets = new int[positions.length];
        for (int i = 0; i < positions.length; i++) {
            buckets[i] = bucket(positions[i]);
        }
        Arrays.sort(buckets);
        int distinct = 0;
        for (int i = 0; i < buckets.length; i++) {
            if (i == 0 || buckets[i] != buckets[i - 1]) {
                buckets[distinct++] = buckets[i];
            }
        }
        return Arrays.copyOf(buckets, distinct);
    }

    /** Stores one cut bucket. */
    @FunctionalInterface
    public interface BucketWriter {
        void write(int bucket, long[] neighbors) throws Exception;
    }

    /**
     * Cuts a node's loaded edges into buckets in list order: {@code loaded} maps each edge's order key (file
     * index << 40 | row, {@link io.fanout.graph.GraphLoader.EdgeConsumer}) to its neighbour, so ascending keys are
     * the in-memory store's list. When {@code loaded} iterates in ascending key order (RocksDB map state does,
     * big-endian keys) the cut streams, holding one bucket; otherwise (a heap map) the entries are sorted first.
     * Returns the node's degree.
     */
    public int cut(Iterable<Map.Entry<Long, Long>> loaded, BucketWriter out) throws Exception {
        // Each edge as a group of one: the same cut.
        return cutGroups(() -> new java.util.Iterator<>() {
            private final java.util.Iterator<Map.Entry<Long, Long>> edges = loaded.iterator();

            @Override
            public boolean hasNext() {
                return edges.hasNext();
            }

            @Override
            public Map.Entry<Long, long[]> next() {
                Map.Entry<Long, Long> e = edges.next();
                return Map.entry(e.getKey(), new long[] {e.getValue()});
            }
        }, out);
    }

    /**
     * {@link #cut} for a list loaded as groups: each entry maps a group's order key to its neighbours in list
     * order, the groups of a node never interleave ({@code io.fanout.flink.partitioned.EdgeGroup}), so ascending
     * keys concatenated are the in-memory store's list. Streams (one bucket held) when {@code groups} iterates in
     * ascending key order, as RocksDB map state does; otherwise sorts the groups first. Returns the degree.
     */
    public int cutGroups(Iterable<Map.Entry<Long, long[]>> groups, BucketWriter out) throws Exception {
        long previous = Long.MIN_VALUE;
        boolean ascending = true;
        long count = 0;
        for (Map.Entry<Long, long[]> g : groups) {
            ascending &= g.getKey() > previous;
            previous = g.getKey();
            count += g.getValue().length;
        }
        int degree = Math.toIntExact(count);
        if (degree == 0) {
            return 0;
        }
        Iterable<Map.Entry<Long, long[]>> inOrder = groups;
        if (!ascending) {
            List<Map.Entry<Long, long[]>> sorted = new ArrayList<>();
            groups.forEach(sorted::add);
            sorted.sort(Map.Entry.comparingByKey());
            inOrder = sorted;
        }
        int bucket = 0;
        long[] fill = new long[bucketLength(degree, 0)];
        int at = 0;
        long seen = 0;
        for (Map.Entry<Long, long[]> g : inOrder) {
            long[] neighbors = g.getValue();
            if ((seen += neighbors.length) > degree) {
                throw new IllegalStateException("the loaded edges changed while they were cut");
            }
            for (int i = 0; i < neighbors.length; ) {
                int n = Math.min(neighbors.length - i, fill.length - at);
                System.arraycopy(neighbors, i, fill, at, n);
                i += n;
                at += n;
                if (at == fill.length) {
                    out.write(bucket++, fill);
                    at = 0;
                    fill = bucket < bucketCount(degree) ? new long[bucketLength(degree, bucket)] : null;
                }
            }
        }
        return degree;
    }

    /** Reads one bucket's neighbours (e.g. from keyed state). */
    @FunctionalInterface
    public interface BucketReader {
        long[] read(int bucket) throws Exception;
    }

    /**
     * The neighbours at {@code positions}, in the order given, reading each bucket they fall in once through
     * {@code reader}.
     */
    public long[] gather(int[] positions, BucketReader reader) throws Exception {
        return gather(positions, null, reader);
    }

    /**
     * A node's head: its degree, then bucket 0's neighbours ({@code [degree, n_0 .. n_min(degree,size)-1]}), so one
     * read gives a request the degree its picks need and, for a node of degree {@code <= size} (most nodes), every
     * neighbour too. Bounded by {@code size + 1} values like any bucket.
     */
    public long[] head(int degree, long[] bucket0) {
        long[] head = new long[1 + bucket0.length];
        head[0] = degree;
        System.arraycopy(bucket0, 0, head, 1, bucket0.length);
        return head;
    }

    /** The degree a {@link #head} records. */
    public static int degreeOf(long[] head) {
        return Math.toIntExact(head[0]);
    }

    /**
     * {@link #gather(int[], BucketReader)} for a node whose bucket 0 is in its {@link #head}: {@code later} reads
     * buckets 1 and up, only when a pick falls there.
     */
    public long[] gatherFromHead(int[] positions, long[] head, BucketReader later) throws Exception {
        if (degreeOf(head) <= size) { // one bucket: no bucket bookkeeping
            long[] out = new long[positions.length];
            for (int i = 0; i < positions.length; i++) {
                out[i] = head[1 + positions[i]];
            }
            return out;
        }
        return gather(positions, head, later);
    }

    private long[] gather(int[] positions, long[] head, BucketReader reader) throws Exception {
        long[] out = new long[positions.length];
        if (positions.length == 0) {
            return out;
        }
        int[] buckets = bucketsOf(positions);
        long[][] read = new long[buckets.length][];
        int[] shift = new int[buckets.length];
        for (int b = 0; b < buckets.length; b++) {
            if (head != null && buckets[b] == 0) {
                read[b] = head;
                shift[b] = 1;
            } else {
                read[b] = reader.read(buckets[b]);
            }
        }
        for (int i = 0; i < positions.length; i++) {
            int at = Arrays.binarySearch(buckets, bucket(positions[i]));
            out[i] = read[at][offset(positions[i]) + shift[at]];
        }
        return out;
    }
}
