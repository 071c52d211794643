package io.fanout.sampling.link;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.random.SplitMix64;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntToLongFunction;

/**
 * Strict, reproducible negative edges of one edge type: node pairs that are not edges of that type (GLT's strict
 * negative sampler; its triplet mode is not strict, this one is). A batch's negatives come from the stream
 * {@code SplitMix64.seed(seed, epoch, batchId, NEGATIVES)}, so they depend on the batch only, never on
 * parallelism. A candidate that is an edge is drawn again, up to {@link #MAX_TRIES} times per negative; after that
 * (a source linked to nearly every destination, a nearly complete graph) the negative is drawn exactly, uniformly
 * among the pairs that are not edges, as the retries would have: only where there is no such pair does the batch fail.
 */
public final class NegativeSampler {
    /** Draws per negative before the exact draw among the non-edges (a source linked to nearly every destination). */
    public static final int MAX_TRIES = 1000;
    /** Stream coordinate of negatives, apart from every k-hop stream ({@code "negatives"} in ASCII). */
    static final long NEGATIVES = 0x6e65676174697665L;

    /** The edge type's adjacency, or null when {@link #lists} answers instead. */
    private final CsrGraph csr;
    /** A store's answers per source (triplets only), or null. */
    private final SourceLists lists;
    private final int base;
    private final boolean keyIsSource;
    private final int numSrc;
    private final int numDst;
    private final String what;
    /** Names a source in errors by its id; null: by its index. */
    private final IntToLongFunction sourceId;
    private final SplitMix64 rng = new SplitMix64(0);
    /** The last source whose destinations an exact triplet draw listed, and those destinations. */
    private int linkedSource = -1;
    private int[] linkedOfSource;
    /** For exact binary draws, made at the first: every source's destinations, and the non-edges before each source. */
    private int[][] linkedBySource;
    private long[] freeBefore;

    /**
     * @param adjacency the link edge type's adjacency (either direction)
     * @param numSrc nodes of its source type
     * @param numDst nodes of its destination type
     */
    public NegativeSampler(TypedAdjacency adjacency, int numSrc, int numDst) {
        this(adjacency, numSrc, numDst, null);
    }

    /** As above, errors naming a source by its id ({@code sourceId} of its index) rather than its index. */
    public NegativeSampler(TypedAdjacency adjacency, int numSrc, int numDst, IntToLongFunction sourceId) {
        this(Objects.requireNonNull(adjacency, "adjacency").csr(), adjacency.valueBase(), numSrc, numDst,
                adjacency.type().toString(), sourceId);
    }

    /** Negatives of a plain (homogeneous) graph's edges: pairs of its {@code numNodes} nodes that are not edges. */
    public NegativeSampler(CsrGraph csr, int numNodes) {
        this(csr, numNodes, null);
    }

    /** As above, errors naming a source by its id ({@code sourceId} of its index) rather than its index. */
    public NegativeSampler(CsrGraph csr, int numNodes, IntToLongFunction sourceId) {
        this(csr, 0, numNodes, numNodes, "the graph", sourceId);
    }

    /**
     * Triplet negatives over sources whose destinations a store gave ({@code lists}, e.g. the partitioned store's whole
     * lists of a batch's sources): the same draws as over the adjacency, so the same negatives. Binary negatives need
     * the whole graph and are refused.
     */
    public NegativeSampler(SourceLists lists, int numSrc, int numDst, String what, IntToLongFunction sourceId) {
        this(null, Objects.requireNonNull(lists, "lists"), 0, numSrc, numDst, what, sourceId);
    }

    private NegativeSampler(CsrGraph csr, int base, int numSrc, int numDst, String what, IntToLongFunction sourceId) {
        this(Objects.requireNonNull(csr, "csr"), null, base, numSrc, numDst, what, sourceId);
    }

    private NegativeSampler(CsrGraph csr, SourceLists lists, int base, int numSrc, int numDst, String what,
            IntToLongFunction sourceId) {
        this.csr = csr;
        this.lists = lists;
        this.base = base;
        this.keyIsSource = csr == null || csr.direction() == EdgeDirection.OUT;
        this.numSrc = numSrc;
        this.numDst = numDst;
        this.what = what;
        this.sourceId = sourceId;
        if (numSrc == 0 || numDst == 0) {
            throw new IllegalArgumentException("negatives of " + what + " need nodes of both types");
        }
    }

    /** A source's destinations as a store that answers per source holds them (indices of the two node types). */
    public interface SourceLists {
        /** Whether source {@code s} has an edge to destination {@code d}. */
        boolean isEdge(int s, int d);

        /** The destinations {@code s} has an edge to, distinct and ascending. */
        int[] linked(int s);
    }

    /** True when the graph has the edge {@code src -> dst} of this type (indices of the two node types). */
    public boolean isEdge(int src, int dst) {
        if (lists != null) {
            return lists.isEdge(src, dst);
        }
        return keyIsSource ? csr.hasEdge(src, base + dst) : csr.hasEdge(dst, base + src);
    }

