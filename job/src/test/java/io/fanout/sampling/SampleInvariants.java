package io.fanout.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.CsrGraph;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/** Checks every structural promise of a {@link SampledSubgraph} against the graph it was sampled from. */
final class SampleInvariants {
    private SampleInvariants() {
    }

    /**
     * Asserts the de-dup, hop bookkeeping, edge existence and per-node sample-size contract of
     * {@link KHopSampler} for one sample.
     */
    static void check(CsrGraph graph, int[] fanouts, boolean replace, int[] seeds, SampledSubgraph s) {
        int[] ids = s.ids();
        int[] rows = s.rows();
        int[] cols = s.cols();
        int hops = fanouts.length;

        assertThat(s.batch()).as("batch is the seeds as given").containsExactly(seeds);
        assertThat(s.batch()).as("batch is a copy").isNotSameAs(seeds);
        assertThat(s.numSampledNodes()).hasSize(hops + 1);
        assertThat(s.numSampledEdges()).as("one entry per hop, as GLT and PyG").hasSize(hops);
        assertThat(Arrays.stream(s.numSampledNodes()).sum()).isEqualTo(ids.length);
        assertThat(Arrays.stream(s.numSampledEdges()).sum()).isEqualTo(rows.length);
        assertThat(cols).hasSameSizeAs(rows);

        // De-dup: ids unique; hop 0 = unique seeds in first-occurrence order.
        assertThat(new HashSet<>(box(ids))).as("ids are unique").hasSize(ids.length);
        Set<Integer> uniqueSeeds = new LinkedHashSet<>(box(seeds));
        assertThat(s.numSampledNodes()[0]).isEqualTo(uniqueSeeds.size());
        assertThat(box(Arrays.copyOf(ids, uniqueSeeds.size()))).containsExactlyElementsOf(uniqueSeeds);

        int nodeStart = 0; // first local index of the nodes found at hop h-1 (the frontier of hop h)
        int nodeEnd = s.numSampledNodes()[0];
        int edge = 0;
        for (int h = 1; h <= hops; h++) {
            int f = fanouts[h - 1];
            int edgeEnd = edge + s.numSampledEdges()[h - 1];
            int newEnd = nodeEnd + s.numSampledNodes()[h];
            // Per frontier node: its edges are contiguous, in frontier order, of the promised count.
            Map<Integer, int[]> edgesOf = new HashMap<>();
            int previousRow = -1;
            Set<Integer> seen = new HashSet<>(box(Arrays.copyOf(ids, nodeEnd)));
            int discovered = nodeEnd;
            for (int e = edge; e < edgeEnd; e++) {
                int r = rows[e];
                int c = cols[e];
                assertThat(r).as("hop %d edge %d expands a node found at hop %d", h, e, h - 1)
                        .isBetween(nodeStart, nodeEnd - 1);
                assertThat(r).as("hop %d edges follow frontier order", h).isGreaterThanOrEqualTo(previousRow);
                previousRow = r;
                assertThat(c).as("hop %d edge %d points into the batch so far", h, e).isBetween(0, newEnd - 1);
                assertThat(graph.hasEdge(ids[r], ids[c]))
                        .as("sampled edge %d -> %d is in the graph", ids[r], ids[c]).isTrue();
                if (seen.add(ids[c])) {
                    assertThat(c).as("a new neighbour is appended to ids in discovery order").isEqualTo(discovered);
                    discovered++;
                }
                edgesOf.computeIfAbsent(r, k -> new int[0]);
                int[] old = edgesOf.get(r);
                int[] grown = Arrays.copyOf(old, old.length + 1);
                grown[old.length] = ids[c];
                edgesOf.put(r, grown);
            }
            assertThat(discovered).as("hop %d discovers exactly numSampledNodes[%d] nodes", h, h).isEqualTo(newEnd);
            for (int r = nodeStart; r < nodeEnd; r++) {
                int v = ids[r];
                int d = graph.degree(v);
                int[] picked = edgesOf.getOrDefault(r, new int[0]);
                int expected = f == -1 ? d : replace ? (d == 0 ? 0 : f) : Math.min(f, d);
                assertThat(picked.length).as("node %d (degree %d) at hop %d with fanout %d", v, d, h, f)
                        .isEqualTo(expected);
                if (f == -1 || (!replace && d <= f)) {
                    assertThat(picked).as("all neighbours of %d in CSR order", v).containsExactly(neighbours(graph, v));
                } else if (!replace) {
                    assertDistinctPositions(graph, v, picked);
                }
            }
            edge = edgeEnd;
            nodeStart = nodeEnd;
            nodeEnd = newEnd;
        }
        assertThat(edge).isEqualTo(rows.length);
    }

    /** Distinct positions: each neighbour is picked at most as often as it occurs in v's list. */
    static void assertDistinctPositions(CsrGraph graph, int v, int[] picked) {
        Map<Integer, Integer> available = new HashMap<>();
        for (int u : neighbours(graph, v)) {
            available.merge(u, 1, Integer::sum);
        }
        for (int u : picked) {
            int left = available.getOrDefault(u, 0);
            assertThat(left).as("neighbour %d of %d picked more often than it occurs", u, v).isPositive();
            available.put(u, left - 1);
        }
    }

    static int[] neighbours(CsrGraph graph, int v) {
        return Arrays.copyOfRange(graph.targets(), graph.start(v), graph.end(v));
    }

    static java.util.List<Integer> box(int[] values) {
        return Arrays.stream(values).boxed().collect(java.util.stream.Collectors.toList());
    }
}
