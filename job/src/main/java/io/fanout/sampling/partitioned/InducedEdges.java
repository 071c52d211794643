package io.fanout.sampling.partitioned;

import io.fanout.sampling.LocalIds;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Arrays;

/**
 * PyG's {@code subgraph_type="induced"} for a store that answers per node: every graph edge between two of a batch's
 * sampled nodes, made from each node's whole neighbour list as its owner reads it. The owner keeps only the
 * neighbours in the batch ({@link #keepMembers}); the batch then lists, for each node in {@code ids} order, its kept
 * neighbours in list order (parallel edges and self-loops included): exactly
 * {@link io.fanout.sampling.SubgraphInducer#induced}'s edges, as the lists are in the in-memory store's order.
 */
public final class InducedEdges {
    private InducedEdges() {}

    /**
     * Keeps, of each node's list {@code neighbors[ends[i-1] .. ends[i])} ({@code i < n}), the neighbours in
     * {@code sortedMembers}, in list order; {@code ends} is rewritten for the kept ones.
     *
     * @return the kept neighbours, node after node
     */
    public static long[] keepMembers(long[] neighbors, int[] ends, int n, long[] sortedMembers) {
        long[] kept = new long[neighbors.length];
        int out = 0;
        for (int i = 0, from = 0; i < n; i++) {
            int to = ends[i];
            for (int j = from; j < to; j++) {
                if (Arrays.binarySearch(sortedMembers, neighbors[j]) >= 0) {
                    kept[out++] = neighbors[j];
                }
            }
            from = to;
            ends[i] = out;
        }
        return out == kept.length ? kept : Arrays.copyOf(kept, out);
    }

    /** The batch's induced edges as local index pairs: {@code rows} then {@code cols}. */
    public record Edges(int[] rows, int[] cols) {}

    /**
     * The induced edges of the batch whose nodes are {@code ids} (distinct), given every node's kept neighbours as
     * answer groups: group {@code g} answered {@code ids} positions {@code positions[g][i]} with
     * {@code neighbors[g][ends[g][i-1] .. ends[g][i])}; each position answered exactly once.
     */
    public static Edges of(long[] ids, int[][] positions, int[][] ends, long[][] neighbors) {
        FrontierAnswers answers = new FrontierAnswers(ids.length, positions, ends, neighbors);
        LocalIds local = LocalIds.adopt(ids, ids.length, 0);
        int m = answers.drawn();
        IntArrayList rows = new IntArrayList(m);
        IntArrayList cols = new IntArrayList(m);
        for (int p = 0; p < ids.length; p++) {
            long[] list = answers.list(p);
            for (int j = answers.from(p), to = answers.to(p); j < to; j++) {
                int c = local.add(list[j]);
                if (c >= ids.length) {
                    throw new IllegalArgumentException("node " + ids[p] + " answered neighbour " + list[j]
                            + ", which is not in the batch");
                }
                rows.add(p);
                cols.add(c);
            }
        }
        return new Edges(rows.toIntArray(), cols.toIntArray());
    }
}
