package io.fanout.sampling.ppr;

import io.fanout.graph.CsrGraph;
import io.fanout.sampling.TopK;
import java.util.Arrays;
import java.util.Objects;

/**
 * PPR neighbour sampler (GiGL's {@code DistPPRNeighborSampler} semantics): for every seed of a batch,
 * the {@code maxPprNodes} nodes of highest approximate personalized PageRank, as virtual edges
 * seed -> neighbour carrying {@code [ppr_score, 1/(1+hop)]}.
 *
 * <p>Per seed, {@link ForwardPush} runs to completion; then the selection is GiGL's two phases:
 * <ol>
 *   <li>the top {@code maxPprNodes} of the <em>pushed</em> nodes (those with a settled score) by score;</li>
 *   <li>with the residual top-up, if fewer than {@code maxPprNodes} nodes were pushed, the free slots go
 *       to the best discovered-but-never-pushed nodes by leftover residual; every selected node then
 *       reports {@code score + residual}, and the list is re-sorted by that value.</li>
 * </ol>
 * Without the top-up the reported value is the settled score. Either way a seed's edges are ordered by
 * reported value, descending, ties by node id. The seed is a candidate like any other (it holds at least
 * {@code alpha}, so it is in practice its own best neighbour).
 *
 * <p>A seed listed twice in a batch is sampled once ({@code ids} is de-duplicated, as k-hop does). The
 * result depends only on the graph, the options and the seed (not on the batch, epoch, thread or
 * parallelism): the push is sequential and reads neighbours in CSR order.
 *
 * <p>Not thread-safe: one instance per operator subtask; scratch is sized to the graph once.
 */
public final class PprSampler {
    private final ForwardPush push;
    private final int maxPprNodes;
    private final boolean residualTopUp;
    private final TopK topK;

    /** Selection of the current seed: nodes, reported values, hops; valid until the next selection. */
    private int[] selNodes;
    private double[] selValues;

    /** Per node: batch stamp (high 32 bits) and local index (low 32 bits), as in KHopSampler. */
    private final long[] slots;
    private int stamp;

    /**
     * @param graph the adjacency to walk
     * @param alpha restart probability in (0, 1)
     * @param eps push tolerance > 0
     * @param maxPprNodes neighbours kept per seed, >= 1
     * @param maxNeighbors neighbour positions a push reads: -1 = all, else >= 1
     * @param residualTopUp report score + residual and fill free slots from discovered nodes (GiGL default)
     * @param seed the job seed (drives only the neighbour sample of maxNeighbors)
     */
    public PprSampler(CsrGraph graph, double alpha, double eps, int maxPprNodes, int maxNeighbors,
            boolean residualTopUp, long seed) {
        this(graph, null, alpha, eps, maxPprNodes, maxNeighbors, residualTopUp, seed);
    }

    /** As above, with the graph's node ids by index (null when equal to indices), which key the random streams. */
    public PprSampler(CsrGraph graph, long[] nodeIds, double alpha, double eps, int maxPprNodes, int maxNeighbors,
            boolean residualTopUp, long seed) {
        Objects.requireNonNull(graph, "graph");
        if (maxPprNodes < 1) {
            throw new IllegalArgumentException("maxPprNodes must be >= 1, got " + maxPprNodes);
        }
        this.push = new ForwardPush(graph, nodeIds, alpha, eps, maxNeighbors, seed);
        this.maxPprNodes = maxPprNodes;
        this.residualTopUp = residualTopUp;
        int cap = (int) Math.min(maxPprNodes, Math.max(graph.numNodes(), 1));
        this.topK = new TopK(cap);
        this.selNodes = new int[cap];
        this.selValues = new double[cap];
        this.slots = new long[graph.numNodes()];
    }

    /** The forward-push core (its state describes the last seed sampled). */
    public ForwardPush push() {
        return push;
    }

    public int maxPprNodes() {
        return maxPprNodes;
    }

    public boolean residualTopUp() {
        return residualTopUp;
    }

    /**
     * Runs the push for one seed and selects its PPR neighbours; returns how many. They are readable
     * through {@link #selectedNode}, {@link #selectedValue} and {@link #push()} until the next call.
     */
    public int sampleSeed(int s) {
        push.run(s);
        return select();
    }

    /** The i-th selected neighbour of the last {@link #sampleSeed}, best first. */
    public int selectedNode(int i) {
        return selNodes[i];
    }

    /** The reported PPR score of the i-th selected neighbour. */
    public double selectedValue(int i) {
        return selValues[i];
    }

