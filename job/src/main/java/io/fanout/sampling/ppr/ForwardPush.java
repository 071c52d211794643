package io.fanout.sampling.ppr;

import io.fanout.graph.CsrGraph;
import io.fanout.random.SplitMix64;
import java.util.Arrays;
import java.util.Objects;

/**
 * Andersen-Chung-Lang forward push: approximate personalized PageRank (PPR) of one seed at a time.
 *
 * <h2>Push rule (GiGL's scale)</h2>
 * The seed starts with residual {@code r(s) = alpha}. Popping node {@code u} from a FIFO queue moves its
 * whole residual into its score ({@code p(u) += r(u); r(u) = 0}) and spreads {@code (1-alpha) r(u)}
 * evenly over the neighbour positions it reads (parallel edges are several positions and so add weight;
 * a self-loop in an undirected graph is stored, and counted, once). A neighbour {@code w} is queued when
 * it is not queued already and {@code r(w) >= alpha * eps * max(deg(w), 1)}. The seed is always pushed
 * once, as GiGL does. This is ../shared/bench/refsampler.c's {@code ppr} with every residual scaled by
 * alpha (its {@code r >= eps * d} on residuals starting at 1 is the same test), so both do the same pushes.
 *
 * <p>A dangling node (no neighbours in the walked direction) sends its {@code (1-alpha) r(u)} back to the
 * seed, as ../shared/oracles/ppr_oracle.py's random walk does; equivalently the push runs on the graph
 * where every dangling node has one edge to the seed (hence {@code max(deg, 1)} in the threshold).
 * GiGL instead keeps a dangling node's whole residual in its own score.
 *
 * <h2>Error bound</h2>
 * Let {@code pi} be the exact PPR of the seed (the oracle's), {@code Pi(x) = alpha sum_k ((1-alpha) M^T)^k x}
 * with {@code M} the walk's transition matrix (dangling rows pointing at the seed). Every push keeps
 * {@code pi = p + Pi(r) / alpha}; {@code Pi(e_v)} is a probability vector, so at the end, for every node u,
 * <pre>
 *   0 <= pi(u) - p(u) = sum_v r(v)/alpha * Pi(e_v)(u) <= residualMass() / alpha        (any graph)
 * </pre>
 * On an undirected graph (symmetric adjacency: {@code deg(v) Pi(e_v)(u) = deg(u) Pi(e_u)(v)}) and with
 * {@code r(v) < alpha eps deg(v)} at termination, the sum is below {@code eps * deg(u) * sum_v Pi(e_u)(v)}:
 * <pre>
 *   0 <= pi(u) - p(u) < eps * max(deg(u), 1)                                           (undirected)
 * </pre>
 * With the residual top-up the reported score is {@code p(u) + r(u)}, and since {@code 0 <= r(u) < alpha eps
 * deg(u)}, {@code |pi(u) - (p(u) + r(u))| < eps * max(deg(u), 1)} still holds on undirected graphs (and
 * {@code <= residualMass() / alpha} in general). Both bounds are what the oracle tests check.
 *
 * <h2>Reading fewer neighbours</h2>
 * With {@code maxNeighbors = k > 0}, a push of a node of degree {@code d > k} reads k of its d neighbour
 * positions, uniformly without replacement by Floyd's algorithm from the SplitMix64 stream
 * {@code seed(neighborSeed, PPR_STREAM, u)}: the same k every time u is pushed, for every seed, batch and
 * epoch, so the result is the PPR of one fixed sparsified graph. As GiGL's {@code num_neighbors_per_hop},
 * the residual is spread over the k read positions and the queue threshold still uses the true degree.
 *
 * <p>Not thread-safe: one instance per sampler. Its scratch arrays (two doubles, two ints and a flag per
 * node) are allocated once; a run clears only the entries the previous run touched. The results of a
 * run ({@link #score}, {@link #residual}, {@link #hop}, {@link #touched}) stay valid until the next run.
 */
public final class ForwardPush {
    /** Stream tag of the neighbour sample (keeps it apart from the k-hop streams of the same job seed). */
    static final long PPR_STREAM = 0x5050525F4E425253L;

