package io.fanout.sampling;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.NodeIdMap;
import io.fanout.random.SplitMix64;
import java.util.Arrays;
import java.util.Objects;

/**
 * Disjoint k-hop sampling (PyG {@code disjoint=True}): every seed of a batch grows its own tree, so a node
 * reached from two seeds is two nodes of the subgraph, one per tree, and {@code nodeBatch} maps every node to
 * its seed's index.
 *
 * <p>Layout as PyG's: the seeds first, one node per seed in batch order (a seed given twice is two trees),
 * then each hop's new nodes in frontier order, so {@code numSampledNodes} and {@code numSampledEdges} keep their
 * per-hop meaning. Within a tree, nodes are de-duplicated as {@link KHopSampler} does within a batch (every
 * sampled edge is emitted; a node already in the tree is not added or expanded again); across trees nothing is
 * shared. Node {@code v} of tree {@code t} at hop {@code h} draws exactly as {@link KHopSampler} does (uniform or
 * weighted, same rules for {@code -1} and {@code d <= f}) from the stream
 * {@code SplitMix64.seed(seed, epoch, batchId, h, t, id(v))}: the tree index is part of the key, so two trees
 * through one node draw independently, and the sample still depends only on the batch and the options.
 *
 * <p>Not thread-safe: one per operator subtask. The (tree, node) -> local index map is an open-addressing
 * table sized to the batch, cleared per batch.
 */
public final class DisjointKHopSampler {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final KHopSampler draws;
    private final CsrGraph graph;
    /** Temporal strategy {@code last}: the most recent neighbours up to the seed time instead of a uniform draw. */
    private final boolean last;
    private final int[] offsets;
    private final int[] targets;
    private final int[] fanouts;
    private final boolean replace;
    private final boolean trackEdges;
    /** Node ids by index (the streams are keyed by id), or null when ids equal indices. */
    private final long[] nodeIds;

    /** (tree << 32 | node) keys, -1 = empty; {@link #local} holds each key's local index. */
    private long[] keys = new long[0];
    private int[] local = new int[0];
    private int mapSize;

    private int[] ids = new int[1024];
    private int[] tree = new int[1024];
    private int numNodes;
    private int[] rows = new int[4096];
    private int[] cols = new int[4096];
    private int[] edges = new int[4096];
    private int numEdges;

    /**
     * @param draws the sampler whose per-node draws (uniform or weighted, with or without replacement) and
     *     fanouts the trees use; its graph and id map are the ones sampled
     * @param ids the graph's node ids by index, as given to {@code draws}
     * @param trackEdges record each sampled edge's CSR position
     */
    public DisjointKHopSampler(KHopSampler draws, NodeIdMap ids, boolean trackEdges) {
        this(draws, ids, trackEdges, false);
    }

    /**
     * @param last temporal strategy {@code last} (PyG): with seed times, a node takes its {@code f} most recent
     *     neighbours up to the time instead of drawing among them
     */
    public DisjointKHopSampler(KHopSampler draws, NodeIdMap ids, boolean trackEdges, boolean last) {
        this.draws = Objects.requireNonNull(draws, "draws");
        this.last = last;
        this.graph = draws.graph();
        if (ids.size() != graph.numNodes()) {
            throw new IllegalArgumentException("id map of " + ids.size() + " nodes for a graph of " + graph.numNodes());
        }
        this.offsets = graph.offsets();
        this.targets = graph.targets();
        this.fanouts = draws.fanouts();
        this.replace = draws.replace();
        this.trackEdges = trackEdges;
        this.nodeIds = ids.idsOrNull();
    }

    /**
     * Samples one batch, one tree per seed; the result owns its arrays and has {@link SampledSubgraph#nodeBatchBuffer()}.
     *
     * @throws IllegalArgumentException if a seed is not a node of the graph
     */
    public SampledSubgraph sample(int[] seeds, long seed, int epoch, int batchId) {
        return sample(seeds, null, seed, epoch, batchId);
    }

