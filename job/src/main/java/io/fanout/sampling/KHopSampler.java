package io.fanout.sampling;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.NodeIdMap;
import io.fanout.random.SplitMix64;
import java.util.Arrays;
import java.util.Objects;

/**
 * Uniform k-hop neighbour sampler with GLT-style in-batch de-duplication (the inducer).
 *
 * <p>Hop 1 expands the batch's unique seeds; hop {@code h+1} expands the nodes first found at hop
 * {@code h}. For each frontier node {@code v} of degree {@code d}, with the hop's fanout {@code f}:
 * <ul>
 *   <li>without replacement (PyG/DGL default): exactly {@code min(f, d)} distinct neighbour
 *       <em>positions</em>, uniformly (Floyd's algorithm, as ../shared/bench/refsampler.c); parallel edges
 *       are distinct positions, so a neighbour can appear more than once. {@code f = -1} or
 *       {@code d <= f} takes every neighbour in CSR order.</li>
 *   <li>with replacement: {@code f} independent uniform draws among the {@code d} positions, even when
 *       {@code d < f}, as PyG's {@code replace=True} does (GLT's CPU sampler instead takes all neighbours
 *       when {@code d <= f}); none when {@code d = 0}; {@code f = -1} takes every neighbour, no draws.</li>
 * </ul>
 * With edge weights ({@link WeightedDraws}, {@code fanout.weight-column}) the draws are proportional to the
 * weights instead (alias tables with replacement, successive sampling without); {@code -1} and, without
 * replacement, {@code d <= f} still take every neighbour, as PyG does.
 * Every sampled pair {@code (v, u)} is emitted as an edge, even when {@code u} is already in the batch
 * (as GLT and refsampler do). {@code u} joins {@code ids} and the next frontier only when it is new to
 * the batch, so no node is expanded twice.
 *
 * <p>Determinism: the draws for node {@code v} at hop {@code h} ({@code h = 1} for the hop from the
 * seeds) come from the stream {@code SplitMix64.seed(seed, epoch, batchId, h, id(v))}, {@code id(v)} the
 * node's int64 id (not its store index, so any store of the same graph draws the same), so a sample depends
 * only on the graph, the options, the seeds and {@code (seed, epoch, batchId)}: never on threads,
 * parallelism or the order in which batches are sampled (GLT and pyg-lib are not reproducible across
 * workers; see dgl #1110). Draw order, for reimplementations: Floyd steps {@code j = d-f .. d-1} each
 * draw {@code r = nextInt(j + 1)}, take position {@code j} instead if {@code r} was taken, and emit edges
 * in step order; with replacement, draw {@code i} is position {@code nextInt(d)}.
 *
 * <p>Not thread-safe: one instance per operator subtask. It keeps one {@code int} per node (the
 * batch's base plus the node's local index; 4 bytes x numNodes, reset by moving the base instead of
 * clearing) and growable buffers reused across calls, so the hot loop allocates nothing per edge.
 */
public final class KHopSampler {
    /** SplitMix64's increment; lets {@link #sample} derive per-node seeds from a per-hop prefix. */
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;
    /** Largest edge buffer a JVM array can hold. */
    private static final int MAX_EDGES = Integer.MAX_VALUE - 8;

    private final CsrGraph graph;
    private final int[] offsets;
    private final int[] targets;
    private final int[] fanouts;
    private final boolean replace;
    /** The node ids by index (the random streams are keyed by id), or null when ids equal indices. */
    private final long[] nodeIds;
    /** Record each sampled edge's CSR position (for edge ids and edge features). */
    private final boolean trackEdges;
    /** Weighted draws ({@code fanout.weight-column}), or null for the uniform sampler. */
    private final WeightedDraws weighted;

    /**
     * Per node: {@code batchBase + local index} when the node is in the current batch; any smaller value
     * means it is not. Every batch starts its range where the previous one ended, so nothing is cleared
     * between batches, and 4 bytes per node (half a stamp-plus-index long) keep more of this randomly
     * accessed array in cache: one load per sampled edge.
     */
    private final int[] slots;
    /** Where the next batch's range of slot values starts ({@code >= 1}: 0 = never seen). */
    private int nextBase = 1;

