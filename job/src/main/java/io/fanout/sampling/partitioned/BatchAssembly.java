package io.fanout.sampling.partitioned;

import io.fanout.sampling.LocalIds;
import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * One batch's k-hop subgraph growing hop by hop from the sampled neighbours of each frontier node, keyed by node
 * id (no store-wide index): the GLT inducer of {@link io.fanout.sampling.KHopSampler} for a store that answers
 * per node. Fed each hop's answers in frontier order, it builds exactly the sampler's {@code ids}, {@code rows},
 * {@code cols} and per-hop counts, so the answers may arrive in any order as long as they are applied in order.
 * Disjoint ({@link #disjoint}, PyG {@code disjoint=True}): every seed is its own tree (a seed given twice is two
 * trees), nodes are keyed by (tree, id) ({@link TreeLocalIds}) and a frontier node's neighbours join its tree, as
 * {@link io.fanout.sampling.DisjointKHopSampler} lays them out; the lookups draw each node in its tree's stream.
 *
 * <p>Not thread-safe; one per batch.
 */
public final class BatchAssembly {
    private final long[] batch;
    /** The batch's ids, indexed by id ({@link LocalIds}); null when disjoint. */
    private final LocalIds ids;
    /** Disjoint: the (tree, id) nodes in discovery order; else null. */
    private final TreeLocalIds treeIds;
    private final IntArrayList rows;
    private final IntArrayList cols;
    private final IntArrayList nodesPerHop = new IntArrayList();
    private final IntArrayList edgesPerHop = new IntArrayList();
    private int frontierStart;
    private int frontierEnd;

    /** Starts a batch: its unique seeds, in first-occurrence order, are hop 0. */
    public BatchAssembly(long[] seeds) {
        this.batch = seeds.clone();
        ids = new LocalIds(seeds.length);
        treeIds = null;
        rows = new IntArrayList();
        cols = new IntArrayList();
        for (long s : seeds) {
            ids.add(s);
        }
        nodesPerHop.add(ids.size());
        frontierEnd = ids.size();
    }

    /**
     * Resumes a batch from its exported state ({@link #ids()}, {@link #rows()}, {@link #cols()},
     * {@link #numSampledNodes()}, {@link #numSampledEdges()}): how a keyed operator carries it between hops.
     */
    public BatchAssembly(long[] seeds, long[] ids, int[] rows, int[] cols, int[] numSampledNodes, int[] numSampledEdges) {
        this(seeds, ids, rows, cols, numSampledNodes, numSampledEdges, 0);
    }

    /**
     * As above, with room for a next hop of {@code drawn} sampled neighbours, so applying it grows nothing (at the
     * last hop of R-MAT 2^18 x 16, p=2, JFR's allocation samples put the growth at about 0.25 MB a batch).
     */
    public BatchAssembly(long[] seeds, long[] ids, int[] rows, int[] cols, int[] numSampledNodes, int[] numSampledEdges,
            int drawn) {
        this(seeds, ids, null, rows, cols, numSampledNodes, numSampledEdges, drawn);
    }

    /** As above, for a disjoint batch when {@code trees} (each node's tree: {@link #trees}) is not null. */
    public BatchAssembly(long[] seeds, long[] ids, int[] trees, int[] rows, int[] cols, int[] numSampledNodes,
            int[] numSampledEdges, int drawn) {
        this.batch = seeds.clone();
        // The exported ids taken as they are (distinct, in order), the index built once at the next hop with room for
        // it (rebuilding the index by rehashing dominated resuming a big batch; adding them one by one compared each
        // with its bucket's).
        int room = Math.max(drawn, 0);
        this.ids = trees == null ? LocalIds.adopt(ids, ids.length, room) : null;
        this.treeIds = trees == null ? null : TreeLocalIds.of(ids, trees, room);
        this.rows = new IntArrayList(rows.length + room);
        this.cols = new IntArrayList(cols.length + room);
        this.rows.addElements(0, rows);
        this.cols.addElements(0, cols);
        this.nodesPerHop.addElements(0, numSampledNodes);
        this.edgesPerHop.addElements(0, numSampledEdges);
        frontierEnd = ids.length;
        frontierStart = frontierEnd - numSampledNodes[numSampledNodes.length - 1];
    }

    /** Starts a disjoint batch: seed {@code i} is node {@code i}, the root of tree {@code i}. */
    public static BatchAssembly disjoint(long[] seeds) {
        int[] trees = new int[seeds.length];
        for (int t = 0; t < trees.length; t++) {
            trees[t] = t;
        }
        return new BatchAssembly(seeds, seeds, trees, new int[0], new int[0], new int[] {seeds.length}, new int[0], 0);
    }

    /** The ids of the nodes to expand at the next hop (those first found at the previous hop), in order. */
    public long[] frontier() {
        return treeIds != null ? treeIds.ids(frontierStart, frontierEnd) : ids.range(frontierStart, frontierEnd);
    }

    /** Disjoint: the tree of each {@link #frontier()} node, the stream it draws from; else null. */
    public int[] frontierTrees() {
        return treeIds == null ? null : treeIds.trees(frontierStart, frontierEnd);
    }

    /** Disjoint: each node's tree, the index of its seed (PyG's {@code batch} vector); else null. */
    public int[] trees() {
        return treeIds == null ? null : treeIds.trees(0, treeIds.size());
    }

    /**
     * Each given seed's local index: its first occurrence's, or disjoint {@code i}, the root of tree {@code i}
     * (PyG's link labels: the seed edges' ends as indices into {@link #ids()}).
     */
    public int[] seedIndices() {
        int[] local = new int[batch.length];
        for (int i = 0; i < local.length; i++) {
            local[i] = treeIds != null ? i : ids.add(batch[i]); // every seed is there: add only looks it up
        }
        return local;
    }

    /** Nodes so far. */
    private int size() {
        return treeIds != null ? treeIds.size() : ids.size();
    }

    /**
     * Applies one hop: {@code neighbors[i]} are the sampled neighbour ids of {@code frontier()[i]}, in draw
     * order. Every pair becomes an edge; a neighbour new to the batch joins the next frontier.
     */
    public void addHop(long[][] neighbors) {
        if (neighbors.length != frontierEnd - frontierStart) {
            throw new IllegalArgumentException("hop answers for " + neighbors.length + " frontier nodes, the frontier has "
                    + (frontierEnd - frontierStart));
        }
        addHop(FrontierAnswers.perNode(neighbors));
    }

    /**
     * Applies one hop given as groups of answers, as lookups send them: group {@code g} answered frontier positions
     * {@code positions[g][i]} with the neighbours {@code neighbors[g][ends[g][i-1] .. ends[g][i])} ({@code ends[g][-1]}
     * = 0), in draw order. Every frontier position is answered exactly once; the result is {@link #addHop(long[][])}'s
     * with each position's neighbours in its slot, read in place rather than copied out per node first.
     */
    public void addHop(int[][] positions, int[][] ends, long[][] neighbors) {
        addHop(new FrontierAnswers(frontierEnd - frontierStart, positions, ends, neighbors));
    }

    private void addHop(FrontierAnswers answers) {
        int frontier = frontierEnd - frontierStart;
        int edgesBefore = rows.size();
        int room = answers.drawn();
        // At most this many new ids: growing the index step by step rehashed it several times per hop (about a
        // sixth of the hop stage's profile samples in R-MAT 2^20's first epoch).
        rows.ensureCapacity(edgesBefore + room);
        cols.ensureCapacity(edgesBefore + room);
        if (treeIds == null) {
            ids.ensureCapacity(ids.size() + room);
            for (int p = 0; p < frontier; p++) {
                int row = frontierStart + p;
                long[] list = answers.list(p);
                for (int j = answers.from(p), to = answers.to(p); j < to; j++) {
                    rows.add(row);
                    cols.add(ids.add(list[j]));
                }
            }
        } else { // each edge within its frontier node's tree
            treeIds.ensureCapacity(treeIds.size() + room);
            for (int p = 0; p < frontier; p++) {
                int row = frontierStart + p;
                int tree = treeIds.tree(row);
                long[] list = answers.list(p);
                for (int j = answers.from(p), to = answers.to(p); j < to; j++) {
                    rows.add(row);
                    cols.add(treeIds.add(tree, list[j]));
                }
            }
        }
        nodesPerHop.add(size() - frontierEnd);
        edgesPerHop.add(rows.size() - edgesBefore);
        frontierStart = frontierEnd;
        frontierEnd = size();
    }

    /** Node ids, the unique seeds first (disjoint: one per seed), then each hop's new nodes in discovery order. */
    public long[] ids() {
        return treeIds != null ? treeIds.ids(0, treeIds.size()) : ids.toArray();
    }

    /** Edge sources (local indices), in edge order. */
    public int[] rows() {
        return exact(rows);
    }

    /** Edge targets (local indices), in edge order. */
    public int[] cols() {
        return exact(cols);
    }

    /**
     * The list's elements: its own array when exactly full (a resumed batch sized for its hop usually is), else a
     * copy. Sharing is safe: the lists only append, and appending to a full list moves it to a new array.
     */
    private static int[] exact(IntArrayList list) {
        return list.size() == list.elements().length ? list.elements() : list.toIntArray();
    }

    /** The seeds as given (duplicates kept). */
    public long[] batch() {
        return batch.clone();
    }

    /** Per hop, hops+1 entries: [0] = unique seeds. */
    public int[] numSampledNodes() {
        return nodesPerHop.toIntArray();
    }

    /** Per hop, one entry per hop applied (GLT/PyG). */
    public int[] numSampledEdges() {
        return edgesPerHop.toIntArray();
    }

    /** Hops applied so far. */
    public int hops() {
        return edgesPerHop.size();
    }
}
