package io.fanout.sampling.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.sampling.Graphs;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link NegativeSampler} where drawing again is not enough: a hub linked to all but a few destinations, a nearly
 * complete graph (exact draws, uniform among the non-edges, the same in either stored direction) and a complete one
 * (no strict negative exists: the error says so).
 */
class NegativeSamplerTest {
    @Test
    void nthOutsideSkipsTheLinkedIndices() {
        int[] linked = {0, 2, 3, 7};
        int[] outside = new int[6];
        for (int r = 0; r < outside.length; r++) {
            outside[r] = NegativeSampler.nthOutside(linked, r);
        }
        assertThat(outside).containsExactly(1, 4, 5, 6, 8, 9);
        assertThat(NegativeSampler.nthOutside(new int[0], 5)).isEqualTo(5);
    }

    private static final int HUB_NODES = 5_000;

    /** Node 0 -> every node but 4,000 and 4,321 (and a parallel edge to 17); every other node one edge. */
    private static CsrGraph hubGraph(EdgeDirection direction) {
        IntArrayList src = new IntArrayList();
        IntArrayList dst = new IntArrayList();
        for (int d = 0; d < HUB_NODES; d++) {
            if (d != 4_000 && d != 4_321) {
                src.add(0);
                dst.add(d);
            }
        }
        src.add(0);
        dst.add(17);
        for (int v = 1; v < HUB_NODES; v++) {
            src.add(v);
            dst.add((v * 7) % HUB_NODES);
        }
        return Graphs.fromEdges(HUB_NODES, src.toIntArray(), dst.toIntArray(), direction);
    }

    @Test
    void aHubLinkedToAllButTwoDestinationsGetsExactlyThoseAsTripletNegatives() {
        // Node 0 -> every node but 4,000 and 4,321 (and a parallel edge); the others are sparse. Drawing again fails
        // for node 0 nearly always (2 in 5,000 per draw), so its negatives come from the exact draw.
        int n = HUB_NODES;
        Map<Integer, Integer> counts = new TreeMap<>();
        int[][] byDirection = new int[2][];
        for (EdgeDirection direction : EdgeDirection.values()) {
            NegativeSampler sampler = new NegativeSampler(hubGraph(direction), n);
            IntArrayList all = new IntArrayList();
            for (int batch = 0; batch < 200; batch++) {
                for (int d : sampler.triplet(new int[] {0, 5, 0}, 2, 42, 0, batch)) {
                    all.add(d);
                }
            }
            byDirection[direction.ordinal()] = all.toIntArray();
        }
        assertThat(byDirection[0]).containsExactly(byDirection[1]);
        int[] negatives = byDirection[0];
        for (int i = 0; i < negatives.length; i++) {
            if (i % 6 < 2 || i % 6 >= 4) { // source 0's slots: sources {0, 5, 0}, two negatives each
                counts.merge(negatives[i], 1, Integer::sum);
            } else {
                assertThat(negatives[i]).isNotEqualTo((5 * 7) % n);
            }
        }
        assertThat(counts.keySet()).containsExactly(4_000, 4_321);
        assertThat(counts.get(4_000)).as("uniform between the two: %s", counts).isBetween(340, 460);
    }

