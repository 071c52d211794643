package io.fanout.sampling.partitioned;

import io.fanout.sampling.LocalIds;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.List;

/**
 * One batch's typed k-hop subgraph growing hop by hop from the sampled neighbours of each frontier node, keyed by
 * node id per node type: {@link io.fanout.sampling.hetero.HeteroKHopSampler}'s inducer for a store that answers
 * per (edge type, node). Hop {@code h} applies the edge types in name order, each over the nodes of its key type
 * first found at hop {@code h-1}; a neighbour new to its node type joins that type's list and next frontier. Fed
 * each hop's answers in frontier order, it builds exactly the sampler's node lists, edges and per-hop counts.
 * Disjoint ({@code --disjoint}): every seed is its own tree, nodes are keyed by (tree, id) per node type and a
 * frontier node's neighbours join its tree: {@link io.fanout.sampling.hetero.HeteroDisjointKHopSampler}'s layout.
 *
 * <p>Not thread-safe; one per batch.
 */
public final class HeteroBatchAssembly {
    /** The key and value node type (indices into the node types) of one edge type, in edge type name order. */
    public record Relation(int keyType, int valueType) {}

    private final List<Relation> relations;
    private final long[] batch;
    /** Per node type: its ids in discovery order, indexed by id ({@link LocalIds}); null when disjoint. */
    private final LocalIds[] ids;
    /** Disjoint: per node type its (tree, id) nodes in discovery order ({@link TreeLocalIds}); else null. */
    private final TreeLocalIds[] treeIds;
    private final IntArrayList[] nodesPerHop;
    private final IntArrayList[] rows;
    private final IntArrayList[] cols;
    private final IntArrayList[] edgesPerHop;
    private final int[] frontierStart;
    private final int[] frontierEnd;

    /**
     * Starts a batch: its unique seeds (of node type {@code seedType}), in first-occurrence order, are hop 0.
     *
     * @param numNodeTypes the graph's node types (indices in name order)
     * @param relations every edge type walked, in name order
     */
    public HeteroBatchAssembly(int numNodeTypes, List<Relation> relations, int seedType, long[] seeds) {
        this(numNodeTypes, relations, seedType, seeds, false);
    }

    /** As above; {@code disjoint}: seed {@code i} roots tree {@code i} (a seed given twice is two trees). */
    public HeteroBatchAssembly(int numNodeTypes, List<Relation> relations, int seedType, long[] seeds,
            boolean disjoint) {
        this(numNodeTypes, relations, new int[] {seedType}, new long[][] {seeds}, disjoint);
    }

    /**
     * Starts a batch whose seeds are of several node types (a link batch's sources, then destinations, PyG's
     * {@code seed_dict}): {@code seeds[k]} of node type {@code seedTypes[k]}, in that order (a type may come twice; its
     * seeds then join one list); disjoint, the trees are numbered across them in that order, as pyg-lib numbers them.
     */
    public HeteroBatchAssembly(int numNodeTypes, List<Relation> relations, int[] seedTypes, long[][] seeds,
            boolean disjoint) {
        this(numNodeTypes, relations, concat(seeds), null, disjoint ? new int[numNodeTypes][] : null, null, null, null,
                null);
        int tree = 0;
        for (int k = 0; k < seeds.length; k++) {
            int type = seedTypes[k];
            for (long id : seeds[k]) {
                if (disjoint) {
                    treeIds[type].add(tree++, id);
                } else {
                    ids[type].add(id);
                }
            }
        }
        for (int t = 0; t < numNodeTypes; t++) {
            nodesPerHop[t].add(size(t));
            frontierEnd[t] = size(t);
        }
    }

