package io.fanout.sampling.hetero;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.message.TensorMessage;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Checks a typed k-hop message against the graph files read independently ({@link TypedReference}): every edge is
 * an edge of its type in the right direction (with edge ids: exactly the file row it names), every node a hop
 * expands was new at the previous hop, and each gets exactly min(f, deg) distinct edges per edge type.
 */
public final class HeteroMessageChecks {
    private HeteroMessageChecks() {
    }

    /**
     * @param fanouts file edge type -> per-hop fanouts
     * @param withEdgeIds the message carries {etype}.eids
     * @return the number of edges checked
     */
    public static long check(TensorMessage m, TypedReference ref, Map<EdgeType, int[]> fanouts,
            EdgeDirection direction, boolean withEdgeIds) {
        assertThat(m.get("#IS_HETERO").asLongArray()).containsExactly(1L);
        long checked = 0;
        for (Map.Entry<EdgeType, int[]> e : fanouts.entrySet()) {
            EdgeType fileType = e.getKey();
            int[] f = e.getValue();
            EdgeType reported = direction == EdgeDirection.OUT ? fileType.reversed() : fileType;
            String key = reported.toString();
            TypedReference.TypeEdges edges = ref.types.get(fileType);
            long[] rows = m.get(key + ".rows").asLongArray();
            long[] cols = m.get(key + ".cols").asLongArray();
            long[] perHop = m.get(key + ".num_sampled_edges").asLongArray();
            assertThat(perHop).hasSize(f.length);
            assertThat(rows).hasSameSizeAs(cols);
            long[] nbrIds = m.get(reported.src() + ".ids").asLongArray();
            long[] frontierIds = m.get(reported.dst() + ".ids").asLongArray();
            long[] frontierCounts = m.get(reported.dst() + ".num_sampled_nodes").asLongArray();
            long[] eids = withEdgeIds ? m.get(key + ".eids").asLongArray() : null;
            int at = 0;
            long hopStart = 0;
            for (int h = 0; h < f.length; h++) {
                long hopEnd = hopStart + frontierCounts[h];
                Map<Integer, Integer> count = new HashMap<>();
                Map<Integer, Set<Long>> distinct = new HashMap<>();
                for (long k = 0; k < perHop[h]; k++, at++) {
                    int c = (int) cols[at];
                    assertThat(c).as("%s hop %d expands a node new at the previous hop", key, h + 1)
                            .isBetween((int) hopStart, (int) hopEnd - 1);
                    long frontier = frontierIds[c];
                    long nbr = nbrIds[(int) rows[at]];
                    long src = direction == EdgeDirection.OUT ? frontier : nbr;
                    long dst = direction == EdgeDirection.OUT ? nbr : frontier;
                    assertThat(edges.has(src, dst)).as("%s: %d -> %d is an edge of %s", key, src, dst, fileType)
                            .isTrue();
                    count.merge(c, 1, Integer::sum);
                    if (eids != null) {
                        long[] row = edges.rows.get((int) eids[at]);
                        assertThat(row[0] == src && row[1] == dst || !edges.directed && row[0] == dst && row[1] == src)
                                .as("%s eid %d is the row of %d -> %d", key, eids[at], src, dst).isTrue();
                        distinct.computeIfAbsent(c, x -> new HashSet<>()).add(eids[at]);
                    }
                    checked++;
                }
                for (long c = hopStart; c < hopEnd; c++) {
                    int deg = edges.degree(frontierIds[(int) c], direction);
                    int expected = f[h] < 0 ? deg : Math.min(f[h], deg);
                    int got = count.getOrDefault((int) c, 0);
                    assertThat(got).as("%s hop %d: edges of node %d (degree %d, fanout %d)", key, h + 1,
                            frontierIds[(int) c], deg, f[h]).isEqualTo(expected);
                    if (eids != null) {
                        assertThat(distinct.getOrDefault((int) c, Set.of())).as("distinct edges").hasSize(got);
                    }
                }
                hopStart = hopEnd;
            }
            assertThat(at).isEqualTo(rows.length);
        }
        return checked;
    }
}