    @Test
    void aStoresPerSourceListsGiveTheSameTripletsExactDrawsIncluded() {
        // The hub of the test above: its negatives come from exact draws, which the lists must serve as the CSR does.
        int n = HUB_NODES;
        NegativeSampler graph = new NegativeSampler(hubGraph(EdgeDirection.OUT), n);
        int[] sources = {0, 5, 0, 17};
        NegativeSampler lists = new NegativeSampler(new NegativeSampler.SourceLists() {
            @Override
            public boolean isEdge(int s, int d) {
                return graph.isEdge(sources[s], d);
            }

            @Override
            public int[] linked(int s) {
                IntArrayList out = new IntArrayList();
                for (int d = 0; d < n; d++) {
                    if (graph.isEdge(sources[s], d)) {
                        out.add(d);
                    }
                }
                return out.toIntArray();
            }
        }, sources.length, n, "the graph", s -> sources[s]);
        for (int batch = 0; batch < 50; batch++) {
            assertThat(lists.triplet(new int[] {0, 1, 2, 3}, 3, 42, 0, batch))
                    .containsExactly(graph.triplet(sources, 3, 42, 0, batch));
        }
        assertThatThrownBy(() -> lists.binary(1, 42, 0, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("whole graph");
    }

    @Test
    void aNearlyCompleteGraphGetsItsFewNonEdgesAsBinaryNegatives() {
        int n = 100; // 3 non-edges in 10,000 pairs: three draws in four reach the exact draw
        IntArrayList src = new IntArrayList();
        IntArrayList dst = new IntArrayList();
        for (int s = 0; s < n; s++) {
            for (int d = 0; d < n; d++) {
                if (!((s == 3 && d == 7) || (s == 3 && d == 11) || (s == 99 && d == 0))) {
                    src.add(s);
                    dst.add(d);
                }
            }
        }
        Map<String, Integer> counts = new TreeMap<>();
        int[][][] byDirection = new int[2][][];
        for (EdgeDirection direction : EdgeDirection.values()) {
            NegativeSampler sampler = new NegativeSampler(
                    Graphs.fromEdges(n, src.toIntArray(), dst.toIntArray(), direction), n);
            int[][] pairs = sampler.binary(600, 9, 1, 3);
            byDirection[direction.ordinal()] = pairs;
            assertThat(sampler.binary(600, 9, 1, 3)[1]).as("the batch's stream only").containsExactly(pairs[1]);
        }
        assertThat(byDirection[0][0]).containsExactly(byDirection[1][0]);
        assertThat(byDirection[0][1]).containsExactly(byDirection[1][1]);
        for (int i = 0; i < 600; i++) {
            counts.merge(byDirection[0][0][i] + "->" + byDirection[0][1][i], 1, Integer::sum);
        }
        assertThat(counts.keySet()).containsExactly("3->11", "3->7", "99->0");
        assertThat(counts.values()).as("uniform among the three: %s", counts)
                .allSatisfy(c -> assertThat(c).isBetween(150, 250));
    }

    @Test
    void aCompleteGraphHasNoStrictNegativeAndSaysSo() {
        int n = 6;
        IntArrayList src = new IntArrayList();
        IntArrayList dst = new IntArrayList();
        for (int s = 0; s < n; s++) {
            for (int d = 0; d < n; d++) {
                src.add(s);
                dst.add(d);
            }
        }
        // Ids 1000 + index: the error names the node as the files do.
        NegativeSampler sampler = new NegativeSampler(
                Graphs.fromEdges(n, src.toIntArray(), dst.toIntArray(), EdgeDirection.IN), n, index -> 1000L + index);
        assertThatThrownBy(() -> sampler.binary(1, 1, 0, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("every pair of the graph's 6 sources and 6 destinations is an edge");
        assertThatThrownBy(() -> sampler.triplet(new int[] {2}, 1, 1, 0, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("source node 1002 of the graph has an edge to every one of the 6 destinations");
    }

    @Test
    void betweenTwoNodeTypesTheExactDrawsAreTheSameInEitherStoredDirection() {
        // u__buys__i: 3 users, 2,000 items (3 non-edges in 6,000 pairs: most binary draws end in the exact one).
        // User 0 bought every item but 7 and 33; user 1 all but 20; user 2 every one.
        int users = 3;
        int items = 2_000;
        IntArrayList src = new IntArrayList();
        IntArrayList dst = new IntArrayList();
        for (int u = 0; u < users; u++) {
            for (int i = 0; i < items; i++) {
                if (!((u == 0 && (i == 7 || i == 33)) || (u == 1 && i == 20))) {
                    src.add(u);
                    dst.add(i);
                }
            }
        }
        EdgeType type = EdgeType.parse("u__buys__i");
        int[][] triplets = new int[2][];
        int[][][] binaries = new int[2][][];
        for (EdgeDirection direction : EdgeDirection.values()) {
            boolean out = direction == EdgeDirection.OUT;
            // The key type's lists hold the other type's indices after the keys' index space (TypedAdjacency).
            int base = out ? users : items;
            int[] sources = src.toIntArray();
            int[] destinations = dst.toIntArray();
            for (int e = 0; e < sources.length; e++) {
                if (out) {
                    destinations[e] += base;
                } else {
                    sources[e] += base;
                }
            }
            CsrGraph csr = Graphs.fromEdges(users + items, sources, destinations, direction);
            NegativeSampler sampler = new NegativeSampler(new TypedAdjacency(type, out ? "u" : "i", out ? "i" : "u",
                    csr, base), users, items, index -> 100L + index);
            triplets[direction.ordinal()] = sampler.triplet(new int[] {0, 1, 0}, 3, 5, 0, 1);
            binaries[direction.ordinal()] = sampler.binary(30, 5, 0, 1);
            assertThatThrownBy(() -> sampler.triplet(new int[] {2}, 1, 5, 0, 1))
                    .hasMessageContaining(
                            "source node 102 of u__buys__i has an edge to every one of the 2000 destinations");
        }
        assertThat(triplets[0]).containsExactly(triplets[1]);
        assertThat(binaries[0][0]).containsExactly(binaries[1][0]);
        assertThat(binaries[0][1]).containsExactly(binaries[1][1]);
        for (int k = 0; k < 9; k++) {
            assertThat(triplets[0][k]).isIn(k / 3 == 1 ? java.util.List.of(20) : java.util.List.of(7, 33));
        }
        for (int k = 0; k < 30; k++) {
            assertThat(binaries[0][0][k] + "->" + binaries[0][1][k]).isIn("0->7", "0->33", "1->20");
        }
    }
}