    private int[] ids = new int[1024];
    private int[] rows = new int[4096];
    private int[] cols = new int[4096];
    /** CSR position of each sampled edge, when {@link #trackEdges}. */
    private int[] edges = new int[0];
    /** Floyd's chosen positions for the current node (relative to its first neighbour). */
    private int[] pick = new int[64]; // > any k < d <= 64 and >= FloydDraws.SCAN_MAX: only large fanouts grow it
    /** The picks of the last {@link #drawPrefix}. */
    private int[] lastPicks;
    /** {@link FloydDraws}' set of picked positions for large fanouts. */
    private int[] pickSet = new int[0];

    /**
     * @param graph the adjacency to sample; its direction decides which way edges are walked
     * @param fanouts neighbours per frontier node per hop, {@code fanouts[0]} = the hop from the seeds;
     *     each {@code >= 1}, or {@code -1} for all neighbours
     * @param replace sample with replacement (PyG {@code replace=True} semantics)
     */
    public KHopSampler(CsrGraph graph, int[] fanouts, boolean replace) {
        this(graph, NodeIdMap.identity(graph.numNodes()), fanouts, replace, false);
    }

    /**
     * @param graph the adjacency to sample over node indices
     * @param ids the graph's node ids by index: the random streams are keyed by id
     * @param fanouts as {@link #KHopSampler(CsrGraph, int[], boolean)}
     * @param replace sample with replacement
     * @param trackEdges record each sampled edge's CSR position ({@link SampledSubgraph#edgePositionsBuffer()})
     */
    public KHopSampler(CsrGraph graph, NodeIdMap ids, int[] fanouts, boolean replace, boolean trackEdges) {
        this(graph, ids, fanouts, replace, trackEdges, null);
    }

    /**
     * As {@link #KHopSampler(CsrGraph, NodeIdMap, int[], boolean, boolean)}, drawing neighbours in proportion to
     * the edge weights when {@code weighted} is given ({@link WeightedDraws}; the same streams, one draw per
     * neighbour position without replacement, one per pick with).
     */
    public KHopSampler(CsrGraph graph, NodeIdMap ids, int[] fanouts, boolean replace, boolean trackEdges,
            WeightedDraws weighted) {
        if (weighted != null && !graph.hasWeights()) {
            throw new IllegalArgumentException("weighted sampling needs a graph with edge weights");
        }
        this.weighted = weighted;
        this.graph = Objects.requireNonNull(graph, "graph");
        this.fanouts = validateFanouts(Objects.requireNonNull(fanouts, "fanouts").clone());
        this.replace = replace;
        if (ids.size() != graph.numNodes()) {
            throw new IllegalArgumentException("id map of " + ids.size() + " nodes for a graph of " + graph.numNodes());
        }
        this.nodeIds = ids.idsOrNull();
        this.trackEdges = trackEdges;
        if (trackEdges) {
            edges = new int[rows.length];
        }
        this.offsets = graph.offsets();
        this.targets = graph.targets();
        this.slots = new int[graph.numNodes()];
    }