    private int select() {
        final ForwardPush push = this.push;
        final int[] touched = push.touched();
        final int nt = push.numTouched();
        final int k = maxPprNodes;
        final TopK topK = this.topK;
        ensureSelection(Math.min(k, nt));
        topK.reset(k);
        for (int i = 0; i < nt; i++) {
            int v = touched[i];
            double p = push.score(v);
            if (p > 0) {
                topK.offer(v, p);
            }
        }
        int count = topK.drainBestFirst(selNodes, selValues, 0);
        if (!residualTopUp) {
            return count;
        }
        if (count < k) {
            // Free slots: discovered nodes that were never pushed, by leftover residual.
            topK.reset(k - count);
            for (int i = 0; i < nt; i++) {
                int v = touched[i];
                if (push.score(v) == 0 && push.residual(v) > 0) {
                    topK.offer(v, push.residual(v));
                }
            }
            count += topK.drainBestFirst(selNodes, null, count);
        }
        topK.reset(count);
        for (int i = 0; i < count; i++) {
            int v = selNodes[i];
            topK.offer(v, push.score(v) + push.residual(v));
        }
        return topK.drainBestFirst(selNodes, selValues, 0);
    }

    private void ensureSelection(int capacity) {
        if (selNodes.length < capacity) {
            selNodes = new int[capacity];
            selValues = new double[capacity];
        }
    }

    /**
     * Samples the PPR neighbourhoods of one batch.
     *
     * @param seeds the batch's seed nodes (a repeated seed is sampled once)
     * @throws IllegalArgumentException if a seed is not a node of the graph
     */
    public PprSubgraph sample(int[] seeds) {
        Objects.requireNonNull(seeds, "seeds");
        final int numNodes = slots.length;
        final int stamp = nextStamp();
        final long stampBits = (long) stamp << 32;
        int[] ids = new int[Math.max(16, seeds.length * 2)];
        int nids = 0;
        for (int i = 0; i < seeds.length; i++) {
            int s = seeds[i];
            if (s < 0 || s >= numNodes) {
                throw new IllegalArgumentException("seed " + s + " at position " + i
                        + " is not a node of the graph (ids 0.." + (numNodes - 1) + ")");
            }
            if ((int) (slots[s] >>> 32) != stamp) {
                slots[s] = stampBits | nids;
                ids[nids++] = s;
            }
        }
        final int numSeeds = nids;
        int cap = Math.max(16, numSeeds * Math.min(maxPprNodes, 64));
        int[] src = new int[cap];
        int[] dst = new int[cap];
        double[] value = new double[cap];
        double[] proximity = new double[cap];
        int ne = 0;
        long pushes = 0;
        for (int si = 0; si < numSeeds; si++) {
            int count = sampleSeed(ids[si]);
            pushes += push.pushes();
            if (ne > src.length - count) {
                int grown = Math.max(src.length * 2, ne + count);
                src = Arrays.copyOf(src, grown);
                dst = Arrays.copyOf(dst, grown);
                value = Arrays.copyOf(value, grown);
                proximity = Arrays.copyOf(proximity, grown);
            }
            for (int j = 0; j < count; j++) {
                int v = selNodes[j];
                long slot = slots[v];
                int local;
                if ((int) (slot >>> 32) == stamp) {
                    local = (int) slot;
                } else {
                    if (nids == ids.length) {
                        ids = Arrays.copyOf(ids, (int) Math.min((long) ids.length * 2, numNodes));
                    }
                    local = nids;
                    slots[v] = stampBits | local;
                    ids[nids++] = v;
                }
                src[ne] = si;
                dst[ne] = local;
                value[ne] = selValues[j];
                proximity[ne] = 1.0 / (1 + push.hop(v));
                ne++;
            }
        }
        int[] edgeIndex = new int[2 * ne];
        System.arraycopy(src, 0, edgeIndex, 0, ne);
        System.arraycopy(dst, 0, edgeIndex, ne, ne);
        double[] edgeAttr = new double[2 * ne];
        for (int e = 0; e < ne; e++) {
            edgeAttr[2 * e] = value[e];
            edgeAttr[2 * e + 1] = proximity[e];
        }
        return new PprSubgraph(Arrays.copyOf(ids, nids), seeds.clone(), numSeeds, edgeIndex, edgeAttr, pushes);
    }

    /** A fresh batch stamp; when the counter would wrap, clear the slots once so stale ones cannot match. */
    private int nextStamp() {
        if (stamp == Integer.MAX_VALUE) {
            Arrays.fill(slots, 0L);
            stamp = 0;
        }
        return ++stamp;
    }
}
