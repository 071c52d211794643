package io.fanout.sampling.partitioned;

import io.fanout.random.SplitMix64;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.Arrays;

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
public final class DisjointBatchAssembly {
    private final long[] batch;
    private final LongArrayList ids;
    private final IntArrayList trees;
    private final IntArrayList rows;
    private final IntArrayList cols;
    private final IntArrayList nodesPerHop = new IntArrayList();
    private final IntArrayList edgesPerHop = new IntArrayList();
    /** Open addressing over (tree, id): the local index of each, -1 = empty slot. */
    private int[] slots;
    private int frontierStart;
    private int frontierEnd;

    /** Starts a batch: seed {@code i} is node {@code i}, the root of tree {@code i}. */
    public DisjointBatchAssembly(long[] seeds) {
        this.batch = seeds.clone();
        ids = new LongArrayList(seeds.length);
        trees = new IntArrayList(seeds.length);
        rows = new IntArrayList();
        cols = new IntArrayList();
        slots = emptySlots(seeds.length);
        for (int t = 0; t < seeds.length; t++) {
            add(t, seeds[t]);
        }
        nodesPerHop.add(ids.size());
        frontierEnd = ids.size();
    }

    /**
     * Resumes a batch from its exported state ({@link #ids()}, {@link #trees()}, {@link #rows()}, {@link #cols()}
     * and the per-hop counts), with room for a next hop of {@code drawn} sampled neighbours.
     */
    public DisjointBatchAssembly(long[] seeds, long[] ids, int[] trees, int[] rows, int[] cols, int[] numSampledNodes,
            int[] numSampledEdges, int drawn) {
        if (trees.length != ids.length) {
            throw new IllegalArgumentException(ids.length + " nodes but " + trees.length + " tree indices");
        }
        this.batch = seeds.clone();
        int room = Math.max(drawn, 0);
        this.ids = new LongArrayList(ids.length + room);
        this.trees = new IntArrayList(ids.length + room);
        this.rows = new IntArrayList(rows.length + room);
        this.cols = new IntArrayList(cols.length + room);
        this.rows.addElements(0, rows);
        this.cols.addElements(0, cols);
        slots = emptySlots(ids.length + room);
        for (int i = 0; i < ids.length; i++) {
            if (add(trees[i], ids[i]) != i) {
                throw new IllegalArgumentException("node " + ids[i] + " twice in tree " + trees[i]);
            }
        }
        this.nodesPerHop.addElements(0, numSampledNodes);
        this.edgesPerHop.addElements(0, numSampledEdges);
        frontierEnd = ids.length;
        frontierStart = frontierEnd - numSampledNodes[numSampledNodes.length - 1];
    }

    /** The node ids to expand at the next hop (those first found in their tree at the previous hop), in order. */
    public long[] frontier() {
        return Arrays.copyOfRange(ids.elements(), frontierStart, frontierEnd);
    }

    /** The tree of each {@link #frontier()} node: the stream it draws from. */
    public int[] frontierTrees() {
        return Arrays.copyOfRange(trees.elements(), frontierStart, frontierEnd);
    }

    /**
     * Applies one hop given as answer groups (as {@link BatchAssembly#addHop(int[][], int[][], long[][])}): every
     * pair becomes an edge within the frontier node's tree; a neighbour new to that tree joins the next frontier.
     */
    public void addHop(int[][] positions, int[][] ends, long[][] neighbors) {
        FrontierAnswers answers = new FrontierAnswers(frontierEnd - frontierStart, positions, ends, neighbors);
        int frontier = frontierEnd - frontierStart;
        int edgesBefore = rows.size();
        int room = answers.drawn();
        rows.ensureCapacity(edgesBefore + room);
        cols.ensureCapacity(edgesBefore + room);
        if ((ids.size() + room) * 2L > slots.length) {
            rehash(ids.size() + room);
        }
        for (int p = 0; p < frontier; p++) {
            int row = frontierStart + p;
            int tree = trees.getInt(row);
            long[] list = answers.list(p);
            for (int j = answers.from(p), to = answers.to(p); j < to; j++) {
                rows.add(row);
                cols.add(add(tree, list[j]));
            }
        }
        nodesPerHop.add(ids.size() - frontierEnd);
        edgesPerHop.add(rows.size() - edgesBefore);
        frontierStart = frontierEnd;
        frontierEnd = ids.size();
    }

    /** The local index of {@code id} in tree {@code tree}, added at the end when the tree does not hold it yet. */
    private int add(int tree, long id) {
        if ((ids.size() + 1) * 2L > slots.length) {
            rehash(ids.size() + 1);
        }
        int mask = slots.length - 1;
        for (int s = slot(tree, id, mask); ; s = (s + 1) & mask) {
            int local = slots[s];
            if (local < 0) {
                slots[s] = ids.size();
                ids.add(id);
                trees.add(tree);
                return slots[s];
            }
            if (ids.getLong(local) == id && trees.getInt(local) == tree) {
                return local;
            }
        }
    }

    private static int slot(int tree, long id, int mask) {
        return (int) SplitMix64.mix(id * 0x9E3779B97F4A7C15L + tree) & mask;
    }

    private static int[] emptySlots(int expected) {
        int[] slots = new int[Math.max(16, Integer.highestOneBit(Math.max(expected, 1) * 2 - 1) << 1)];
        Arrays.fill(slots, -1);
        return slots;
    }

    /** Rebuilds the slots for at least {@code expected} nodes, from the node list. */
    private void rehash(int expected) {
        slots = emptySlots(expected);
        int mask = slots.length - 1;
        for (int i = 0; i < ids.size(); i++) {
            int s = slot(trees.getInt(i), ids.getLong(i), mask);
            while (slots[s] >= 0) {
                s = (s + 1) & mask;
            }
            slots[s] = i;
        }
    }

    /** Node ids, one per (tree, node): the seeds first (one per tree), then each hop's new nodes in order. */
    public long[] ids() {
        return ids.toLongArray();
    }

    /** Each node's tree: the index in {@link #batch()} of its seed (PyG's disjoint {@code batch} vector). */
    public int[] trees() {
        return trees.toIntArray();
    }

    /** Edge sources (local indices), in edge order. */
    public int[] rows() {
        return rows.toIntArray();
    }

    /** Edge targets (local indices), in edge order. */
    public int[] cols() {
        return cols.toIntArray();
    }

    /** The seeds as given (duplicates kept, each its own tree). */
    public long[] batch() {
        return batch.clone();
    }

    /** Per hop, hops+1 entries: [0] = the seeds. */
    public int[] numSampledNodes() {
        return nodesPerHop.toIntArray();
    }

    /** Per hop, one entry per hop applied (GLT/PyG). */
    public int[] numSampledEdges() {
        return edgesPerHop.toIntArray();
    }
}
