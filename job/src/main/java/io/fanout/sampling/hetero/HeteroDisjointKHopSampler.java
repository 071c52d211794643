package io.fanout.sampling.hetero;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.random.SplitMix64;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.WeightedDraws;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Disjoint and temporal k-hop sampling of a typed graph, as PyG's {@code NeighborLoader} samples a {@code HeteroData}
 * with {@code disjoint=True} or {@code time_attr}: every seed grows its own tree through every edge type, and with
 * seed times tree {@code t} follows only edges of a timed edge type whose time is {@code <= seedTimes[t]}.
 *
 * <p>Layout per node type as {@link HeteroKHopSampler}'s (seeds first, then each hop's new nodes), plus each node's
 * tree index (PyG's per-node-type {@code batch} vector). Within a tree, nodes are de-duplicated per node type; across
 * trees nothing is shared. Hop {@code h} expands, for every edge type in name order, the nodes of its key type first
 * found at hop {@code h-1}. A node's draws are {@link KHopSampler}'s (uniform or weighted, with or without
 * replacement) over its whole list or, in a temporal run, over its neighbours up to the tree's time (a prefix, as the
 * edges are sorted by time at load; strategy {@code last}: the {@code f} most recent of them), from the stream
 * {@code mix(SplitMix64.seed(seed', epoch, batch, h, t) + gamma + id)} with {@code seed' = SplitMix64.seed(seed,
 * fnv1a64(edge type), h)}: the sample depends on the graph, the options and the batch only.
 *
 * <p>Edge types in {@code timeless} (declared by the user: their files have no time column) are followed at any time.
 * Not thread-safe: one instance per operator subtask.
 */
public final class HeteroDisjointKHopSampler {
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final String seedType;
    private final int hops;
    private final Map<String, NodeIdMap> ids;
    private final List<TypedAdjacency> adjacency = new ArrayList<>();
    private final List<EdgeType> reported = new ArrayList<>();
    /** [edge type][hop]: the draws of that edge type at that hop (null for fanout 0). */
    private final KHopSampler[][] draws;
    private final int[][] fanouts;
    private final long[] typeKeys;
    /** Per edge type: whether a temporal run filters it by time. */
    private final boolean[] timed;
    private final boolean replace;
    private final boolean last;
    private final boolean trackEdges;

    /**
     * @param adjacency the edge types to walk, in one direction (timed ones sorted by time)
     * @param ids every node type's ids
     * @param fanouts edge type name -> per-hop fanouts, same length for all
     * @param seedType the seeds' node type
     * @param weights edge type -> weighted draws, or null (or a missing type) for uniform draws
     * @param timeless edge type names followed at any time in a temporal run
     * @param last temporal strategy {@code last} instead of uniform
     */
    public HeteroDisjointKHopSampler(Map<EdgeType, TypedAdjacency> adjacency, Map<String, NodeIdMap> ids,
            Map<String, int[]> fanouts, String seedType, boolean replace, boolean trackEdges,
            Map<EdgeType, WeightedDraws> weights, Set<String> timeless, boolean last) {
        this.ids = Objects.requireNonNull(ids, "ids");
        this.seedType = Objects.requireNonNull(seedType, "seedType");
        if (!ids.containsKey(seedType)) {
            throw new IllegalArgumentException("seed type " + seedType + " is not a node type of the graph "
                    + ids.keySet());
        }
        this.replace = replace;
        this.last = last;
        this.trackEdges = trackEdges;
        List<TypedAdjacency> sorted = new ArrayList<>(new TreeMap<>(adjacency).values());
        if (sorted.isEmpty()) {
            throw new IllegalArgumentException("a typed graph needs at least one edge type");
        }
        int numHops = -1;
        this.draws = new KHopSampler[sorted.size()][];
        this.fanouts = new int[sorted.size()][];
        this.typeKeys = new long[sorted.size()];
        this.timed = new boolean[sorted.size()];
        for (int t = 0; t < sorted.size(); t++) {
            TypedAdjacency a = sorted.get(t);
            int[] f = fanouts.get(a.type().toString());
            if (f == null || f.length == 0 || (numHops >= 0 && f.length != numHops)) {
                throw new IllegalArgumentException("fanouts for " + a.type() + ": " + Arrays.toString(f)
                        + " (every edge type needs the same, non-zero number of hops)");
            }
            numHops = f.length;
            this.adjacency.add(a);
            this.reported.add(HeteroKHopSampler.reportedType(a));
            this.fanouts[t] = f.clone();
            this.typeKeys[t] = HeteroKHopSampler.fnv1a64(a.type().toString());
            this.timed[t] = a.csr().hasTimestamps() && (timeless == null || !timeless.contains(a.type().toString()));
            WeightedDraws weighted = weights == null ? null : weights.get(a.type());
            NodeIdMap streamIds = HeteroKHopSampler.streamIds(a, ids.get(a.keyType()));
            this.draws[t] = new KHopSampler[f.length];
            for (int h = 0; h < f.length; h++) {
                if (f[h] != 0) {
                    draws[t][h] = new KHopSampler(a.csr(), streamIds, new int[] {f[h]}, replace, trackEdges, weighted);
                }
            }
        }
        this.hops = numHops;
    }

    public int hops() {
        return hops;
    }

    public String seedType() {
        return seedType;
    }

    /** One node type's nodes in the batch: (tree, index) keys -> local index, and the lists. */
    private static final class TypeNodes {
        final Long2IntOpenHashMap local = new Long2IntOpenHashMap();
        final IntArrayList indices = new IntArrayList();
        final IntArrayList trees = new IntArrayList();
        final int[] counts;

        TypeNodes(int hops) {
            local.defaultReturnValue(-1);
            counts = new int[hops + 1];
        }

        int add(int tree, int node) {
            long key = (long) tree << 32 | (node & 0xffffffffL);
            int at = local.get(key);
            if (at < 0) {
                at = indices.size();
                local.put(key, at);
                indices.add(node);
                trees.add(tree);
            }
            return at;
        }
    }

    /**
     * Samples one batch, one tree per seed (a seed given twice is two trees).
     *
     * @param seeds node indices of the seed type
     * @param seedTimes each seed's time, or null for no time constraint (plain disjoint trees)
     * @throws IllegalArgumentException if a seed is not a node of the seed type, or the times do not match the seeds
     */
    public HeteroSubgraph sample(int[] seeds, long[] seedTimes, long seed, int epoch, int batchId) {
        Objects.requireNonNull(seeds, "seeds");
        return sample(Map.of(seedType, seeds), seedTimes, seed, epoch, batchId);
    }

    /**
     * Samples one batch whose seeds are of several node types (a link batch's sources and destinations, PyG's
     * {@code seed_dict}): trees are numbered across the types in {@code seeds}' iteration order, as pyg-lib numbers
     * them, and {@code seedTimes} (or null) is indexed by that tree number.
     */
    public HeteroSubgraph sample(Map<String, int[]> seeds, long[] seedTimes, long seed, int epoch, int batchId) {
        int total = 0;
        for (int[] typeSeeds : seeds.values()) {
            total += typeSeeds.length;
        }
        if (seedTimes != null && seedTimes.length != total) {
            throw new IllegalArgumentException(seedTimes.length + " seed times for " + total + " seeds");
        }
        Map<String, TypeNodes> nodes = new TreeMap<>();
        for (String type : ids.keySet()) {
            nodes.put(type, new TypeNodes(hops));
        }
        int tree = 0;
        for (Map.Entry<String, int[]> e : seeds.entrySet()) {
            String type = e.getKey();
            TypeNodes seedNodes = nodes.get(type);
            if (seedNodes == null) {
                throw new IllegalArgumentException("seed type " + type + " is not a node type of the graph "
                        + ids.keySet());
            }
            int[] typeSeeds = e.getValue();
            int numSeedNodes = ids.get(type).size();
            for (int i = 0; i < typeSeeds.length; i++) {
                if (typeSeeds[i] < 0 || typeSeeds[i] >= numSeedNodes) {
                    throw new IllegalArgumentException("seed " + typeSeeds[i] + " at position " + i + " of batch "
                            + batchId + " is not a node of type " + type + " (indices 0.." + (numSeedNodes - 1) + ")");
                }
                seedNodes.add(tree++, typeSeeds[i]);
            }
            seedNodes.counts[0] = seedNodes.indices.size();
        }
        Map<String, int[]> frontier = new TreeMap<>(); // type -> [start, end) of the last hop's new nodes
        for (Map.Entry<String, TypeNodes> e : nodes.entrySet()) {
            frontier.put(e.getKey(), new int[] {0, e.getValue().indices.size()});
        }
        int types = adjacency.size();
        TypedEdgeBuffers edges = new TypedEdgeBuffers(types, hops, trackEdges);
        for (int h = 1; h <= hops; h++) {
            for (int t = 0; t < types; t++) {
                KHopSampler sampler = draws[t][h - 1];
                TypedAdjacency a = adjacency.get(t);
                int[] range = frontier.get(a.keyType());
                if (sampler == null || range[0] == range[1]) {
                    continue;
                }
                int before = edges.rows[t].size();
                expand(t, h, a, sampler, nodes.get(a.keyType()), nodes.get(a.valueType()), range, seedTimes, seed,
                        epoch, batchId, edges.rows[t], edges.cols[t], edges.positions[t]);
                edges.perHop[t][h - 1] = edges.rows[t].size() - before;
            }
            for (Map.Entry<String, TypeNodes> e : nodes.entrySet()) {
                int[] range = frontier.get(e.getKey());
                int size = e.getValue().indices.size();
                e.getValue().counts[h] = size - range[1];
                range[0] = range[1];
                range[1] = size;
            }
        }
        Map<String, HeteroSubgraph.Nodes> outNodes = new TreeMap<>();
        for (Map.Entry<String, TypeNodes> e : nodes.entrySet()) {
            TypeNodes n = e.getValue();
            outNodes.put(e.getKey(), new HeteroSubgraph.Nodes(n.indices.toIntArray(), n.counts, n.trees.toIntArray()));
        }
        return new HeteroSubgraph(seeds.keySet(), outNodes, edges.edges(adjacency, reported));
    }

    /** One edge type's hop: every frontier node of its key type draws within its own tree (and time). */
    private void expand(int t, int h, TypedAdjacency a, KHopSampler sampler, TypeNodes keys, TypeNodes values,
            int[] range, long[] seedTimes, long seed, int epoch, int batchId, IntArrayList rows, IntArrayList cols,
            IntArrayList positions) {
        CsrGraph csr = a.csr();
        int[] targets = csr.targets();
        int base = a.valueBase();
        int f = fanouts[t][h - 1];
        long typeSeed = SplitMix64.seed(seed, typeKeys[t], h);
        NodeIdMap keyIds = ids.get(a.keyType());
        boolean temporal = seedTimes != null && timed[t];
        for (int i = range[0]; i < range[1]; i++) {
            int v = keys.indices.getInt(i);
            int tree = keys.trees.getInt(i);
            int start = csr.start(v);
            int full = csr.degree(v);
            int d = full;
            if (temporal) {
                long window = csr.temporalRange(v, seedTimes[tree], last, f);
                start = (int) (window >>> 32);
                d = (int) window;
            }
            if (d == 0) {
                continue;
            }
            if (f < 0 || (!replace && d <= f)) {
                for (int c = 0; c < d; c++) {
                    edge(keys, values, i, tree, start + c, targets, base, rows, cols, positions);
                }
                continue;
            }
            long state = SplitMix64.mix(SplitMix64.seed(typeSeed, epoch, batchId, h, tree) + GOLDEN_GAMMA
                    + keyIds.id(v));
            int k = sampler.drawPrefix(state, start, d, full, f);
            int[] pick = sampler.lastPicks();
            for (int c = 0; c < k; c++) {
                edge(keys, values, i, tree, start + pick[c], targets, base, rows, cols, positions);
            }
        }
    }

    private static void edge(TypeNodes keys, TypeNodes values, int from, int tree, int at, int[] targets, int base,
            IntArrayList rows, IntArrayList cols, IntArrayList positions) {
        rows.add(values.add(tree, targets[at] - base));
        cols.add(from);
        if (positions != null) {
            positions.add(at);
        }
    }
}
