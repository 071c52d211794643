package io.fanout.sampling;

import io.fanout.graph.CsrGraph;
import java.util.Arrays;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * PyG's other subgraph types, made from a sampled subgraph's nodes and edges: {@code induced} (every edge of
 * the graph among the sampled nodes) and {@code bidirectional} (the sampled edges plus their reverses).
 *
 * <p>Both keep the nodes, their order and (disjoint) their trees; the edges are no longer grouped by hop, so
 * the result says {@link SampledSubgraph#edgesByHop()} false and messages carry no {@code num_sampled_edges}
 * (PyG's is None then too). Induced: for each node in {@code ids} order, its neighbours in the subgraph in CSR
 * order (parallel edges and self-loops included): O(sum of the sampled nodes' degrees). Bidirectional: every
 * sampled {@code (r, c)} and {@code (c, r)}, duplicates dropped, sorted by (row, col) as PyG's coalesce does;
 * a reversed edge keeps the CSR position (edge id, weight, time) of the sampled one.
 *
 * <p>Not thread-safe: one per sampler. Keeps 8 bytes per graph node (a batch stamp and a local index).
 */
public final class SubgraphInducer {
    private final int[] offsets;
    private final int[] targets;
    private final int[] stamp;
    private final int[] local;
    private int current;

    public SubgraphInducer(CsrGraph graph) {
        Objects.requireNonNull(graph, "graph");
        this.offsets = graph.offsets();
        this.targets = graph.targets();
        this.stamp = new int[graph.numNodes()];
        this.local = new int[graph.numNodes()];
    }

    /** Every graph edge between two nodes of {@code sub} (the sampler must have built it over the same graph). */
    public SampledSubgraph induced(SampledSubgraph sub) {
        if (sub.nodeBatchBuffer() != null) {
            throw new IllegalArgumentException("induced subgraphs of disjoint trees are not supported (nor in PyG)");
        }
        if (++current == Integer.MAX_VALUE) {
            Arrays.fill(stamp, 0);
            current = 1;
        }
        int[] ids = sub.idsBuffer();
        int n = sub.numNodes();
        for (int i = 0; i < n; i++) {
            stamp[ids[i]] = current;
            local[ids[i]] = i;
        }
        int[] rows = new int[Math.max(16, sub.numEdges())];
        int[] cols = new int[rows.length];
        int[] positions = new int[rows.length];
        int m = 0;
        for (int i = 0; i < n; i++) {
            int v = ids[i];
            for (int p = offsets[v]; p < offsets[v + 1]; p++) {
                int u = targets[p];
                if (stamp[u] == current) {
                    if (m == rows.length) {
                        rows = Arrays.copyOf(rows, m * 2);
                        cols = Arrays.copyOf(cols, m * 2);
                        positions = Arrays.copyOf(positions, m * 2);
                    }
                    rows[m] = i;
                    cols[m] = local[u];
                    positions[m++] = p;
                }
            }
        }
        return sub.withEdges(rows, cols, positions, m);
    }

    /** The sampled edges and their reverses, without duplicates, sorted by (row, col). */
    public SampledSubgraph bidirectional(SampledSubgraph sub) {
        Edges e = bidirectional(sub.rowsBuffer(), sub.colsBuffer(), sub.edgePositionsBuffer(), sub.numEdges());
        return sub.withEdges(e.rows(), e.cols(), e.positions(), e.count());
    }

    /**
     * Edges as local index pairs: the first {@code count} entries of each array hold them.
     *
     * @param positions each edge's CSR position (edge id, weight, time), or null when not tracked
     */
    public record Edges(int[] rows, int[] cols, int[] positions, int count) {}

    /**
     * PyG's {@code to_bidirectional} of the edges {@code (r[e], c[e])}, {@code e < m}: each edge and its reverse,
     * duplicates dropped, sorted by (row, col); a reversed edge keeps the sampled one's position. Needs no graph,
     * so a store that answers per node (the partitioned one) makes the same edges from its sample.
     */
    public static Edges bidirectional(int[] r, int[] c, int[] pos, int m) {
        long[] keys = new long[2 * m];
        for (int e = 0; e < m; e++) {
            keys[e] = (long) r[e] << 32 | c[e];
            keys[m + e] = (long) c[e] << 32 | r[e];
        }
        int[] rows = new int[2 * m];
        int[] cols = new int[2 * m];
        if (pos == null) { // equal pairs are equal edges: a plain sort
            Arrays.sort(keys);
            int out = 0;
            for (int k = 0; k < keys.length; k++) {
                if (k == 0 || keys[k] != keys[k - 1]) {
                    rows[out] = (int) (keys[k] >>> 32);
                    cols[out++] = (int) keys[k];
                }
            }
            return new Edges(rows, cols, null, out);
        }
        // Stable by key, so of two equal pairs the sampled one (lower index) comes first and is kept.
        int[] order = IntStream.range(0, 2 * m).boxed().sorted((a, b) -> Long.compare(keys[a], keys[b]))
                .mapToInt(Integer::intValue).toArray();
        int[] positions = new int[2 * m];
        int out = 0;
        for (int k = 0; k < order.length; k++) {
            int e = order[k];
            if (k > 0 && keys[e] == keys[order[k - 1]]) {
                continue;
            }
            rows[out] = (int) (keys[e] >>> 32);
            cols[out] = (int) keys[e];
            positions[out++] = pos[e % m];
        }
        return new Edges(rows, cols, positions, out);
    }
}
