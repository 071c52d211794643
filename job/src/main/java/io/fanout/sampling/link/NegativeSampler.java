package io.fanout.sampling.link;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.random.SplitMix64;
import java.util.Objects;

/**
 * Strict, reproducible negative edges of one edge type: node pairs that are not edges of that type (GLT's strict
 * negative sampler; its triplet mode is not strict, this one is). A batch's negatives come from the stream
 * {@code SplitMix64.seed(seed, epoch, batchId, NEGATIVES)}, so they depend on the batch only, never on
 * parallelism. A candidate that is an edge is drawn again, up to {@link #MAX_TRIES} times per negative.
 */
public final class NegativeSampler {
    /** Draws per negative before the batch fails (a source linked to nearly every destination). */
    public static final int MAX_TRIES = 1000;
    /** Stream coordinate of negatives, apart from every k-hop stream ({@code "negatives"} in ASCII). */
    private static final long NEGATIVES = 0x6e65676174697665L;

    private final CsrGraph csr;
    private final int base;
    private final boolean keyIsSource;
    private final int numSrc;
    private final int numDst;
    private final SplitMix64 rng = new SplitMix64(0);

    /**
     * @param adjacency the link edge type's adjacency (either direction)
     * @param numSrc nodes of its source type
     * @param numDst nodes of its destination type
     */
    public NegativeSampler(TypedAdjacency adjacency, int numSrc, int numDst) {
        this(Objects.requireNonNull(adjacency, "adjacency").csr(), adjacency.valueBase(), numSrc, numDst,
                adjacency.type().toString());
    }

    /** Negatives of a plain (homogeneous) graph's edges: pairs of its {@code numNodes} nodes that are not edges. */
    public NegativeSampler(CsrGraph csr, int numNodes) {
        this(csr, 0, numNodes, numNodes, "the graph");
    }

    private NegativeSampler(CsrGraph csr, int base, int numSrc, int numDst, String what) {
        this.csr = Objects.requireNonNull(csr, "csr");
        this.base = base;
        this.keyIsSource = csr.direction() == EdgeDirection.OUT;
        this.numSrc = numSrc;
        this.numDst = numDst;
        if (numSrc == 0 || numDst == 0) {
            throw new IllegalArgumentException("negatives of " + what + " need nodes of both types");
        }
    }

    /** True when the graph has the edge {@code src -> dst} of this type (indices of the two node types). */
    public boolean isEdge(int src, int dst) {
        return keyIsSource ? csr.hasEdge(src, base + dst) : csr.hasEdge(dst, base + src);
    }

    /** {@code count} random (src, dst) pairs that are not edges: {@code {src[], dst[]}}. */
    public int[][] binary(int count, long seed, int epoch, int batchId) {
        rng.reset(SplitMix64.seed(seed, epoch, batchId, NEGATIVES));
        int[] src = new int[count];
        int[] dst = new int[count];
        for (int i = 0; i < count; i++) {
            for (int tries = 0; ; tries++) {
                check(tries, "binary negative " + i);
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
                check(tries, "negative destination " + (i % amount) + " of source index " + s);
                int d = rng.nextInt(numDst);
                if (!isEdge(s, d)) {
                    dst[i] = d;
                    break;
                }
            }
        }
        return dst;
    }

    private static void check(int tries, String what) {
        if (tries == MAX_TRIES) {
            throw new IllegalStateException("no " + what + " that is not an edge in " + MAX_TRIES + " draws");
        }
    }
}