    /** {@code count} random (src, dst) pairs that are not edges: {@code {src[], dst[]}}. */
    public int[][] binary(int count, long seed, int epoch, int batchId) {
        if (lists != null) {
            throw new IllegalStateException("binary negatives over a store's per-source lists: their exact draws need"
                    + " the whole graph");
        }
        rng.reset(SplitMix64.seed(seed, epoch, batchId, NEGATIVES));
        int[] src = new int[count];
        int[] dst = new int[count];
        for (int i = 0; i < count; i++) {
            for (int tries = 0; ; tries++) {
                if (tries == MAX_TRIES) {
                    exactBinary(src, dst, i);
                    break;
                }
                int s = rng.nextInt(numSrc);
                int d = rng.nextInt(numDst);
                if (!isEdge(s, d)) {
                    src[i] = s;
                    dst[i] = d;
                    break;
                }
            }
        }
        return new int[][] {src, dst};
    }

    /** For each of {@code sources}, {@code amount} destinations it has no edge to: row-major [sources, amount]. */
    public int[] triplet(int[] sources, int amount, long seed, int epoch, int batchId) {
        rng.reset(SplitMix64.seed(seed, epoch, batchId, NEGATIVES));
        int[] dst = new int[sources.length * amount];
        for (int i = 0; i < dst.length; i++) {
            int s = sources[i / amount];
            for (int tries = 0; ; tries++) {
                if (tries == MAX_TRIES) {
                    dst[i] = exactDestination(s);
                    break;
                }
                int d = rng.nextInt(numDst);
                if (!isEdge(s, d)) {
                    dst[i] = d;
                    break;
                }
            }
        }
        return dst;
    }

    /**
     * A destination {@code s} has no edge to, uniform among them (the r-th in ascending order for a uniform r), from
     * the batch's stream.
     */
    private int exactDestination(int s) {
        if (s != linkedSource) {
            linkedOfSource = linked(s);
            linkedSource = s;
        }
        int free = numDst - linkedOfSource.length;
        if (free == 0) {
            String source = sourceId == null ? "source index " + s : "source node " + sourceId.applyAsLong(s);
            throw new IllegalStateException(source + " of " + what + " has an edge to every one of the " + numDst
                    + " destinations: there is no strict negative for it (drop --neg-sampling, or this seed)");
        }
        return nthOutside(linkedOfSource, rng.nextInt(free));
    }

    /** Negative {@code i}: a pair that is not an edge, uniform among all of them. */
    private void exactBinary(int[] src, int[] dst, int i) {
        if (linkedBySource == null) {
            linkedBySource = linkedOfEverySource();
            freeBefore = new long[numSrc + 1];
            for (int s = 0; s < numSrc; s++) {
                freeBefore[s + 1] = freeBefore[s] + numDst - linkedBySource[s].length;
            }
        }
        long total = freeBefore[numSrc];
        if (total == 0) {
            throw new IllegalStateException("every pair of " + what + "'s " + numSrc + " sources and " + numDst
                    + " destinations is an edge: there is no strict negative (drop --neg-sampling)");
        }
        long r = rng.nextLong(total);
        int s = Arrays.binarySearch(freeBefore, r);
        s = s >= 0 ? s : -s - 2; // the last source whose non-edges start at or before r
        while (freeBefore[s + 1] == freeBefore[s]) {
            s++; // sources without a non-edge start where the next one does
        }
        src[i] = s;
        dst[i] = nthOutside(linkedBySource[s], (int) (r - freeBefore[s]));
    }

    /**
     * The destinations {@code s} has an edge to, distinct and ascending (the same in either stored direction): its
     * list when lists are by source, else a scan of every destination's list (this one source's, so the scan is once
     * over the edge type).
     */
    private int[] linked(int s) {
        if (lists != null) {
            return lists.linked(s);
        }
        IntArrayList out = new IntArrayList();
        if (keyIsSource) {
            int[] targets = csr.targets();
            for (int e = csr.start(s), end = csr.end(s); e < end; e++) {
                out.add(targets[e] - base);
            }
        } else {
            for (int d = 0; d < numDst; d++) {
                if (csr.hasEdge(d, base + s)) {
                    out.add(d);
                }
            }
        }
        return distinctAscending(out.toIntArray());
    }

    /** {@link #linked} of every source, in one pass over the edge type's lists whichever way they are stored. */
    private int[][] linkedOfEverySource() {
        IntArrayList[] lists = new IntArrayList[numSrc];
        for (int s = 0; s < numSrc; s++) {
            lists[s] = new IntArrayList();
        }
        int[] targets = csr.targets();
        int keys = keyIsSource ? numSrc : numDst;
        for (int k = 0; k < keys; k++) {
            for (int e = csr.start(k), end = csr.end(k); e < end; e++) {
                if (keyIsSource) {
                    lists[k].add(targets[e] - base);
                } else {
                    lists[targets[e] - base].add(k);
                }
            }
        }
        int[][] linked = new int[numSrc][];
        for (int s = 0; s < numSrc; s++) {
            linked[s] = distinctAscending(lists[s].toIntArray());
            lists[s] = null;
        }
        return linked;
    }

    private static int[] distinctAscending(int[] values) {
        return Arrays.stream(values).sorted().distinct().toArray();
    }

    /** The {@code r}-th (from 0) index in ascending order that is not in {@code linked} (ascending, distinct). */
    static int nthOutside(int[] linked, int r) {
        int d = r;
        for (int n : linked) {
            if (n > d) {
                break;
            }
            d++; // every linked index at or below the candidate pushes it one further
        }
        return d;
    }
}
