package io.fanout.sampling.hetero;

import io.fanout.graph.typed.EdgeType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * PyG's {@code subgraph_type="bidirectional"} on a typed sample ({@code HeteroSamplerOutput.to_bidirectional}):
 * every edge type not named {@code rev_*} gets the reverses of its partner's edges, without duplicates. A type
 * within one node type without a {@code rev_} partner is made symmetric; a type whose {@code (dst, rev_rel, src)}
 * partner was sampled gets the partner's edges reversed, and the partner the union reversed; any other type gets the
 * reversed edges of the one edge type going the other way between its node types, if there is exactly one, and is
 * left as sampled otherwise. Edges come out in PyG's coalesced order (by destination, then source), edge ids and
 * per-hop edge counts are dropped (PyG sets them to None), so messages carry no {@code eids} or
 * {@code num_sampled_edges} for the types it changed.
 */
public final class HeteroBidirectional {
    private HeteroBidirectional() {}

    /** One edge type's edges as local index pairs: {@code rows} into its source type, {@code cols} its destination. */
    public record Pairs(int[] rows, int[] cols) {}

    /** {@code sub} with bidirectional edges; nodes unchanged. */
    public static HeteroSubgraph of(HeteroSubgraph sub) {
        Map<EdgeType, Pairs> in = new TreeMap<>();
        sub.edges.forEach((type, e) -> in.put(type, new Pairs(e.rows, e.cols)));
        Map<EdgeType, HeteroSubgraph.Edges> out = new TreeMap<>(sub.edges);
        changed(in).forEach((type, p) -> out.put(type,
                new HeteroSubgraph.Edges(sub.edges.get(type).adjacency, p.rows(), p.cols(), null, null)));
        return new HeteroSubgraph(sub.seedTypes, sub.nodes, out);
    }

    /**
     * The edge types that {@code to_bidirectional} changes among {@code in} (every reported edge type of a sample,
     * sampled edges or none), each with its new pairs; the others stay as sampled. Needs no graph, so a store that
     * answers per node (the partitioned one) makes the same edges from its sample.
     */
    public static Map<EdgeType, Pairs> changed(Map<EdgeType, Pairs> in) {
        Map<EdgeType, Pairs> out = new TreeMap<>();
        for (EdgeType type : in.keySet()) {
            if (type.rel().startsWith("rev_")) {
                continue;
            }
            Pairs edges = in.get(type);
            EdgeType rev = new EdgeType(type.dst(), "rev_" + type.rel(), type.src());
            if (type.src().equals(type.dst()) && !in.containsKey(rev)) {
                out.put(type, union(edges, edges));
            } else if (in.containsKey(rev)) {
                Pairs both = union(edges, in.get(rev));
                out.put(type, both);
                out.put(rev, new Pairs(both.cols(), both.rows())); // PyG swaps the two arrays
            } else {
                List<EdgeType> back = new ArrayList<>();
                for (EdgeType other : in.keySet()) {
                    if (other.src().equals(type.dst()) && other.dst().equals(type.src())) {
                        back.add(other);
                    }
                }
                if (back.size() == 1) {
                    out.put(type, union(edges, in.get(back.get(0))));
                }
            }
        }
        return out;
    }

    /** {@code a}'s edges and {@code b}'s reversed, de-duplicated, sorted by (col, row) as PyG's coalesce. */
    private static Pairs union(Pairs a, Pairs b) {
        int na = a.rows().length;
        int n = na + b.rows().length;
        long[] keys = new long[n];
        for (int i = 0; i < na; i++) {
            keys[i] = (long) a.cols()[i] << 32 | a.rows()[i];
        }
        for (int i = 0; i < b.rows().length; i++) {
            keys[na + i] = (long) b.rows()[i] << 32 | b.cols()[i]; // reversed: its col is our row
        }
        Arrays.sort(keys);
        int[] rows = new int[n];
        int[] cols = new int[n];
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (i > 0 && keys[i] == keys[i - 1]) {
                continue;
            }
            cols[m] = (int) (keys[i] >>> 32);
            rows[m++] = (int) keys[i];
        }
        return new Pairs(Arrays.copyOf(rows, m), Arrays.copyOf(cols, m));
    }
}