    private static long[] concat(long[][] parts) {
        int n = 0;
        for (long[] part : parts) {
            n += part.length;
        }
        long[] out = new long[n];
        int at = 0;
        for (long[] part : parts) {
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }

    /**
     * De-duplicated: the local indices of {@code seeds}, nodes of {@code type} already in the batch (a link batch's
     * ends, for its labels).
     */
    public int[] localIndices(int type, long[] seeds) {
        if (ids == null) {
            throw new IllegalStateException("a disjoint batch's seeds are its trees' roots");
        }
        int[] local = new int[seeds.length];
        for (int i = 0; i < seeds.length; i++) {
            local[i] = ids[type].add(seeds[i]); // every seed is there: add only looks it up
        }
        return local;
    }

    /**
     * Resumes a batch from its exported state (per node type {@link #ids} and {@link #numSampledNodes}, per edge
     * type {@link #rows}, {@link #cols} and {@link #numSampledEdges}): how a keyed operator carries it between hops.
     */
    public HeteroBatchAssembly(int numNodeTypes, List<Relation> relations, long[] seeds, long[][] ids,
            int[][] numSampledNodes, int[][] rows, int[][] cols, int[][] numSampledEdges) {
        this(numNodeTypes, relations, seeds, ids, null, numSampledNodes, rows, cols, numSampledEdges);
    }

    /**
     * As above, for a disjoint batch when {@code trees} (per node type, each node's tree: {@link #trees}) is not null.
     */
    public HeteroBatchAssembly(int numNodeTypes, List<Relation> relations, long[] seeds, long[][] ids, int[][] trees,
            int[][] numSampledNodes, int[][] rows, int[][] cols, int[][] numSampledEdges) {
        this.relations = List.copyOf(relations);
        this.batch = seeds.clone();
        this.ids = trees == null ? new LocalIds[numNodeTypes] : null;
        this.treeIds = trees == null ? null : new TreeLocalIds[numNodeTypes];
        this.nodesPerHop = new IntArrayList[numNodeTypes];
        this.frontierStart = new int[numNodeTypes];
        this.frontierEnd = new int[numNodeTypes];
        for (int t = 0; t < numNodeTypes; t++) {
            if (trees != null) {
                treeIds[t] = ids == null ? new TreeLocalIds(16) : TreeLocalIds.of(ids[t], trees[t], 16);
            } else {
                // Resumed: the exported ids taken as they are (distinct, in order), indexed at the next hop's
                // first add.
                this.ids[t] = ids == null ? new LocalIds(16) : LocalIds.adopt(ids[t], ids[t].length, 16);
            }
            nodesPerHop[t] = new IntArrayList();
            if (ids != null) {
                nodesPerHop[t].addElements(0, numSampledNodes[t]);
                frontierEnd[t] = ids[t].length;
                frontierStart[t] = frontierEnd[t] - numSampledNodes[t][numSampledNodes[t].length - 1];
            }
        }
        int e = this.relations.size();
        this.rows = new IntArrayList[e];
        this.cols = new IntArrayList[e];
        this.edgesPerHop = new IntArrayList[e];
        for (int r = 0; r < e; r++) {
            this.rows[r] = rows == null ? new IntArrayList() : IntArrayList.wrap(rows[r].clone());
            this.cols[r] = cols == null ? new IntArrayList() : IntArrayList.wrap(cols[r].clone());
            this.edgesPerHop[r] = numSampledEdges == null ? new IntArrayList()
                    : IntArrayList.wrap(numSampledEdges[r].clone());
        }
    }

    /** The ids of node type {@code type} to expand at the next hop (first found at the previous hop), in order. */
    public long[] frontier(int type) {
        return treeIds != null ? treeIds[type].ids(frontierStart[type], frontierEnd[type])
                : ids[type].range(frontierStart[type], frontierEnd[type]);
    }

    /** Disjoint: the tree of each {@link #frontier} node of {@code type} (the stream it draws from); else null. */
    public int[] frontierTrees(int type) {
        return treeIds == null ? null : treeIds[type].trees(frontierStart[type], frontierEnd[type]);
    }

    /** Nodes of {@code type} so far. */
    private int size(int type) {
        return treeIds != null ? treeIds[type].size() : ids[type].size();
    }

    /** The number of nodes {@link #frontier} would give. */
    public int frontierSize(int type) {
        return frontierEnd[type] - frontierStart[type];
    }

    /**
     * Applies one hop: {@code neighbors[r][i]} are the sampled neighbour ids of {@code frontier(keyType of r)[i]}
     * through edge type {@code r}, in draw order; {@code neighbors[r]} is null for an edge type not expanded at
     * this hop (fanout 0 or an empty frontier). Edge types are applied in order, so a node new at this hop gets its
     * local index in the order the in-memory sampler finds it.
     */
    public void addHop(long[][][] neighbors) {
        if (neighbors.length != relations.size()) {
            throw new IllegalArgumentException("hop answers for " + neighbors.length + " edge types, the batch walks "
                    + relations.size());
        }
        FrontierAnswers[] answers = new FrontierAnswers[neighbors.length];
        for (int r = 0; r < neighbors.length; r++) {
            if (neighbors[r] != null) {
                int frontier = frontierSize(relations.get(r).keyType());
                if (neighbors[r].length != frontier) {
                    throw new IllegalArgumentException("hop answers of edge type " + r + " for " + neighbors[r].length
                            + " frontier nodes, the frontier has " + frontier);
                }
                answers[r] = FrontierAnswers.perNode(neighbors[r]);
            }
        }
        addHop(answers);
    }

    /**
     * Applies one hop given per edge type as groups of answers, as lookups send them ({@code [r]} null for an edge
     * type not expanded at this hop): through edge type {@code r}, group {@code g} answered the key type's frontier
     * positions {@code positions[r][g][i]} with {@code neighbors[r][g][ends[r][g][i-1] .. ends[r][g][i])}, in draw
     * order. The result is {@link #addHop(long[][][])}'s, the neighbours read where they arrived.
     */
    public void addHop(int[][][] positions, int[][][] ends, long[][][] neighbors) {
        if (positions.length != relations.size() || ends.length != relations.size()
                || neighbors.length != relations.size()) {
            throw new IllegalArgumentException("hop answer groups for " + positions.length + ", " + ends.length + " and "
                    + neighbors.length + " edge types, the batch walks " + relations.size());
        }
        FrontierAnswers[] answers = new FrontierAnswers[neighbors.length];
        for (int r = 0; r < neighbors.length; r++) {
            if (neighbors[r] != null) {
                answers[r] = new FrontierAnswers(frontierSize(relations.get(r).keyType()), positions[r], ends[r],
                        neighbors[r]);
            }
        }
        addHop(answers);
    }

    private void addHop(FrontierAnswers[] answers) {
        for (int r = 0; r < answers.length; r++) {
            Relation rel = relations.get(r);
            if (answers[r] == null) {
                edgesPerHop[r].add(0);
                continue;
            }
            int start = frontierStart[rel.keyType()];
            int frontier = frontierEnd[rel.keyType()] - start;
            int before = rows[r].size();
            for (int i = 0; i < frontier; i++) {
                long[] list = answers[r].list(i);
                int tree = treeIds == null ? -1 : treeIds[rel.keyType()].tree(start + i);
                for (int j = answers[r].from(i), to = answers[r].to(i); j < to; j++) {
                    // As GLT reports them: rows the sampled neighbours, cols the nodes expanded.
                    rows[r].add(tree < 0 ? ids[rel.valueType()].add(list[j])
                            : treeIds[rel.valueType()].add(tree, list[j]));
                    cols[r].add(start + i);
                }
            }
            edgesPerHop[r].add(rows[r].size() - before);
        }
        for (int t = 0; t < nodesPerHop.length; t++) {
            nodesPerHop[t].add(size(t) - frontierEnd[t]);
            frontierStart[t] = frontierEnd[t];
            frontierEnd[t] = size(t);
        }
    }

    /** Node ids of each node type, the unique seeds first, then each hop's new nodes in discovery order. */
    public long[][] ids() {
        long[][] out = new long[nodesPerHop.length][];
        for (int t = 0; t < out.length; t++) {
            out[t] = treeIds != null ? treeIds[t].ids(0, treeIds[t].size()) : ids[t].toArray();
        }
        return out;
    }

    /** Disjoint: per node type each node's tree, the index of its seed (PyG's per-type {@code batch}); else null. */
    public int[][] trees() {
        if (treeIds == null) {
            return null;
        }
        int[][] out = new int[treeIds.length][];
        for (int t = 0; t < out.length; t++) {
            out[t] = treeIds[t].trees(0, treeIds[t].size());
        }
        return out;
    }

    /** Per edge type: local indices of the sampled neighbours in their node type. */
    public int[][] rows() {
        return toArrays(rows);
    }

    /** Per edge type: local indices of the expanded nodes in their node type. */
    public int[][] cols() {
        return toArrays(cols);
    }

    /** Per node type, hops+1 entries: [0] = unique seeds (0 for other types). */
    public int[][] numSampledNodes() {
        return toArrays(nodesPerHop);
    }

    /** Per edge type, one entry per hop applied. */
    public int[][] numSampledEdges() {
        return toArrays(edgesPerHop);
    }

    /** The seeds as given (duplicates kept). */
    public long[] batch() {
        return batch.clone();
    }

    private static int[][] toArrays(IntArrayList[] lists) {
        int[][] out = new int[lists.length][];
        for (int i = 0; i < lists.length; i++) {
            out[i] = lists[i].toIntArray();
        }
        return out;
    }
}
