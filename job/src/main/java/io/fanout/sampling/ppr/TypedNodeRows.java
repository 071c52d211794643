package io.fanout.sampling.ppr;

import io.fanout.random.SplitMix64;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/**
 * One node's rows of a typed graph as typed PPR reads them when lists are fetched ({@link TypedPprBatchPush}): per
 * edge type (name order) the node's true degree in the sampling direction, the neighbours a push reads (the whole row
 * in list order, or the fixed seeded sample of {@code num_neighbors_per_hop} positions {@link TypedPprSampler}
 * reads, in list order), those positions in the row, and each read neighbour's true degree along every edge type
 * (a channel's queue threshold sums them over the channel's edge types before the neighbour's own rows come).
 * Edge types not leaving the node's type have degree 0 and empty rows.
 */
public final class TypedNodeRows {
    private final int[] degree;
    private final long[][] neighbors;
    private final int[][] positions;
    /** Per edge type e: for read neighbour j, its degree along edge type f at {@code [j * E + f]}. */
    private final int[][] neighborDegrees;

    public TypedNodeRows(int[] degree, long[][] neighbors, int[][] positions, int[][] neighborDegrees) {
        int e = degree.length;
        if (neighbors.length != e || positions.length != e || neighborDegrees.length != e) {
            throw new IllegalArgumentException("rows of " + e + " edge types with " + neighbors.length + " rows, "
                    + positions.length + " position rows and " + neighborDegrees.length + " degree rows");
        }
        for (int i = 0; i < e; i++) {
            Objects.requireNonNull(neighbors[i], "neighbors");
            int n = neighbors[i].length;
            if (positions[i].length != n || neighborDegrees[i].length != n * e || degree[i] < n
                    || (degree[i] > 0 && n == 0)) {
                throw new IllegalArgumentException("edge type " + i + ": degree " + degree[i] + ", " + n
                        + " read neighbours, " + positions[i].length + " positions, " + neighborDegrees[i].length
                        + " neighbour degrees");
            }
        }
        this.degree = degree;
        this.neighbors = neighbors;
        this.positions = positions;
        this.neighborDegrees = neighborDegrees;
    }

    public int numEdgeTypes() {
        return degree.length;
    }

    /** True degree along edge type e. */
    public int degree(int e) {
        return degree[e];
    }

    /** Read neighbours along edge type e (node keys, read-only). */
    public long[] neighbors(int e) {
        return neighbors[e];
    }

    /** Positions of the read neighbours in the node's whole row of edge type e (read-only). */
    public int[] positions(int e) {
        return positions[e];
    }

    /** Degree along edge type f of the j-th read neighbour along edge type e. */
    public int neighborDegree(int e, int j, int f) {
        return neighborDegrees[e][j * degree.length + f];
    }

    /**
     * The list channel pushes read: the rows of the channel's edge types (ascending) one after the other, degrees
     * summed over them, as {@link TypedPprSampler} lays out a channel's walk graph.
     */
    FetchedList channelList(int[] members) {
        int d = 0;
        int n = 0;
        for (int m : members) {
            d += degree[m];
            n += neighbors[m].length;
        }
        long[] read = new long[n];
        int[] readDegrees = new int[n];
        int at = 0;
        for (int m : members) {
            long[] row = neighbors[m];
            for (int j = 0; j < row.length; j++) {
                read[at] = row[j];
                int sum = 0;
                for (int f : members) {
                    sum += neighborDegree(m, j, f);
                }
                readDegrees[at++] = sum;
            }
        }
        return new FetchedList(d, read, readDegrees);
    }

    /**
     * The positions of a row of {@code d} neighbours a push reads: all of them, or when {@code d > k > 0} the fixed
     * sample of k drawn from the SplitMix64 stream of (job seed, PPR stream, edge type name's hash, node id), in list
     * order. {@link TypedPprSampler} reads these positions; a partitioned store must cut rows with this very call.
     */
    public static int[] readPositions(String edgeTypeName, long nodeId, int d, int k, long seed) {
        if (k < 1 || d <= k) {
            int[] all = new int[d];
            for (int i = 0; i < d; i++) {
                all[i] = i;
            }
            return all;
        }
        SplitMix64 rng = new SplitMix64(SplitMix64.seed(seed, ForwardPush.PPR_STREAM, edgeTypeName.hashCode(), nodeId,
                0));
        int[] taken = new int[d];
        int[] chosen = new int[k];
        int n = 0;
        // Floyd's sample: one draw per chosen position.
        for (int j = d - k; j < d; j++) {
            int r = rng.nextInt(j + 1);
            if (taken[r] != 0) {
                r = j;
            }
            taken[r] = 1;
            chosen[n++] = r;
        }
        Arrays.sort(chosen);
        return chosen;
    }
    /** The rows of a node without edges of any of {@code numEdgeTypes} types (a dangling node). */
    public static TypedNodeRows empty(int numEdgeTypes) {
        long[][] nb = new long[numEdgeTypes][0];
        int[][] pos = new int[numEdgeTypes][0];
        int[][] nd = new int[numEdgeTypes][0];
        return new TypedNodeRows(new int[numEdgeTypes], nb, pos, nd);
    }

    /** The rows as bytes, for keyed state and fetch answers ({@link #fromBytes}). */
    public byte[] toBytes() {
        int e = degree.length;
        ByteBuffer out = ByteBuffer.allocate(Math.toIntExact(4 + bodyBytes()));
        out.putInt(e);
        write(out);
        return out.array();
    }

    /** The rows {@link #toBytes} wrote. */
    public static TypedNodeRows fromBytes(byte[] bytes) {
        ByteBuffer in = ByteBuffer.wrap(bytes);
        TypedNodeRows rows = read(in, in.getInt());
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after typed node rows");
        }
        return rows;
    }

    /** Bytes {@link #write} takes. */
    long bodyBytes() {
        int e = degree.length;
        long size = 0;
        for (int m = 0; m < e; m++) {
            size += 8 + (12 + 4L * e) * neighbors[m].length;
        }
        return size;
    }

    /** Per edge type: degree, row length, then each neighbour's key, CSR position and degrees along every type. */
    void write(ByteBuffer out) {
        int e = degree.length;
        for (int m = 0; m < e; m++) {
            out.putInt(degree[m]).putInt(neighbors[m].length);
            for (int j = 0; j < neighbors[m].length; j++) {
                out.putLong(neighbors[m][j]).putInt(positions[m][j]);
                for (int f = 0; f < e; f++) {
                    out.putInt(neighborDegrees[m][j * e + f]);
                }
            }
        }
    }

    /** The rows of {@code e} edge types that {@link #write} wrote at {@code in}'s position. */
    static TypedNodeRows read(ByteBuffer in, int e) {
        int[] degree = new int[e];
        long[][] nb = new long[e][];
        int[][] pos = new int[e][];
        int[][] nd = new int[e][];
        for (int m = 0; m < e; m++) {
            degree[m] = in.getInt();
            int n = in.getInt();
            nb[m] = new long[n];
            pos[m] = new int[n];
            nd[m] = new int[n * e];
            for (int j = 0; j < n; j++) {
                nb[m][j] = in.getLong();
                pos[m][j] = in.getInt();
                for (int f = 0; f < e; f++) {
                    nd[m][j * e + f] = in.getInt();
                }
            }
        }
        return new TypedNodeRows(degree, nb, pos, nd);
    }
}
