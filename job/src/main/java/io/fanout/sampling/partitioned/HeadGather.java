package io.fanout.sampling.partitioned;

import io.fanout.sampling.FloydDraws;
import java.util.Arrays;

/**
 * Samples a group of nodes (one lookup subtask's share of a batch's frontier at one hop) from their heads in three
 * passes over the group: every head's degree, then every node's draws, then every pick's neighbour. The same
 * neighbours, in the same order, as {@link NeighborPicks#positions} and {@link NeighborBuckets#gatherFromHead}
 * node by node.
 *
 * <p>Why passes: the heads lie all over the heap (or the cache), and the first read of one is a cache miss. Node
 * by node, each node's reads waited for the previous node's draws; within a pass the reads of different nodes do not
 * depend on each other, so the CPU keeps several in flight, as {@link io.fanout.sampling.KHopSampler}'s two passes
 * per hop do for the in-memory store (R-MAT 2^18 x 16, p=2, heap backend, 20 epochs: 14.2-17.1 M sampled edges/s
 * node by node, 16.6-20.1 M in passes).
 *
 * <p>Not thread-safe (it keeps scratch arrays); one per lookup subtask.
 */
public final class HeadGather {
    /** Reads bucket {@code bucket} (1 and up) of the group's {@code index}-th node, a node longer than one bucket. */
    @FunctionalInterface
    public interface LaterBuckets {
        long[] read(int index, int bucket) throws Exception;
    }

    private final NeighborBuckets layout;
    private int[] degrees = new int[0];
    private int[] picks = new int[0];
    private int[] set = new int[0];
    /** One node's draws, before they join the group's. */
    private int[] draw = new int[0];

    /** For heads cut by {@code layout}. */
    public HeadGather(NeighborBuckets layout) {
        this.layout = layout;
    }

    /**
     * The sampled neighbours of {@code nodes[0 .. n)}, whose heads are {@code heads[0 .. n)}, node after node; node
     * {@code i}'s are {@code [ends[i-1], ends[i])} ({@code ends[-1]} = 0) of the returned array, in draw order.
     *
     * @param fanout the hop's fanout, {@code >= 1} or {@code -1}
     * @param ends at least {@code n} long, filled here
     * @param later reads the later buckets of a node longer than one bucket, only when a pick falls there
     */
    public long[] gather(long[] nodes, long[][] heads, int n, long seed, int epoch, int batchId, int hop, int fanout,
            boolean replace, int[] ends, LaterBuckets later) throws Exception {
        return gather(nodes, null, heads, n, seed, epoch, batchId, hop, fanout, replace, ends, later);
    }

    /**
     * As above, node {@code i} drawing in disjoint tree {@code trees[i]} ({@link NeighborPicks#state}); {@code trees}
     * null: one de-duplicated subgraph per batch.
     */
    public long[] gather(long[] nodes, int[] trees, long[][] heads, int n, long seed, int epoch, int batchId, int hop,
            int fanout, boolean replace, int[] ends, LaterBuckets later) throws Exception {
        if (degrees.length < n) {
            degrees = new int[Math.max(n, degrees.length * 2)];
        }
        final int[] degrees = this.degrees;
        // Pass 1: each head's first read.
        for (int i = 0; i < n; i++) {
            degrees[i] = NeighborBuckets.degreeOf(heads[i]);
        }
        int total = 0;
        for (int i = 0; i < n; i++) {
            total = Math.addExact(total, NeighborPicks.count(degrees[i], fanout, replace));
            ends[i] = total;
        }
        if (picks.length < total) {
            picks = new int[Math.max(total, picks.length * 2)];
        }
        final int[] picks = this.picks;
        // Pass 2: the draws (computation only), all the group's positions in one array.
        final int size = layout.size();
        for (int i = 0, from = 0; i < n; from = ends[i++]) {
            int d = degrees[i];
            if (ends[i] == from || (d <= size && NeighborPicks.takesAll(d, fanout, replace))) {
                continue; // nothing, or the whole head in list order: copied below
            }
            if (!replace && FloydDraws.needsSet(d, fanout) && set.length < FloydDraws.setSize(fanout)) {
                set = new int[FloydDraws.setSize(fanout)];
            }
            int k = ends[i] - from;
            if (draw.length < k) {
                draw = new int[k];
            }
            NeighborPicks.draw(seed, epoch, batchId, hop, trees == null ? -1 : trees[i], nodes[i], d, fanout, replace,
                    draw, set);
            System.arraycopy(draw, 0, picks, from, k);
        }
        // Pass 3: the picks' neighbours.
        final long[] neighbors = new long[total];
        for (int i = 0, from = 0; i < n; from = ends[i++]) {
            int d = degrees[i];
            int k = ends[i] - from;
            if (k == 0) {
                continue;
            }
            long[] head = heads[i];
            if (d <= size) {
                if (NeighborPicks.takesAll(d, fanout, replace)) {
                    System.arraycopy(head, 1, neighbors, from, d);
                } else {
                    for (int j = from; j < from + k; j++) {
                        neighbors[j] = head[1 + picks[j]];
                    }
                }
                continue;
            }
            // Longer than one bucket (rare): the bucket path, reading each later bucket a pick falls in once.
            final int index = i;
            long[] got = layout.gatherFromHead(Arrays.copyOfRange(picks, from, from + k), head,
                    bucket -> later.read(index, bucket));
            System.arraycopy(got, 0, neighbors, from, k);
        }
        return neighbors;
    }
}