    /**
     * Temporal sampling (PyG {@code time_attr} on edges): as {@link #sample(int[], long, int, int)}, but tree
     * {@code t} only follows edges whose timestamp is {@code <= seedTimes[t]}; those are a prefix of every
     * neighbour list because the graph is {@link CsrGraph#sortedByTime() sorted by time}. Uniform: the draws
     * of {@link KHopSampler} over that prefix; {@code last}: its {@code f} most recent edges ({@code -1} or a
     * shorter prefix: all of it; with replacement, {@code f} draws among them). Weighted: proportional to the
     * weights within the prefix ({@link WeightedDraws#inRange}: successive sampling without replacement, exact
     * draws with), the whole-list alias tables only when the prefix is the whole list.
     *
     * @param seedTimes one time per seed, or null for no time constraint
     * @throws IllegalArgumentException if a seed is not a node, or seedTimes does not have one entry per seed
     */
    public SampledSubgraph sample(int[] seeds, long[] seedTimes, long seed, int epoch, int batchId) {
        Objects.requireNonNull(seeds, "seeds");
        if (seedTimes != null && (seedTimes.length != seeds.length || !graph.hasTimestamps())) {
            throw new IllegalArgumentException(graph.hasTimestamps() ? seedTimes.length + " seed times for "
                    + seeds.length + " seeds" : "temporal sampling needs a graph with edge timestamps");
        }
        final int hops = fanouts.length;
        final int[] numSampledNodes = new int[hops + 1];
        final int[] numSampledEdges = new int[hops];
        clearMap(seeds.length * 16);
        numNodes = 0;
        numEdges = 0;
        for (int i = 0; i < seeds.length; i++) {
            int s = seeds[i];
            if (s < 0 || s >= offsets.length - 1) {
                throw new IllegalArgumentException("seed " + s + " at position " + i + " of batch " + batchId
                        + " is not a node of the graph (ids 0.." + (offsets.length - 2) + ")");
            }
            node(i, s);
        }
        numSampledNodes[0] = numNodes;
        int frontierStart = 0;
        for (int h = 1; h <= hops; h++) {
            final int f = fanouts[h - 1];
            final int frontierEnd = numNodes;
            final int edgesBefore = numEdges;
            for (int i = frontierStart; i < frontierEnd; i++) {
                final int v = ids[i];
                final int t = tree[i];
                int start = offsets[v];
                int d = offsets[v + 1] - start;
                if (seedTimes != null) {
                    long range = graph.temporalRange(v, seedTimes[t], last, f);
                    start = (int) (range >>> 32);
                    d = (int) range;
                }
                if (d == 0) {
                    continue;
                }
                if (f < 0 || (!replace && d <= f)) {
                    for (int c = 0; c < d; c++) {
                        edge(i, t, start + c);
                    }
                    continue;
                }
                // seed(seed, epoch, batchId, h, t, id) as SplitMix64.seed(long...) defines it.
                long state = SplitMix64.mix(SplitMix64.seed(seed, epoch, batchId, h, t) + GOLDEN_GAMMA
                        + (nodeIds == null ? v : nodeIds[v]));
                // Part of the list (a time prefix): weighted draws go over that range, not the whole list's tables.
                int k = draws.drawPrefix(state, start, d, offsets[v + 1] - offsets[v], f);
                final int[] pick = draws.lastPicks();
                for (int c = 0; c < k; c++) {
                    edge(i, t, start + pick[c]); // edge() never draws, so pick stays valid
                }
            }
            numSampledNodes[h] = numNodes - frontierEnd;
            numSampledEdges[h - 1] = numEdges - edgesBefore;
            frontierStart = frontierEnd;
        }
        return new SampledSubgraph(Arrays.copyOf(ids, numNodes), numNodes, Arrays.copyOf(rows, numEdges),
                Arrays.copyOf(cols, numEdges), trackEdges ? Arrays.copyOf(edges, numEdges) : null, numEdges,
                seeds.clone(), numSampledNodes, numSampledEdges, Arrays.copyOf(tree, numNodes));
    }

    /** Emits the edge from local node {@code from} (of tree {@code t}) at CSR position {@code at}. */
    private void edge(int from, int t, int at) {
        if (numEdges == rows.length) {
            int grown = (int) Math.min(rows.length * 2L, Integer.MAX_VALUE - 8);
            if (grown == numEdges) {
                throw new IllegalStateException("a batch would sample more than " + numEdges + " edges");
            }
            rows = Arrays.copyOf(rows, grown);
            cols = Arrays.copyOf(cols, grown);
            edges = Arrays.copyOf(edges, grown);
        }
        rows[numEdges] = from;
        cols[numEdges] = node(t, targets[at]);
        edges[numEdges] = at;
        numEdges++;
    }

    /** The local index of node {@code u} in tree {@code t}, adding it when the tree does not hold it yet. */
    private int node(int t, int u) {
        final long key = (long) t << 32 | u;
        int mask = keys.length - 1;
        int slot = (int) SplitMix64.mix(key) & mask;
        while (keys[slot] != -1) {
            if (keys[slot] == key) {
                return local[slot];
            }
            slot = (slot + 1) & mask;
        }
        if (numNodes == ids.length) {
            ids = Arrays.copyOf(ids, ids.length * 2);
            tree = Arrays.copyOf(tree, tree.length * 2);
        }
        ids[numNodes] = u;
        tree[numNodes] = t;
        keys[slot] = key;
        local[slot] = numNodes;
        if (++mapSize * 2 > keys.length) {
            rehash();
        }
        return numNodes++;
    }

    private void clearMap(int expected) {
        int capacity = Math.max(1024, Integer.highestOneBit(Math.max(expected, 1)) << 1);
        if (keys.length < capacity) {
            keys = new long[capacity];
            local = new int[capacity];
        }
        Arrays.fill(keys, -1L);
        mapSize = 0;
    }

    private void rehash() {
        long[] oldKeys = keys;
        int[] oldLocal = local;
        keys = new long[oldKeys.length * 2];
        local = new int[keys.length];
        Arrays.fill(keys, -1L);
        int mask = keys.length - 1;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != -1) {
                int slot = (int) SplitMix64.mix(oldKeys[i]) & mask;
                while (keys[slot] != -1) {
                    slot = (slot + 1) & mask;
                }
                keys[slot] = oldKeys[i];
                local[slot] = oldLocal[i];
            }
        }
    }
}
