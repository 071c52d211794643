package io.fanout.graph;

import java.util.Objects;

/**
 * Walker's alias tables over every node's weighted neighbour list, built once at load: a draw with replacement
 * proportional to the edge weights costs one random number and two array reads, whatever the degree.
 *
 * <p>For node {@code v} with neighbour positions {@code start..start+d} of {@link CsrGraph#targets()}, a draw
 * picks a column {@code c} uniformly in {@code [0, d)}, keeps position {@code start + c} with probability
 * {@code q[c]} and takes {@code alias[start + c]} otherwise (Vose's construction, in double precision). {@code q}
 * is stored as an unsigned 32-bit threshold compared with 32 random bits, so each position's probability is
 * {@code w / sum} to within {@code d * 2^-32}; a column whose {@code q} rounds to 1 is its own alias, so the
 * rounding never moves mass between neighbours that should keep it, and a zero weight is never drawn.
 *
 * <p>Heap: 8 bytes per stored edge (an {@code int} threshold and an {@code int} alias position), on top of the
 * 4-byte weights the CSR keeps.
 */
public final class AliasTable {
    private static final double TWO_POW_32 = 4294967296.0;

    private final int[] threshold;
    private final int[] alias;

    private AliasTable(int[] threshold, int[] alias) {
        this.threshold = threshold;
        this.alias = alias;
    }

    /**
     * Builds the tables of every node from {@code graph}'s weights.
     *
     * @throws IllegalArgumentException if the graph has no weights, or a node with neighbours has a negative,
     *     non-finite or all-zero weight (the loader reports those with their file and line first)
     */
    public static AliasTable build(CsrGraph graph) {
        float[] weights = Objects.requireNonNull(graph.weights(), "the graph has no weights");
        int m = graph.numEdges();
        int[] threshold = new int[m];
        int[] alias = new int[m];
        int maxDegree = 0;
        for (int v = 0; v < graph.numNodes(); v++) {
            maxDegree = Math.max(maxDegree, graph.degree(v));
        }
        double[] q = new double[maxDegree];
        int[] small = new int[maxDegree];
        int[] large = new int[maxDegree];
        for (int v = 0; v < graph.numNodes(); v++) {
            int d = graph.degree(v);
            if (d > 0) {
                buildNode(weights, graph.start(v), d, threshold, alias, q, small, large, "node index ", v);
            }
        }
        return new AliasTable(threshold, alias);
    }

    /**
     * The tables of one neighbour list alone, its weights {@code weights[0..d)} at positions {@code 0..d-1}: the same
     * thresholds and aliases as {@link #build} gives that node, for a store that holds lists per node.
     *
     * @param node the list's node id, named in an error
     * @throws IllegalArgumentException for a negative or non-finite weight, or when every weight is 0
     */
    public static AliasTable ofList(float[] weights, int d, long node) {
        int[] threshold = new int[d];
        int[] alias = new int[d];
        if (d > 0) {
            buildNode(weights, 0, d, threshold, alias, new double[d], new int[d], new int[d], "node ", node);
        }
        return new AliasTable(threshold, alias);
    }

    /** Vose's construction for the list at {@code start} of {@code d > 0} weights, into the tables. */
    private static void buildNode(float[] weights, int start, int d, int[] threshold, int[] alias, double[] q,
            int[] small, int[] large, String nodeWord, long node) {
        double sum = 0;
        for (int c = 0; c < d; c++) {
            float w = weights[start + c];
            if (!(w >= 0) || Float.isInfinite(w)) {
                throw new IllegalArgumentException(nodeWord + node + ": weight " + w + " is not finite and >= 0");
            }
            sum += w;
        }
        if (!(sum > 0)) {
            throw new IllegalArgumentException(nodeWord + node + ": every weight of its " + d + " edges is 0");
        }
        int ns = 0;
        int nl = 0;
        for (int c = 0; c < d; c++) {
            q[c] = weights[start + c] * (d / sum);
            if (q[c] < 1) {
                small[ns++] = c;
            } else {
                large[nl++] = c;
            }
        }
        // Vose: pair each under-full column with an over-full one, which gives it the missing mass.
        while (ns > 0 && nl > 0) {
            int s = small[--ns];
            int l = large[nl - 1];
            set(threshold, alias, start, s, q[s], l);
            q[l] = (q[l] + q[s]) - 1;
            if (q[l] < 1) {
                nl--;
                small[ns++] = l;
            }
        }
        // What is left is full up to rounding: such a column always keeps itself.
        while (nl > 0) {
            int l = large[--nl];
            set(threshold, alias, start, l, 1.0, l);
        }
        while (ns > 0) {
            int s = small[--ns];
            set(threshold, alias, start, s, 1.0, s);
        }
    }

    private static void set(int[] threshold, int[] alias, int start, int column, double q, int other) {
        if (q >= 1) {
            threshold[start + column] = -1; // 0xFFFFFFFF, and the alias is the column itself
            alias[start + column] = start + column;
            return;
        }
        threshold[start + column] = (int) (long) Math.floor(q * TWO_POW_32);
        alias[start + column] = start + other;
    }

    /**
     * Finishes a draw whose uniform column is CSR position {@code at}: keeps it when the 32 uniform bits
     * {@code bits} (unsigned) fall below its threshold, else takes its alias. Returns a CSR position.
     */
    public int resolve(int at, int bits) {
        return Integer.compareUnsigned(bits, threshold[at]) < 0 ? at : alias[at];
    }

    /**
     * The exact probability that a draw among the {@code d} positions from {@code start} returns
     * {@code position}, as the tables encode it (for tests: it should be {@code w / sum} to within
     * {@code d * 2^-32}).
     */
    double probability(int start, int d, int position) {
        double p = 0;
        for (int at = start; at < start + d; at++) {
            double keep = Integer.toUnsignedLong(threshold[at]) / TWO_POW_32;
            if (threshold[at] == -1) {
                keep = 1; // its own alias: kept whatever the bits
            }
            p += (at == position ? keep : 0) + (alias[at] == position ? 1 - keep : 0);
        }
        return p / d;
    }

    /** Heap bytes of the two arrays (headers included). */
    public long heapBytes() {
        return 2 * (16 + 4L * threshold.length);
    }
}
