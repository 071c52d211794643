package io.fanout.sampling.partitioned;

import io.fanout.sampling.LocalIds;
import it.unimi.dsi.fastutil.ints.IntArrayList;

/**
 * One batch's k-hop subgraph growing hop by hop from the sampled neighbours of each frontier node, keyed by node
 * id (no store-wide index): the GLT inducer of {@link io.fanout.sampling.KHopSampler} for a store that answers
 * per node. Fed each hop's answers in frontier order, it builds exactly the sampler's {@code ids}, {@code rows},
 * {@code cols} and per-hop counts, so the answers may arrive in any order as long as they are applied in order.
 *
 * <p>Not thread-safe; one per batch.
 */
public final class BatchAssembly implements HopAssembly {
    private final long[] batch;
    private final LocalIds ids;
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
        this.batch = seeds.clone();
        // The exported ids taken as they are (distinct, in order), the index built once at the next hop with room for
        // it (rebuilding the index by rehashing dominated resuming a big batch; adding them one by one compared each
        // with its bucket's).
        int room = Math.max(drawn, 0);
        this.ids = LocalIds.adopt(ids, ids.length, room);
        this.rows = new IntArrayList(rows.length + room);
        this.cols = new IntArrayList(cols.length + room);
        this.rows.addElements(0, rows);
        this.cols.addElements(0, cols);
        this.nodesPerHop.addElements(0, numSampledNodes);
        this.edgesPerHop.addElements(0, numSampledEdges);
        frontierEnd = ids.length;
        frontierStart = frontierEnd - numSampledNodes[numSampledNodes.length - 1];
    }

    /** The ids of the nodes to expand at the next hop (those first found at the previous hop), in order. */
    @Override
    public long[] frontier() {
        return ids.range(frontierStart, frontierEnd);
    }

    /** Not disjoint: null. */
    @Override
    public int[] frontierTrees() {
        return null;
    }

    /** Not disjoint: null. */
    @Override
    public int[] trees() {
        return null;
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
    @Override
    public void addHop(int[][] positions, int[][] ends, long[][] neighbors) {
        addHop(new FrontierAnswers(frontierEnd - frontierStart, positions, ends, neighbors));
    }

    private void addHop(FrontierAnswers answers) {
        int frontier = frontierEnd - frontierStart;
        int edgesBefore = rows.size();
        int room = answers.drawn();
        // At most this many new ids: growing the index step by step rehashed it several times per hop (about a
        // sixth of the hop stage's profile samples in R-MAT 2^20's first epoch).
        ids.ensureCapacity(ids.size() + room);
        rows.ensureCapacity(edgesBefore + room);
        cols.ensureCapacity(edgesBefore + room);
        for (int p = 0; p < frontier; p++) {
            int row = frontierStart + p;
            long[] list = answers.list(p);
            for (int j = answers.from(p), to = answers.to(p); j < to; j++) {
                rows.add(row);
                cols.add(ids.add(list[j]));
            }
        }
        nodesPerHop.add(ids.size() - frontierEnd);
        edgesPerHop.add(rows.size() - edgesBefore);
        frontierStart = frontierEnd;
        frontierEnd = ids.size();
    }

    /** Node ids, the unique seeds first, then each hop's new nodes in discovery order. */
    @Override
    public long[] ids() {
        return ids.toArray();
    }

    /** Edge sources (local indices), in edge order. */
    @Override
    public int[] rows() {
        return exact(rows);
    }

    /** Edge targets (local indices), in edge order. */
    @Override
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
    @Override
    public long[] batch() {
        return batch.clone();
    }

    /** Per hop, hops+1 entries: [0] = unique seeds. */
    @Override
    public int[] numSampledNodes() {
        return nodesPerHop.toIntArray();
    }

    /** Per hop, one entry per hop applied (GLT/PyG). */
    @Override
    public int[] numSampledEdges() {
        return edgesPerHop.toIntArray();
    }

    /** Hops applied so far. */
    public int hops() {
        return edgesPerHop.size();
    }
}