    private final CsrGraph graph;
    private final int[] offsets;
    private final int[] targets;
    /** Degree each queue threshold uses: the CSR degree, or the true degree of a graph read sparsified. */
    private final int[] degrees;
    private final double alpha;
    private final double eps;
    private final double alphaEps;
    private final int maxNeighbors;
    private final long neighborSeed;

    private final double[] residual;
    private final double[] score;
    /** Hop at which the push reached the node (fewest pushes along any path that carried mass); -1 = untouched. */
    private final int[] hop;
    private final boolean[] inQueue;
    /** FIFO ring; a node is in it at most once, so numNodes + 1 slots always leave one free. */
    private final int[] queue;
    /** Nodes with a non-zero residual or score, in discovery order. */
    private final int[] touched;
    private int numTouched;
    private int seed = -1;
    private long pushes;

    private final SplitMix64 rng = new SplitMix64(0);
    /** Floyd's taken-position marks (stamped, never cleared), sized to the largest degree when sampling. */
    private final int[] taken;
    private int takenStamp;
    /** The positions one capped push reads ({@link #readPositions}). */
    private final int[] positions;
    /** Node ids by index, or null when they are equal. */
    private final long[] nodeIds;

    /**
     * @param graph the adjacency to walk (its direction is the PPR's edge direction)
     * @param alpha restart probability, in (0, 1)
     * @param eps tolerance, > 0: a node is pushed while {@code r >= alpha * eps * degree}
     * @param maxNeighbors neighbour positions a push reads: -1 = all, else >= 1
     * @param neighborSeed seed of the neighbour sample (used only when maxNeighbors limits a node)
     */
    public ForwardPush(CsrGraph graph, double alpha, double eps, int maxNeighbors, long neighborSeed) {
        this(graph, null, alpha, eps, maxNeighbors, neighborSeed);
    }

    /**
     * @param nodeIds the graph's node ids by index (the neighbour sample's streams are keyed by id), or null
     *     when ids equal indices
     */
    public ForwardPush(CsrGraph graph, long[] nodeIds, double alpha, double eps, int maxNeighbors, long neighborSeed) {
        this(graph, nodeIds, alpha, eps, maxNeighbors, neighborSeed, null);
    }

    /**
     * @param degrees the degree of each node for the queue threshold, or null for the CSR degree. Typed PPR walks
     *     a graph whose rows were sparsified to {@code num_neighbors_per_hop} per edge type up front and passes the
     *     true degrees here, as the homogeneous {@code maxNeighbors} does (threshold on the true degree, residual
     *     spread over the positions read).
     */
    ForwardPush(CsrGraph graph, long[] nodeIds, double alpha, double eps, int maxNeighbors, long neighborSeed,
            int[] degrees) {
        this.graph = Objects.requireNonNull(graph, "graph");
        this.nodeIds = nodeIds;
        if (!(alpha > 0 && alpha < 1)) {
            throw new IllegalArgumentException("alpha must be in (0, 1), got " + alpha);
        }
        if (!(eps > 0) || Double.isInfinite(eps)) {
            throw new IllegalArgumentException("eps must be a positive number, got " + eps);
        }
        if (maxNeighbors < 1 && maxNeighbors != -1) {
            throw new IllegalArgumentException("maxNeighbors must be >= 1 or -1 (all neighbours), got " + maxNeighbors);
        }
        this.offsets = graph.offsets();
        this.targets = graph.targets();
        if (degrees == null) {
            degrees = new int[graph.numNodes()];
            for (int v = 0; v < degrees.length; v++) {
                degrees[v] = offsets[v + 1] - offsets[v];
            }
        } else if (degrees.length != graph.numNodes()) {
            throw new IllegalArgumentException("degrees has " + degrees.length + " entries for " + graph.numNodes()
                    + " nodes");
        }
        this.degrees = degrees;
        this.alpha = alpha;
        this.eps = eps;
        this.alphaEps = alpha * eps;
        this.maxNeighbors = maxNeighbors;
        this.neighborSeed = neighborSeed;
        int n = graph.numNodes();
        this.residual = new double[n];
        this.score = new double[n];
        this.hop = new int[n];
        Arrays.fill(hop, -1);
        this.inQueue = new boolean[n];
        this.queue = new int[n + 1]; // a free slot even with every node queued (the branch-free push writes it)
        this.touched = new int[n + 1]; // likewise
        int maxDegree = 0;
        if (maxNeighbors > 0) {
            for (int v = 0; v < n; v++) {
                maxDegree = Math.max(maxDegree, offsets[v + 1] - offsets[v]);
            }
        }
        this.taken = new int[maxDegree > maxNeighbors ? maxDegree : 0];
        this.positions = new int[maxNeighbors > 0 && maxDegree > maxNeighbors ? maxNeighbors : 0];
    }

