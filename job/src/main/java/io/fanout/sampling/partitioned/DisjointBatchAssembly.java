package io.fanout.sampling.partitioned;

import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * One batch's disjoint k-hop trees (PyG {@code disjoint=True}) growing hop by hop from the answers of a store that
 * answers per node: {@link io.fanout.sampling.DisjointKHopSampler}'s layout, keyed by node id. Every seed is its own
 * tree (a seed given twice is two trees); within a tree a node is added once, across trees nothing is shared. Fed each
 * hop's answers in frontier order, it builds exactly the sampler's {@code ids}, {@code trees} (PyG's {@code batch}
 * vector), {@code rows}, {@code cols} and per-hop counts; the lookups draw each frontier node from its tree's stream
 * ({@link NeighborPicks#state}).
 *
 * <p>Not thread-safe; one per batch.
 */
public final class DisjointBatchAssembly implements HopAssembly {
    private final long[] batch;
    private final TreeLocalIds nodes;
    private final IntArrayList rows;
    private final IntArrayList cols;
    private final IntArrayList nodesPerHop = new IntArrayList();
    private final IntArrayList edgesPerHop = new IntArrayList();
    private int frontierStart;
    private int frontierEnd;

    /** Starts a batch: seed {@code i} is node {@code i}, the root of tree {@code i}. */
    public DisjointBatchAssembly(long[] seeds) {
        this.batch = seeds.clone();
        nodes = new TreeLocalIds(seeds.length);
        rows = new IntArrayList();
        cols = new IntArrayList();
        for (int t = 0; t < seeds.length; t++) {
            nodes.add(t, seeds[t]);
        }
        nodesPerHop.add(nodes.size());
        frontierEnd = nodes.size();
    }

    /**
     * Resumes a batch from its exported state ({@link #ids()}, {@link #trees()}, {@link #rows()}, {@link #cols()}
     * and the per-hop counts), with room for a next hop of {@code drawn} sampled neighbours.
     */
    public DisjointBatchAssembly(long[] seeds, long[] ids, int[] trees, int[] rows, int[] cols, int[] numSampledNodes,
            int[] numSampledEdges, int drawn) {
        this.batch = seeds.clone();
        int room = Math.max(drawn, 0);
        this.nodes = TreeLocalIds.of(ids, trees, room);
        this.rows = new IntArrayList(rows.length + room);
        this.cols = new IntArrayList(cols.length + room);
        this.rows.addElements(0, rows);
        this.cols.addElements(0, cols);
        this.nodesPerHop.addElements(0, numSampledNodes);
        this.edgesPerHop.addElements(0, numSampledEdges);
        frontierEnd = ids.length;
        frontierStart = frontierEnd - numSampledNodes[numSampledNodes.length - 1];
    }

    /** The node ids to expand at the next hop (those first found in their tree at the previous hop), in order. */
    @Override
    public long[] frontier() {
        return nodes.ids(frontierStart, frontierEnd);
    }

    /** The tree of each {@link #frontier()} node: the stream it draws from. */
    @Override
    public int[] frontierTrees() {
        return nodes.trees(frontierStart, frontierEnd);
    }

    /**
     * Applies one hop given as answer groups (as {@link BatchAssembly#addHop(int[][], int[][], long[][])}): every
     * pair becomes an edge within the frontier node's tree; a neighbour new to that tree joins the next frontier.
     */
    @Override
    public void addHop(int[][] positions, int[][] ends, long[][] neighbors) {
        FrontierAnswers answers = new FrontierAnswers(frontierEnd - frontierStart, positions, ends, neighbors);
        int frontier = frontierEnd - frontierStart;
        int edgesBefore = rows.size();
        int room = answers.drawn();
        rows.ensureCapacity(edgesBefore + room);
        cols.ensureCapacity(edgesBefore + room);
        nodes.ensureCapacity(nodes.size() + room);
        for (int p = 0; p < frontier; p++) {
            int row = frontierStart + p;
            int tree = nodes.tree(row);
            long[] list = answers.list(p);
            for (int j = answers.from(p), to = answers.to(p); j < to; j++) {
                rows.add(row);
                cols.add(nodes.add(tree, list[j]));
            }
        }
        nodesPerHop.add(nodes.size() - frontierEnd);
        edgesPerHop.add(rows.size() - edgesBefore);
        frontierStart = frontierEnd;
        frontierEnd = nodes.size();
    }

    /** Node ids, one per (tree, node): the seeds first (one per tree), then each hop's new nodes in order. */
    @Override
    public long[] ids() {
        return nodes.ids(0, nodes.size());
    }

    /** Each node's tree: the index in {@link #batch()} of its seed (PyG's disjoint {@code batch} vector). */
    @Override
    public int[] trees() {
        return nodes.trees(0, nodes.size());
    }

    /** Edge sources (local indices), in edge order. */
    @Override
    public int[] rows() {
        return rows.toIntArray();
    }

    /** Edge targets (local indices), in edge order. */
    @Override
    public int[] cols() {
        return cols.toIntArray();
    }

    /** The seeds as given (duplicates kept, each its own tree). */
    @Override
    public long[] batch() {
        return batch.clone();
    }

    /** Per hop, hops+1 entries: [0] = the seeds. */
    @Override
    public int[] numSampledNodes() {
        return nodesPerHop.toIntArray();
    }

    /** Per hop, one entry per hop applied (GLT/PyG). */
    @Override
    public int[] numSampledEdges() {
        return edgesPerHop.toIntArray();
    }
}
