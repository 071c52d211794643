package io.fanout.sampling.hetero;

import io.fanout.graph.EdgeDirection;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.random.SplitMix64;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.sampling.WeightedDraws;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Uniform k-hop sampling of a typed graph (GLT's heterogeneous neighbour sampler), exact and reproducible.
 *
 * <p>Hop {@code h} expands, for every edge type in name order, the nodes of its key type first found at hop
 * {@code h-1} (the seeds for hop 1) with that type's fanout for the hop; a neighbour new to the batch joins its
 * node type's list and the next frontier, one already in the batch is not expanded again (GLT's inducer, per node
 * type). Each (edge type, hop) is one hop of {@link KHopSampler} over the type's adjacency, so a node of degree
 * {@code d} in that type gets exactly {@code min(f, d)} distinct neighbour positions (or {@code f} draws with
 * replacement), drawn from the stream {@code KHopSampler} keys by (seed', epoch, batch, 1, node id) with
 * {@code seed' = SplitMix64.seed(seed, fnv1a64(edge type name), h)}: a sample depends on the graph, the options
 * and the batch only, never on parallelism or order.
 *
 * <p>Edges are reported as GLT reports them, so that PyG messages flow from the sampled neighbours to the seeds:
 * rows are the neighbours, cols the expanded nodes, under the edge type itself for {@code in} and under its
 * reverse ({@link EdgeType#reversed()}, e.g. {@code word__rev_has_word__paper}) for {@code out}.
 *
 * <p>Not thread-safe: one instance per operator subtask. Memory per subtask: one {@code KHopSampler} per edge
 * type and distinct fanout value (4 bytes per row of its adjacency, both node types' rows between two types) plus
 * 4 bytes per node of every type for the batch's local indices.
 */
public final class HeteroKHopSampler {
    private final String seedType;
    private final int hops;
    private final Map<String, NodeIdMap> ids;
    private final List<TypedAdjacency> adjacency = new ArrayList<>();
    private final List<EdgeType> reported = new ArrayList<>();
    /** [edge type][hop]: the one-hop sampler, or null for fanout 0. */
    private final KHopSampler[][] samplers;
    private final long[] typeKeys;
    /** Per node type: local index of each node in the current batch, -1 when not in it. */
    private final Map<String, int[]> localOf = new HashMap<>();
    private final boolean trackEdges;

    /**
     * @param adjacency every edge type of the graph, in one direction
     * @param ids every node type's ids
     * @param fanouts edge type name -> per-hop fanouts ({@link TypedFanouts#resolve}); same length for all
     * @param seedType the node type of the seeds
     * @param replace sample with replacement
     * @param trackEdges record each edge's CSR position (for edge ids and weights)
     */
    public HeteroKHopSampler(Map<EdgeType, TypedAdjacency> adjacency, Map<String, NodeIdMap> ids,
            Map<String, int[]> fanouts, String seedType, boolean replace, boolean trackEdges) {
        this(adjacency, ids, fanouts, seedType, replace, trackEdges, null);
    }

    /**
     * As above, drawing each edge type's neighbours in proportion to its weights where {@code weights} has that
     * type ({@link WeightedDraws}, PyG's {@code weight_attr} per edge type), uniformly elsewhere.
     */
    public HeteroKHopSampler(Map<EdgeType, TypedAdjacency> adjacency, Map<String, NodeIdMap> ids,
            Map<String, int[]> fanouts, String seedType, boolean replace, boolean trackEdges,
            Map<EdgeType, WeightedDraws> weights) {
        this.ids = Objects.requireNonNull(ids, "ids");
        this.seedType = Objects.requireNonNull(seedType, "seedType");
        if (!ids.containsKey(seedType)) {
            throw new IllegalArgumentException("seed type " + seedType + " is not a node type of the graph "
                    + ids.keySet());
        }
        this.trackEdges = trackEdges;
        int numHops = -1;
        Map<EdgeType, EdgeType> reportedBy = new TreeMap<>();
        for (TypedAdjacency a : new TreeMap<>(adjacency).values()) {
            int[] f = fanouts.get(a.type().toString());
            if (f == null || (numHops >= 0 && f.length != numHops) || f.length == 0) {
                throw new IllegalArgumentException("fanouts for " + a.type() + ": " + Arrays.toString(f)
                        + " (every edge type needs the same, non-zero number of hops)");
            }
            numHops = f.length;
            EdgeType out = reportedType(a);
            EdgeType clash = reportedBy.put(out, a.type());
            if (clash != null) {
                throw new IllegalArgumentException("edge types " + clash + " and " + a.type() + " would both be"
                        + " reported as " + out + " (GLT's reversed name); rename one relation");
            }
            this.adjacency.add(a);
            this.reported.add(out);
        }
        if (this.adjacency.isEmpty()) {
            throw new IllegalArgumentException("a typed graph needs at least one edge type");
        }
        this.hops = numHops;
        this.samplers = new KHopSampler[this.adjacency.size()][hops];
        this.typeKeys = new long[this.adjacency.size()];
        for (int t = 0; t < this.adjacency.size(); t++) {
            TypedAdjacency a = this.adjacency.get(t);
            typeKeys[t] = fnv1a64(a.type().toString());
            NodeIdMap streamIds = streamIds(a, ids.get(a.keyType()));
            int[] f = fanouts.get(a.type().toString());
            Map<Integer, KHopSampler> byFanout = new HashMap<>(); // one sampler (and its slots) per distinct fanout
            for (int h = 0; h < hops; h++) {
                if (f[h] != 0) {
                    samplers[t][h] = byFanout.computeIfAbsent(f[h],
                            k -> new KHopSampler(a.csr(), streamIds, new int[] {k}, replace, trackEdges,
                                    weights == null ? null : weights.get(a.type())));
                }
            }
        }
        for (Map.Entry<String, NodeIdMap> e : ids.entrySet()) {
            int[] local = new int[e.getValue().size()];
            Arrays.fill(local, -1);
            localOf.put(e.getKey(), local);
        }
    }

    /**
     * The ids {@link KHopSampler} keys its streams by, over the adjacency's rows: the key type's ids, then (between
     * two node types) stand-ins above them for the neighbour rows, which are never expanded.
     */
    static NodeIdMap streamIds(TypedAdjacency a, NodeIdMap keyIds) {
        int rows = a.csr().numNodes();
        if (a.valueBase() == 0) {
            return keyIds;
        }
        if (keyIds.isIdentity()) {
            return NodeIdMap.identity(rows);
        }
        long[] all = new long[rows];
        for (int i = 0; i < a.valueBase(); i++) {
            all[i] = keyIds.id(i);
        }
        long next = keyIds.maxId() + 1;
        if (next > Long.MAX_VALUE - rows) {
            throw new IllegalArgumentException("node ids of " + a.keyType() + " too close to 2^63 for " + a.type());
        }
        for (int i = a.valueBase(); i < rows; i++) {
            all[i] = next++;
        }
        return NodeIdMap.ofAscending(all);
    }

    /**
     * The edge type a sample reports an adjacency's edges under, so that messages flow from the sampled neighbours to
     * the nodes expanded: the type itself for {@code in}, its reverse ({@link EdgeType#reversed()}) for {@code out}.
     */
    static EdgeType reportedType(TypedAdjacency a) {
        return a.csr().direction() == EdgeDirection.OUT ? a.type().reversed() : a.type();
    }

    /**
     * The seed of edge type {@code type}'s streams at hop {@code hop} (1-based): a node's draws there are
     * {@code KHopSampler}'s hop 1 under this seed, so a store answering per node draws the same
     * ({@code --store partitioned}).
     */
    public static long hopSeed(long seed, EdgeType type, int hop) {
        return SplitMix64.seed(seed, fnv1a64(type.toString()), hop);
    }

    /** FNV-1a over the UTF-8 bytes: a stable 64-bit key of an edge type name for the random streams. */
    static long fnv1a64(String text) {
        long h = 0xcbf29ce484222325L;
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** The edge types this sampler walks (the graph's types it was given), in name order. */
    public java.util.SortedSet<EdgeType> edgeTypes() {
        java.util.SortedSet<EdgeType> out = new java.util.TreeSet<>();
        for (TypedAdjacency a : adjacency) {
            out.add(a.type());
        }
        return out;
    }

    public int hops() {
        return hops;
    }

    public String seedType() {
        return seedType;
    }

    /**
     * Samples one batch.
     *
     * @param seeds node indices of the seed type (duplicates allowed; each is expanded once)
     * @throws IllegalArgumentException if a seed is not a node of the seed type
     */
    public HeteroSubgraph sample(int[] seeds, long seed, int epoch, int batchId) {
        return sample(Map.of(seedType, seeds), seed, epoch, batchId);
    }

    /**
     * Samples one batch from seeds of several node types (a link batch: the source and destination nodes of its
     * seed edges); the hops expand all of them together.
     *
     * @param seeds node type -> node indices of that type (duplicates allowed)
     * @throws IllegalArgumentException if a seed is not a node of its type
     */
    public HeteroSubgraph sample(Map<String, int[]> seeds, long seed, int epoch, int batchId) {
        Map<String, IntArrayList> nodes = new TreeMap<>();
        Map<String, int[]> counts = new TreeMap<>();
        for (String type : ids.keySet()) {
            nodes.put(type, new IntArrayList());
            counts.put(type, new int[hops + 1]);
        }
        try {
            return sampleBatch(new TreeMap<>(seeds), seed, epoch, batchId, nodes, counts);
        } finally {
            // Forget the batch: reset exactly the slots it set.
            for (Map.Entry<String, IntArrayList> e : nodes.entrySet()) {
                int[] local = localOf.get(e.getKey());
                IntArrayList list = e.getValue();
                for (int i = 0; i < list.size(); i++) {
                    local[list.getInt(i)] = -1;
                }
            }
        }
    }

    private HeteroSubgraph sampleBatch(Map<String, int[]> seeds, long seed, int epoch, int batchId,
            Map<String, IntArrayList> nodes, Map<String, int[]> counts) {
        for (Map.Entry<String, int[]> e : seeds.entrySet()) {
            String type = e.getKey();
            int[] local = localOf.get(type);
            if (local == null) {
                throw new IllegalArgumentException("seed type " + type + " is not a node type of the graph "
                        + ids.keySet());
            }
            IntArrayList list = nodes.get(type);
            int[] typeSeeds = e.getValue();
            for (int i = 0; i < typeSeeds.length; i++) {
                int s = typeSeeds[i];
                if (s < 0 || s >= local.length) {
                    throw new IllegalArgumentException("seed " + s + " at position " + i + " of batch " + batchId
                            + " is not a node of type " + type + " (indices 0.." + (local.length - 1) + ")");
                }
                if (local[s] < 0) {
                    local[s] = list.size();
                    list.add(s);
                }
            }
            counts.get(type)[0] = list.size();
        }
        Map<String, int[]> frontier = new HashMap<>(); // type -> [start, end) of the last hop's new nodes
        for (String type : ids.keySet()) {
            frontier.put(type, new int[] {0, nodes.get(type).size()});
        }
        int types = adjacency.size();
        TypedEdgeBuffers edges = new TypedEdgeBuffers(types, hops, trackEdges);
        for (int h = 1; h <= hops; h++) {
            for (int t = 0; t < types; t++) {
                KHopSampler sampler = samplers[t][h - 1];
                TypedAdjacency a = adjacency.get(t);
                int[] range = frontier.get(a.keyType());
                if (sampler == null || range[0] == range[1]) {
                    continue;
                }
                int[] expand = Arrays.copyOfRange(nodes.get(a.keyType()).elements(), range[0], range[1]);
                long hopSeed = SplitMix64.seed(seed, typeKeys[t], h);
                SampledSubgraph sub = sampler.sampleShared(expand, hopSeed, epoch, batchId);
                int[] subIds = sub.idsBuffer();
                int[] subRows = sub.rowsBuffer();
                int[] subCols = sub.colsBuffer();
                int[] subPositions = sub.edgePositionsBuffer();
                int[] local = localOf.get(a.valueType());
                IntArrayList list = nodes.get(a.valueType());
                int base = a.valueBase();
                for (int i = 0; i < sub.numEdges(); i++) {
                    // The frontier is distinct, so the sub-sample's local seed index i is frontier entry i.
                    int u = subIds[subCols[i]] - base;
                    if (local[u] < 0) {
                        local[u] = list.size();
                        list.add(u);
                    }
                    edges.rows[t].add(local[u]);
                    edges.cols[t].add(range[0] + subRows[i]);
                    if (trackEdges) {
                        edges.positions[t].add(subPositions[i]);
                    }
                }
                edges.perHop[t][h - 1] = sub.numEdges();
            }
            for (String type : ids.keySet()) {
                int[] range = frontier.get(type);
                int size = nodes.get(type).size();
                counts.get(type)[h] = size - range[1];
                range[0] = range[1];
                range[1] = size;
            }
        }
        Map<String, HeteroSubgraph.Nodes> outNodes = new TreeMap<>();
        for (String type : ids.keySet()) {
            outNodes.put(type, new HeteroSubgraph.Nodes(nodes.get(type).toIntArray(), counts.get(type)));
        }
        return new HeteroSubgraph(seeds.keySet(), outNodes, edges.edges(adjacency, reported));
    }
}