    /**
     * Parses a fanout list such as {@code "15,10"} ({@code -1} = all neighbours at that hop).
     *
     * @throws IllegalArgumentException naming the bad entry if the list is empty, an entry is not an
     *     integer, or an entry is neither {@code >= 1} nor {@code -1}
     */
    public static int[] parseFanouts(String text) {
        Objects.requireNonNull(text, "fanouts");
        String trimmed = text.trim();
        if (trimmed.isEmpty()) {
            throw new IllegalArgumentException("fanouts must be a comma-separated list such as '15,10', got an empty string");
        }
        String[] parts = trimmed.split(",", -1);
        int[] fanouts = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i].trim();
            try {
                fanouts[i] = Integer.parseInt(part);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("fanouts '" + text + "': entry " + (i + 1) + " '" + part
                        + "' is not an integer (expected e.g. '15,10'; -1 = all neighbours)", e);
            }
        }
        return validateFanouts(fanouts);
    }

    private static int[] validateFanouts(int[] fanouts) {
        if (fanouts.length == 0) {
            throw new IllegalArgumentException("fanouts must name at least one hop, got an empty list");
        }
        for (int i = 0; i < fanouts.length; i++) {
            if (fanouts[i] < 1 && fanouts[i] != -1) {
                throw new IllegalArgumentException("fanout for hop " + (i + 1) + " must be >= 1 or -1 (all neighbours), got "
                        + fanouts[i] + " in " + Arrays.toString(fanouts));
            }
        }
        return fanouts;
    }

    public CsrGraph graph() {
        return graph;
    }

    /** A copy of the per-hop fanouts. */
    public int[] fanouts() {
        return fanouts.clone();
    }

    public boolean replace() {
        return replace;
    }

    /** True when the draws follow edge weights ({@link WeightedDraws}). */
    public boolean weighted() {
        return weighted != null;
    }

    /**
     * Samples the k-hop subgraph of one batch.
     *
     * @param seeds the batch's seed nodes (duplicates allowed; each is expanded once)
     * @param seed the job's random seed
     * @param epoch the epoch the batch belongs to
     * @param batchId the batch's id within the epoch
     * @return a fresh subgraph whose arrays the caller owns
     * @throws IllegalArgumentException if a seed is not a node of the graph
     */
    public SampledSubgraph sample(int[] seeds, long seed, int epoch, int batchId) {
        return sampleShared(seeds, seed, epoch, batchId).detached();
    }

    /**
     * Like {@link #sample}, but the result is backed by this sampler's scratch buffers (and the given
     * seeds array) and is only valid until the next call: the allocation-free form for a caller that
     * consumes the subgraph at once, such as the operator that encodes it into a message.
     */
    public SampledSubgraph sampleShared(int[] seeds, long seed, int epoch, int batchId) {
        Objects.requireNonNull(seeds, "seeds");
        final int base = nextBatchBase();
        try {
            SampledSubgraph sub = sampleBatch(seeds, seed, epoch, batchId, base);
            nextBase = base + sub.numNodes();
            return sub;
        } catch (RuntimeException | Error e) {
            // Slots of the failed batch may hold values at or above base; forget every slot (rare path).
            Arrays.fill(slots, 0);
            nextBase = 1;
            throw e;
        }
    }

    private SampledSubgraph sampleBatch(int[] seeds, long seed, int epoch, int batchId, int base) {
        final int[] slots = this.slots;
        final int[] offsets = this.offsets;
        final int[] targets = this.targets;
        final int numNodes = slots.length;
        final int hops = fanouts.length;
        final int[] numSampledNodes = new int[hops + 1];
        final int[] numSampledEdges = new int[hops];

        int[] ids = ensureIds(seeds.length);
        int nids = 0;
        for (int i = 0; i < seeds.length; i++) {
            int s = seeds[i];
            if (s < 0 || s >= numNodes) {
                throw new IllegalArgumentException("seed " + s + " at position " + i + " of batch " + batchId
                        + " is not a node of the graph (ids 0.." + (numNodes - 1) + ")");
            }
            if (slots[s] < base) {
                slots[s] = base + nids;
                ids[nids++] = s;
            }
        }
        numSampledNodes[0] = nids;

        int[] rows = this.rows;
        int[] cols = this.cols;
        int[] edges = this.edges;
        final boolean trackEdges = this.trackEdges;
        final WeightedDraws weighted = this.weighted;
        final long[] nodeIds = this.nodeIds;
        int ne = 0;
        int frontierStart = 0;
        int frontierEnd = nids;
        // seed(seed, epoch, batchId, h, v) == mix(mix(seed(seed, epoch, batchId) + G + h) + G + v): hoist the prefix.
        final long batchPrefix = SplitMix64.seed(seed, epoch, batchId);
        for (int h = 1; h <= hops; h++) {
            final int f = fanouts[h - 1];
            final long hopPrefix = SplitMix64.mix(batchPrefix + GOLDEN_GAMMA + h) + GOLDEN_GAMMA;
            final int edgesBefore = ne;
            // Room for the whole hop before its loop, so the buffers stay fixed inside it: grown inside the loop,
            // a batch that first needed more room recompiled the loop with the growth in it, and the core then ran
            // 10-15 % slower (ego_twitter_u [15,10], seen after a job's batches in the same JVM). f per frontier
            // node is enough; where the buffers hold less, the hop's exact count decides (no buffer sized for
            // fanouts that low-degree nodes cannot fill).
            if (f < 0 || ne + (long) (frontierEnd - frontierStart) * f > rows.length) {
                final long needed = ne + hopEdges(ids, frontierStart, frontierEnd, f);
                if (needed > rows.length) {
                    growEdges(needed);
                    rows = this.rows;
                    cols = this.cols;
                    edges = this.edges;
                }
            }
            // Two passes per hop. The first draws every frontier node's neighbour positions (CSR indexes) into
            // cols; the second turns them into targets and then into local indices. Separated, the target loads
            // of the whole hop do not wait on per-node draws or on each other, so the CPU overlaps their cache
            // misses (about 1.3x on ego_twitter_u against translating each node's picks at once).
            for (int i = frontierStart; i < frontierEnd; i++) {
                final int v = ids[i];
                final int start = offsets[v];
                final int d = offsets[v + 1] - start;
                if (d == 0) {
                    continue;
                }
                final boolean all = f < 0 || (!replace && d <= f);
                if (all) {
                    // All neighbours, in CSR order; no draws. Indexing by the loop counter (not ne++) lets the
                    // JIT hoist the range checks.
                    for (int c = 0; c < d; c++) {
                        rows[ne + c] = i;
                        cols[ne + c] = start + c;
                    }
                    ne += d;
                    continue;
                }
                // The node's SplitMix64 stream, kept in a local (register) rather than in the generator
                // object: the same numbers as SplitMix64.nextInt, without a memory round trip per draw.
                long state = SplitMix64.mix(hopPrefix + (nodeIds == null ? v : nodeIds[v]));
                if (replace && weighted == null) {
                    for (int c = 0; c < f; c++) {
                        state += GOLDEN_GAMMA;
                        rows[ne + c] = i;
                        cols[ne + c] = start + SplitMix64.bounded(SplitMix64.mix(state), d);
                    }
                } else {
                    // Floyd's draws and weighted draws (both modes); small enough for the JIT to inline.
                    final int[] pick = draw(state, start, d, f);
                    for (int c = 0; c < f; c++) {
                        rows[ne + c] = i;
                        cols[ne + c] = start + pick[c];
                    }
                }
                ne += f;
            }
            final int hopEdges = ne - edgesBefore;
            if (trackEdges) {
                System.arraycopy(cols, edgesBefore, edges, edgesBefore, hopEdges);
            }
            if (nids > ids.length - hopEdges) {
                ids = growIds((long) nids + hopEdges);
            }
            for (int e = edgesBefore; e < ne; e++) {
                cols[e] = targets[cols[e]];
            }
            // The inducer: each sampled target's local index, new targets appended to ids (the next frontier).
            // A branch on "is it new" rather than a branch-free select that stored a slot and an id for every
            // target: in alternated rounds in one JVM the branch was 3-16 % faster on ego_twitter_u, pubmed,
            // citeseer, cnr_2000 and R-MAT (R-MAT 2^18 x 16 at [10,5] within noise), with the same samples.
            for (int e = edgesBefore; e < ne; e++) {
                final int u = cols[e];
                int lu = slots[u] - base; // no overflow: both are in [0, Integer.MAX_VALUE]
                if (lu < 0) {
                    slots[u] = base + nids;
                    ids[nids] = u;
                    lu = nids++;
                }
                cols[e] = lu;
            }
            numSampledNodes[h] = nids - frontierEnd;
            numSampledEdges[h - 1] = ne - edgesBefore;
            frontierStart = frontierEnd;
            frontierEnd = nids;
        }
        return new SampledSubgraph(ids, nids, rows, cols, trackEdges ? edges : null, ne, seeds, numSampledNodes,
                numSampledEdges);
    }

    /**
     * The positions (relative to the node's first neighbour) drawn from stream {@code state} for a node whose
     * neighbours start at {@code start}, of degree {@code d > 0} and fanout {@code f >= 1}, when not every
     * neighbour is taken ({@code replace || d > f}): the same draws as {@link #sample}'s loop, in
     * {@code [0, f)} of the returned scratch buffer (valid until the next draw). For samplers that build the
     * subgraph their own way, such as {@link DisjointKHopSampler}.
     */
    int[] draw(long state, int start, int d, int f) {
        if (weighted != null) {
            return replace ? weighted.withReplacement(state, start, d, f) : weighted.withoutReplacement(state, start, d, f);
        }
        final int[] pick = this.pick.length >= f ? this.pick : (this.pick = new int[Math.max(f, this.pick.length * 2)]);
        if (!replace) {
            if (FloydDraws.needsSet(d, f) && pickSet.length < FloydDraws.setSize(f)) {
                pickSet = new int[FloydDraws.setSize(f)];
            }
            return FloydDraws.draw(state, d, f, pick, pickSet);
        }
        for (int c = 0; c < f; c++) {
            state += GOLDEN_GAMMA;
            pick[c] = SplitMix64.bounded(SplitMix64.mix(state), d);
        }
        return pick;
    }

    /**
     * The draws of a sampler that builds its subgraph its own way ({@link DisjointKHopSampler}, the typed disjoint
     * sampler) for a node whose neighbours start at {@code start}: among its first {@code d > 0} of {@code full}
     * neighbours (a time prefix when {@code d < full}), fanout {@code f >= 1}, when not all are taken
     * ({@code replace || d > f}). Weighted draws over a prefix draw over that range, as the node's alias table
     * covers its whole list. Returns the count drawn; the positions (relative to {@code start}) are
     * {@link #lastPicks()}'s {@code [0, count)}, valid until the next draw.
     */
    public int drawPrefix(long state, int start, int d, int full, int f) {
        if (weighted != null) {
            int k = weighted.drawPrefix(state, start, d, full, f, replace);
            lastPicks = weighted.picks();
            return k;
        }
        lastPicks = draw(state, start, d, f);
        return f;
    }

    /** The positions of the last {@link #drawPrefix}. */
    public int[] lastPicks() {
        return lastPicks;
    }

    /** Test hook: start the next batch's slot range at {@code base}, to reach the restart without 2^31 batches. */
    void startNextBatchAt(int base) {
        nextBase = base;
    }

    /**
     * Starts a batch's range of slot values after the previous batch's. A batch holds at most numNodes
     * ids, so when that many would not fit below Integer.MAX_VALUE the slots are cleared once and the
     * ranges restart (every ~2^31 / nodes-per-batch batches; on graphs near 2^31 nodes, more often).
     */
    private int nextBatchBase() {
        if (nextBase > Integer.MAX_VALUE - slots.length) {
            Arrays.fill(slots, 0);
            nextBase = 1;
        }
        return nextBase;
    }

    private int[] ensureIds(int capacity) {
        if (ids.length < capacity) {
            ids = new int[Math.max(capacity, ids.length * 2)];
        }
        return ids;
    }

    /**
     * The edges a hop with fanout {@code f} samples from the frontier {@code ids[from, to)}: per node of degree
     * {@code d}, every neighbour for {@code f = -1}, {@code min(d, f)} without replacement, {@code f} with it (none
     * when {@code d = 0}).
     */
    private long hopEdges(int[] ids, int from, int to, int f) {
        long edges = 0;
        for (int i = from; i < to; i++) {
            int d = offsets[ids[i] + 1] - offsets[ids[i]];
            edges += f < 0 ? d : replace ? (d == 0 ? 0 : f) : Math.min(d, f);
        }
        return edges;
    }

    /** Grows ids (keeping its contents) to hold {@code capacity}; a batch never holds more than numNodes ids. */
    private int[] growIds(long capacity) {
        long limit = slots.length;
        int needed = (int) Math.min(capacity, limit);
        if (ids.length < needed) {
            ids = Arrays.copyOf(ids, (int) Math.min(Math.max((long) needed, ids.length * 2L), limit));
        }
        return ids;
    }

    private void growEdges(long capacity) {
        if (capacity > MAX_EDGES) {
            throw new IllegalStateException("a batch would sample more than " + MAX_EDGES
                    + " edges; use smaller batches or fanouts");
        }
        if (rows.length < capacity) {
            int grown = (int) Math.min(Math.max(capacity, rows.length * 2L), MAX_EDGES);
            rows = Arrays.copyOf(rows, grown);
            cols = Arrays.copyOf(cols, grown);
            if (trackEdges) {
                edges = Arrays.copyOf(edges, grown);
            }
        }
    }
}
