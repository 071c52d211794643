package io.fanout.sampling.partitioned;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
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
     * index << 40 | line offset, {@link io.fanout.graph.GraphLoader.EdgeConsumer}) to its neighbour, so ascending keys are
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
        java.util.Iterator<Map.Entry<Long, long[]>> it = inOrder.iterator();
        fill(degree, new java.util.Iterator<>() {

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public long[] next() {
                return it.next().getValue();
            }
        }, out);
        return degree;
    }

    /** Writes the lists of {@code lists} (concatenated: a list of {@code degree}) as buckets 0, 1, ... */
    private void fill(int degree, java.util.Iterator<long[]> lists, BucketWriter out) throws Exception {
        int bucket = 0;
        long[] fill = new long[bucketLength(degree, 0)];
        int at = 0;
        long seen = 0;
        while (lists.hasNext()) {
            long[] neighbors = lists.next();
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
        if (seen != degree) {
            throw new IllegalStateException("the loaded edges changed while they were cut: " + seen + " of " + degree);
        }
    }

    /**
     * A node's loaded groups as its group index records them, sorted into list order: each entry is a group's
     * order key (its first edge's place in the list, {@code io.fanout.flink.partitioned.EdgeGroup#order}) with
     * either the group's neighbours ({@link #inline}: small groups, so most nodes need no other read) or only its
     * size ({@link #reference}: the group is stored apart, read by key). The degree and the list order are known
     * without reading a referenced group.
     */
    public static final class GroupIndex {
        private final long[] orders;
        private final int[] sizes;
        /** Per group its neighbours, or {@code null} for a referenced group. */
        private final long[][] inline;
        private final int degree;
        private final boolean allInline;

        private GroupIndex(long[] orders, int[] sizes, long[][] inline, int degree) {
            this.orders = orders;
            this.sizes = sizes;
            this.inline = inline;
            this.degree = degree;
            boolean all = true;
            for (long[] g : inline) {
                all &= g != null;
            }
            this.allInline = all;
        }

        /** The entry of a group kept in the index: {@code [order key, neighbours...]}. */
        public static long[] inline(long order, long[] neighbors) {
            return inline(order, neighbors, 0, neighbors.length);
        }

        /** As {@link #inline(long, long[])}, for the group {@code neighbors[from, from + size)}. */
        public static long[] inline(long order, long[] neighbors, int from, int size) {
            checkOrder(order);
            long[] entry = new long[1 + size];
            entry[0] = order;
            System.arraycopy(neighbors, from, entry, 1, size);
            return entry;
        }

        /** The entry of a group stored apart: {@code [-1 - order key, size]} (order keys are never negative). */
        public static long[] reference(long order, int size) {
            checkOrder(order);
            return new long[] {-1 - order, size};
        }

        private static void checkOrder(long order) {
            if (order < 0) {
                throw new IllegalArgumentException("order keys are >= 0, got " + order);
            }
        }

        /**
         * From entries in any order. An entry recorded twice (the same group loaded again) counts once; two
         * different entries for one order key are an error.
         */
        public static GroupIndex of(Iterable<long[]> entries) {
            List<long[]> all = new ArrayList<>();
            for (long[] e : entries) {
                if (e.length < 2 || (e[0] < 0 && (e.length != 2 || e[1] < 1))) {
                    throw new IllegalArgumentException("a group index entry is [order key, neighbours...] or"
                            + " [-1 - order key, size >= 1], got " + Arrays.toString(e));
                }
                all.add(e);
            }
            all.sort((x, y) -> Long.compare(orderOf(x), orderOf(y)));
            long[] orders = new long[all.size()];
            int[] sizes = new int[all.size()];
            long[][] inline = new long[all.size()][];
            int n = 0;
            long degree = 0;
            long[] previous = null;
            for (long[] e : all) {
                long order = orderOf(e);
                if (previous != null && orderOf(previous) == order) {
                    if (!Arrays.equals(previous, e)) {
                        throw new IllegalStateException("group " + order + " indexed twice, differently: "
                                + Arrays.toString(previous) + " and " + Arrays.toString(e));
                    }
                    continue;
                }
                previous = e;
                orders[n] = order;
                sizes[n] = e[0] < 0 ? Math.toIntExact(e[1]) : e.length - 1;
                inline[n] = e[0] < 0 ? null : Arrays.copyOfRange(e, 1, e.length);
                degree += sizes[n++];
            }
            return new GroupIndex(Arrays.copyOf(orders, n), Arrays.copyOf(sizes, n), Arrays.copyOf(inline, n),
                    Math.toIntExact(degree));
        }

        private static long orderOf(long[] entry) {
            return entry[0] < 0 ? -1 - entry[0] : entry[0];
        }

        /** The node's degree: the groups' sizes summed. */
        public int degree() {
            return degree;
        }

        /** Whether every group is kept in the index (no other read gives the list). */
        public boolean allInline() {
            return allInline;
        }

        /** The order keys of the groups stored apart, ascending. */
        public long[] references() {
            long[] refs = new long[orders.length];
            int n = 0;
            for (int i = 0; i < orders.length; i++) {
                if (inline[i] == null) {
                    refs[n++] = orders[i];
                }
            }
            return Arrays.copyOf(refs, n);
        }
    }

    /**
     * The {@link #head} of a node whose group index {@code entries} (in any order) are all {@link GroupIndex#inline}
     * and add up to at most {@link #size} neighbours: what {@link #cutIndexed} makes of {@link GroupIndex#of} for it,
     * with nothing to write. Else, or when two entries share an order key, {@code null}: cut it that way instead.
     *
     * <p>Why apart: most nodes are answered from their index, and the general cut copies each group, then the
     * bucket, then the head. On R-MAT 2^18 x 16 (p=2, heap backend) a node's first request took 8-13 µs that way, a
     * quarter to a third of the lookups' gathering time over 20 epochs; here the groups are copied once, into the head.
     */
    public long[] inlineHead(Iterable<long[]> entries) {
        long[][] groups = new long[entries instanceof Collection<?> c ? c.size() : 8][];
        int n = 0;
        long degree = 0;
        for (long[] e : entries) {
            if (e.length < 2 || e[0] < 0) {
                return null; // stored apart, or malformed: GroupIndex.of says which
            }
            if (n == groups.length) {
                groups = Arrays.copyOf(groups, Math.max(8, n * 2));
            }
            groups[n++] = e;
            if ((degree += e.length - 1) > size) {
                return null;
            }
        }
        // Insertion sort by order key: a node has a few groups (one per part buffer it appears in).
        for (int i = 1; i < n; i++) {
            long[] g = groups[i];
            int j = i - 1;
            while (j >= 0 && groups[j][0] > g[0]) {
                groups[j + 1] = groups[j];
                j--;
            }
            groups[j + 1] = g;
        }
        for (int i = 1; i < n; i++) {
            if (groups[i][0] == groups[i - 1][0]) {
                return null; // recorded twice: GroupIndex.of keeps one or fails
            }
        }
        long[] head = new long[1 + (int) degree];
        head[0] = degree;
        for (int i = 0, at = 1; i < n; i++) {
            int length = groups[i].length - 1;
            System.arraycopy(groups[i], 1, head, at, length);
            at += length;
        }
        return head;
    }

    /** Reads one stored-apart group's neighbours by its order key (e.g. from keyed state). */
    @FunctionalInterface
    public interface GroupReader {
        long[] read(long order) throws Exception;
    }

    /**
     * Cuts a node's loaded groups into buckets in list order, reading each referenced group once through
     * {@code reader} in list order (heap: the index, one group and one bucket), writes buckets 1 and up to
     * {@code out} and returns the node's {@link #head} (bucket 0 with the degree in front). A group whose size is not
     * the index's is an error.
     */
    public long[] cutIndexed(GroupIndex index, GroupReader reader, BucketWriter out) throws Exception {
        if (index.degree == 0) {
            return new long[] {0};
        }
        long[][] first = {null};
        fill(index.degree, new java.util.Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < index.orders.length;
            }

            @Override
            public long[] next() {
                long order = index.orders[next];
                long[] group = index.inline[next];
                if (group == null) {
                    try {
                        group = reader.read(order);
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new IllegalStateException("reading loaded group " + order, e);
                    }
                }
                if (group.length != index.sizes[next]) {
                    throw new IllegalStateException("loaded group " + order + " has " + group.length
                            + " neighbours, its index says " + index.sizes[next]);
                }
                next++;
                return group;
            }
        }, (bucket, neighbors) -> {
            if (bucket == 0) {
                first[0] = neighbors;
            } else {
                out.write(bucket, neighbors);
            }
        });
        return head(index.degree, first[0]);
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
