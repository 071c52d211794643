package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A node read whole with its edges' data ({@code --with-edge}) picks exactly the neighbours the lookups without edge
 * data pick (uniform, weighted, temporal; in a tree's stream or not), and each pick's data is its own edge's; one
 * hop's edge data come out in the order an assembly adds the hop's edges.
 */
class EdgeListNodeTest {
    private static final long SEED = 42;

    @Test
    void picksAreTheLookupsPicksAndCarryTheirOwnEdgesData() {
        Random random = new Random(3);
        for (int round = 0; round < 300; round++) {
            int d = 1 + random.nextInt(40);
            long[] list = new long[d];
            long[] eids = new long[d];
            float[] weights = new float[d];
            long[] times = new long[d];
            for (int i = 0; i < d; i++) {
                list[i] = random.nextInt(15); // parallel edges: the same neighbour through different rows
                eids[i] = 1000 + i;
                weights[i] = 1 + random.nextInt(9);
                times[i] = random.nextInt(6);
            }
            long node = random.nextInt(1_000_000);
            int f = random.nextInt(4) == 0 ? -1 : 1 + random.nextInt(12);
            boolean replace = random.nextBoolean();
            int tree = random.nextBoolean() ? -1 : random.nextInt(5);
            int hop = 1 + random.nextInt(3);

            // Uniform, the weights only the edges' data.
            EdgeListNode uniform = EdgeListNode.of(list, eids, weights, false, null, node);
            int[] picks = uniform.positions(SEED, 1, 2, hop, tree, node, 0, false, f, replace);
            int[] expected = new int[NeighborPicks.count(d, f, replace)];
            NeighborPicks.draw(SEED, 1, 2, hop, tree, node, d, f, replace, expected,
                    new int[Math.max(16, io.fanout.sampling.FloydDraws.setSize(Math.max(f, 1)))]);
            assertThat(picks).isEqualTo(expected);

            // Weighted draws.
            EdgeListNode weighted = EdgeListNode.of(list, eids, weights, true, null, node);
            int[] weightedPicks = weighted.positions(SEED, 1, 2, hop, tree, node, 0, false, f, replace);
            if (!NeighborPicks.takesAll(d, f, replace)) {
                assertThat(weightedPicks).isEqualTo(WeightedPicks.Node.of(list, weights, node)
                        .positions(NeighborPicks.state(SEED, 1, 2, hop, tree, node), f, replace));
            }

            // Temporal, with and without weights: the same neighbours as TemporalPicks, each with its own row.
            long time = random.nextInt(7);
            boolean last = random.nextBoolean();
            for (boolean byWeight : new boolean[] {false, true}) {
                EdgeListNode temporal = EdgeListNode.of(list, eids, weights, byWeight, times, node);
                int[] at = temporal.positions(SEED, 1, 2, hop, Math.max(tree, 0), node, time, last, f, replace);
                long[] sampled = new long[at.length];
                for (int c = 0; c < at.length; c++) {
                    sampled[c] = temporal.list()[at[c]];
                    int row = (int) (temporal.eids()[at[c]] - 1000);
                    assertThat(list[row]).isEqualTo(sampled[c]);
                    assertThat(times[row]).isEqualTo(temporal.times()[at[c]]).isLessThanOrEqualTo(time);
                    assertThat(weights[row]).isEqualTo(temporal.weights()[at[c]]);
                }
                assertThat(sampled).isEqualTo(TemporalPicks.Node.of(list, times, byWeight ? weights : null, node)
                        .sample(SEED, 1, 2, hop, Math.max(tree, 0), node, time, last, f, replace));
            }
        }
    }

    @Test
    void aHopsEdgeDataFollowTheFrontierOrderAndMismatchedArraysAreRefused() {
        // Two groups answering positions {2, 0} and {1} of a frontier of three.
        SampledEdgeData hop = SampledEdgeData.ofHop(3, new int[][] {{2, 0}, {1}}, new int[][] {{1, 3}, {2}},
                new long[][] {{7, 8, 9}, {5, 6}}, new long[][] {{70, 80, 90}, {50, 60}},
                new float[][] {{0.7f, 0.8f, 0.9f}, {0.5f, 0.6f}}, new long[][] {null, null});
        assertThat(hop.eids()).containsExactly(80, 90, 50, 60, 70);
        assertThat(hop.weights()).containsExactly(0.8f, 0.9f, 0.5f, 0.6f, 0.7f);
        assertThat(hop.times()).isNull();
        assertThat(hop.append(hop).at(new int[] {9, 0}, 2).eids()).containsExactly(70, 80);
        for (boolean byWeight : new boolean[] {false, true}) { // a node without edges, drawn with replacement
            assertThat(EdgeListNode.of(new long[0], new long[0], new float[0], byWeight, null, 4)
                    .positions(SEED, 0, 0, 1, -1, 4, 0, false, 3, true)).isEmpty();
        }
        assertThatThrownBy(() -> EdgeListNode.of(new long[] {1, 2}, new long[] {1}, null, false, null, 9))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node 9");
    }
}