    /**
     * The list positions a push of node {@code nodeId} (degree {@code d > k}) reads, in read order: k of the d,
     * uniformly without replacement by Floyd's algorithm from the SplitMix64 stream
     * {@code seed(neighborSeed, PPR_STREAM, nodeId)}. Both stores pick a capped list with this one method, so
     * the partitioned store's fetched lists are exactly the positions the in-memory push reads.
     *
     * @param taken scratch of at least d entries; entries equal to {@code stamp} are taken (never cleared)
     * @param out receives the k positions
     */
    static void readPositions(SplitMix64 rng, long neighborSeed, long nodeId, int d, int k, int[] taken, int stamp,
            int[] out) {
        rng.reset(SplitMix64.seed(neighborSeed, PPR_STREAM, nodeId));
        int i = 0;
        for (int j = d - k; j < d; j++) {
            int r = rng.nextInt(j + 1);
            if (taken[r] == stamp) {
                r = j;
            }
            taken[r] = stamp;
            out[i++] = r;
        }
    }

    /** {@link #readPositions(SplitMix64, long, long, int, int, int[], int, int[])} with fresh scratch. */
    public static int[] readPositions(long neighborSeed, long nodeId, int d, int k) {
        int[] out = new int[k];
        readPositions(new SplitMix64(0), neighborSeed, nodeId, d, k, new int[d], 1, out);
        return out;
    }

    public CsrGraph graph() {
        return graph;
    }

    public double alpha() {
        return alpha;
    }

    public double eps() {
        return eps;
    }

    /** Neighbour positions a push reads, -1 = all. */
    public int maxNeighbors() {
        return maxNeighbors;
    }

