package io.fanout.sampling.partitioned;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Where a node's neighbours live when its list is cut into fixed-size buckets, so no stored value grows with the
 * node's degree: position {@code p} of the list (the in-memory store's order) is entry {@code p % size} of bucket
 * {@code p / size}; every bucket but the last holds exactly {@code size} neighbours.
 *
 * <p>While edges load, a node's edges of one edge-file part arrive in row order but parts interleave, so each
 * loaded edge is kept under its (part, index within that part) slot ({@link #loadSlot}) and the buckets are cut
 * once, walking the parts in file order ({@link #cut}).
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

    /** The load slot of the {@code index}-th edge (0-based, in row order) a node has in edge-file part {@code part}. */
    public static long loadSlot(int part, int index) {
        return ((long) part << 32) | (index & 0xffffffffL);
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

    /** Reads the neighbour loaded under one slot (e.g. from keyed state); null when nothing is there. */
    @FunctionalInterface
    public interface SlotReader {
        Long read(long slot) throws Exception;
    }

    /** Stores one cut bucket. */
    @FunctionalInterface
    public interface BucketWriter {
        void write(int bucket, long[] neighbors) throws Exception;
    }

    /**
     * Cuts a node's loaded edges into buckets: parts in ascending part order, each part's edges in row order
     * (slots {@code (part, 0..count-1)}), so position {@code p} lands where {@link #bucket}/{@link #offset} say.
     * Holds one bucket at a time. Returns the node's degree.
     *
     * @param parts (part, count) pairs, in any order
     * @throws IllegalStateException when a counted slot is empty (edges of a part arrived out of row order or
     *     were lost)
     */
    public int cut(List<int[]> parts, SlotReader in, BucketWriter out) throws Exception {
        List<int[]> ordered = new ArrayList<>(parts);
        ordered.sort((a, b) -> Integer.compare(a[0], b[0]));
        long total = 0;
        for (int[] p : ordered) {
            total += p[1];
        }
        int degree = Math.toIntExact(total);
        if (degree == 0) {
            return 0;
        }
        int bucket = 0;
        long[] fill = new long[bucketLength(degree, 0)];
        int at = 0;
        for (int[] p : ordered) {
            for (int i = 0; i < p[1]; i++) {
                Long neighbor = in.read(loadSlot(p[0], i));
                if (neighbor == null) {
                    throw new IllegalStateException("edge " + i + " of part " + p[0] + " is missing (" + p[1]
                            + " counted)");
                }
                fill[at++] = neighbor;
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
        long[] out = new long[positions.length];
        if (positions.length == 0) {
            return out;
        }
        int[] buckets = bucketsOf(positions);
        long[][] read = new long[buckets.length][];
        for (int b = 0; b < buckets.length; b++) {
            read[b] = reader.read(buckets[b]);
        }
        for (int i = 0; i < positions.length; i++) {
            int at = Arrays.binarySearch(buckets, bucket(positions[i]));
            out[i] = read[at][offset(positions[i])];
        }
        return out;
    }
}
