package io.fanout.sampling.partitioned;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.Arrays;

/**
 * One batch's k-hop subgraph growing hop by hop from the sampled neighbours of each frontier node, keyed by node
 * id (no store-wide index): the GLT inducer of {@link io.fanout.sampling.KHopSampler} for a store that answers
 * per node. Fed each hop's answers in frontier order, it builds exactly the sampler's {@code ids}, {@code rows},
 * {@code cols} and per-hop counts, so the answers may arrive in any order as long as they are applied in order.
 *
 * <p>Not thread-safe; one per batch.
 */
public final class BatchAssembly {
    private final long[] batch;
    private final LongArrayList ids;
    private final Long2IntOpenHashMap local;
    private final IntArrayList rows = new IntArrayList();
    private final IntArrayList cols = new IntArrayList();
    private final IntArrayList nodesPerHop = new IntArrayList();
    private final IntArrayList edgesPerHop = new IntArrayList();
    private int frontierStart;
    private int frontierEnd;

    /** Starts a batch: its unique seeds, in first-occurrence order, are hop 0. */
    public BatchAssembly(long[] seeds) {
        this.batch = seeds.clone();
        ids = new LongArrayList(seeds.length);
        local = new Long2IntOpenHashMap(seeds.length);
        local.defaultReturnValue(-1);
        for (long s : seeds) {
            localIndex(s);
        }
        nodesPerHop.add(ids.size());
        frontierEnd = ids.size();
    }

    /**
     * Resumes a batch from its exported state ({@link #ids()}, {@link #rows()}, {@link #cols()},
     * {@link #numSampledNodes()}, {@link #numSampledEdges()}): how a keyed operator carries it between hops.
     */
    public BatchAssembly(long[] seeds, long[] ids, int[] rows, int[] cols, int[] numSampledNodes, int[] numSampledEdges) {
        this.batch = seeds.clone();
        // Sized for the ids it resumes with (rebuilding the index by rehashing dominated resuming a big batch).
        this.ids = new LongArrayList(ids.length);
        local = new Long2IntOpenHashMap(ids.length);
        local.defaultReturnValue(-1);
        for (long id : ids) {
            localIndex(id);
        }
        this.rows.addElements(0, rows);
        this.cols.addElements(0, cols);
        this.nodesPerHop.addElements(0, numSampledNodes);
        this.edgesPerHop.addElements(0, numSampledEdges);
        frontierEnd = ids.length;
        frontierStart = frontierEnd - numSampledNodes[numSampledNodes.length - 1];
    }

    private int localIndex(long id) {
        // One probe: the index of a known id, or the default (-1) once the new one is in.
        int at = local.putIfAbsent(id, ids.size());
        if (at < 0) {
            at = ids.size();
            ids.add(id);
        }
        return at;
    }

    /** The ids of the nodes to expand at the next hop (those first found at the previous hop), in order. */
    public long[] frontier() {
        return Arrays.copyOfRange(ids.elements(), frontierStart, frontierEnd);
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
        int edgesBefore = rows.size();
        int drawn = 0;
        for (long[] list : neighbors) {
            drawn += list.length;
        }
        // At most this many new ids: growing the index step by step rehashed it several times per hop (about a
        // sixth of the hop stage's profile samples in R-MAT 2^20's first epoch).
        local.ensureCapacity(ids.size() + drawn);
        ids.ensureCapacity(ids.size() + drawn);
        rows.ensureCapacity(edgesBefore + drawn);
        cols.ensureCapacity(edgesBefore + drawn);
        for (int i = 0; i < neighbors.length; i++) {
            int row = frontierStart + i;
            for (long u : neighbors[i]) {
                rows.add(row);
                cols.add(localIndex(u));
            }
        }
        nodesPerHop.add(ids.size() - frontierEnd);
        edgesPerHop.add(rows.size() - edgesBefore);
        frontierStart = frontierEnd;
        frontierEnd = ids.size();
    }

    /** Node ids, the unique seeds first, then each hop's new nodes in discovery order. */
    public long[] ids() {
        return ids.toLongArray();
    }

    public int[] rows() {
        return rows.toIntArray();
    }

    public int[] cols() {
        return cols.toIntArray();
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