    /**
     * Runs the push for {@code s} to completion (no queued node left).
     *
     * @return the number of pushes this run made
     * @throws IllegalArgumentException if s is not a node of the graph
     */
    public long run(int s) {
        final int n = hop.length;
        if (s < 0 || s >= n) {
            throw new IllegalArgumentException("seed " + s + " is not a node of the graph (ids 0.." + (n - 1) + ")");
        }
        clear();
        final int[] offsets = this.offsets;
        final int[] targets = this.targets;
        final double[] residual = this.residual;
        final double[] score = this.score;
        final int[] hop = this.hop;
        final boolean[] inQueue = this.inQueue;
        final int[] queue = this.queue;
        final int slots = queue.length;
        final int[] touched = this.touched;
        final int[] degrees = this.degrees;
        final double alphaEps = this.alphaEps;
        final double keep = 1 - alpha;
        final int k = maxNeighbors;

        seed = s;
        residual[s] = alpha;
        hop[s] = 0;
        touched[0] = s;
        int nt = 1;
        int head = 0;
        int tail = 0;
        int queued = 0;
        queue[tail] = s;
        tail = tail + 1 == slots ? 0 : tail + 1;
        queued++;
        inQueue[s] = true;
        long count = 0;

        while (queued > 0) {
            final int u = queue[head];
            head = head + 1 == slots ? 0 : head + 1;
            queued--;
            inQueue[u] = false;
            final double ru = residual[u];
            score[u] += ru;
            residual[u] = 0;
            count++;
            final int start = offsets[u];
            final int d = offsets[u + 1] - start;
            if (d == 0) {
                // Dangling: the walk restarts at the seed (the oracle's convention).
                final double rs = residual[s] + keep * ru;
                residual[s] = rs;
                if (!inQueue[s] && rs >= alphaEps * Math.max(degrees[s], 1)) {
                    inQueue[s] = true;
                    queue[tail] = s;
                    tail = tail + 1 == slots ? 0 : tail + 1;
                    queued++;
                }
                continue;
            }
            final int nextHop = hop[u] + 1;
            // A node of degree d > k reads k of its d positions (fixed per node) and spreads over those k.
            final boolean capped = k > 0 && d > k;
            final int reads = capped ? k : d;
            final int[] positions = this.positions;
            if (capped) {
                readPositions(rng, neighborSeed, nodeIds == null ? u : nodeIds[u], d, k, taken, nextTakenStamp(),
                        positions);
            }
            final double share = keep * ru / reads;
            for (int j = 0; j < reads; j++) {
                final int w = targets[start + (capped ? positions[j] : j)];
                // Branch-free: whether a neighbour is new, or now crosses its threshold, is a coin toss the CPU
                // cannot predict. Untouched is -1, the largest hop unsigned, so the hop is an unsigned minimum;
                // touched[nt] and queue[tail] are free slots, written whether or not they are counted.
                final int hw = hop[w];
                touched[nt] = w;
                nt += hw >>> 31;
                hop[w] = Math.min(hw + Integer.MIN_VALUE, nextHop + Integer.MIN_VALUE) - Integer.MIN_VALUE;
                final double rw = residual[w] + share;
                residual[w] = rw;
                final boolean enqueue = !inQueue[w] & rw >= alphaEps * Math.max(degrees[w], 1);
                inQueue[w] |= enqueue;
                queue[tail] = w;
                final int advanced = tail + 1 == slots ? 0 : tail + 1;
                tail = enqueue ? advanced : tail;
                queued += enqueue ? 1 : 0;
            }
        }
        numTouched = nt;
        pushes = count;
        return count;
    }

    /** Resets the entries the previous run touched (O(touched), not O(numNodes)). */
    private void clear() {
        for (int i = 0; i < numTouched; i++) {
            int v = touched[i];
            residual[v] = 0;
            score[v] = 0;
            hop[v] = -1;
        }
        numTouched = 0;
        seed = -1;
        pushes = 0;
    }

    private int nextTakenStamp() {
        if (takenStamp == Integer.MAX_VALUE) {
            Arrays.fill(taken, 0);
            takenStamp = 0;
        }
        return ++takenStamp;
    }

    /** The seed of the last run, or -1 before the first. */
    public int seed() {
        return seed;
    }

    /** Pushes made by the last run. */
    public long pushes() {
        return pushes;
    }

    /** Number of nodes the last run gave a score or a residual (the seed included). */
    public int numTouched() {
        return numTouched;
    }

    /** The touched nodes of the last run, in discovery order: entries {@code [0, numTouched())}; read-only. */
    public int[] touched() {
        return touched;
    }

    /** Settled PPR mass {@code p(u)} of the last run (0 for an untouched node). */
    public double score(int u) {
        return score[u];
    }

    /** Leftover residual {@code r(u)} of the last run, on the same scale as {@link #score}. */
    public double residual(int u) {
        return residual[u];
    }

    /** Hop distance at which the push reached u (seed = 0), or -1 if the last run never reached it. */
    public int hop(int u) {
        return hop[u];
    }

    /** Sum of the leftover residuals: {@code residualMass() / alpha} bounds every score's error. */
    public double residualMass() {
        double sum = 0;
        for (int i = 0; i < numTouched; i++) {
            sum += residual[touched[i]];
        }
        return sum;
    }

    /** The forward-push error bound on an undirected graph: {@code eps * max(deg(u), 1)} (see the class doc). */
    public double undirectedErrorBound(int u) {
        return eps * Math.max(degrees[u], 1);
    }
}
