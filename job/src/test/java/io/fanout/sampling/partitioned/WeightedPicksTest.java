package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.AliasTable;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.random.SplitMix64;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.WeightedDraws;
import io.fanout.testing.ShiftedWeights;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A node's weighted draws from its own list ({@link WeightedPicks}: its weights from group entries in any order, its
 * alias table built alone) are the in-memory sampler's over the whole graph's tables, on bitcoin_alpha with shifted
 * weights, with and without replacement, below and above the fanout where the draws turn to exponential races.
 */
class WeightedPicksTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "fanout {0} replace={1}")
    @CsvSource({"3, false", "3, true", "40, false", "40, true", "1, false"})
    void sameDrawsAsTheInMemorySampler(int fanout, boolean replace) throws Exception {
        CsrGraph graph = GraphLoader.load(ShiftedWeights.bitcoinAlpha(tmp), EdgeDirection.OUT);
        KHopSampler memory = new KHopSampler(graph, NodeIdMap.identity(graph.numNodes()), new int[] {fanout}, replace,
                false, new WeightedDraws(graph.weights(), AliasTable.build(graph)));
        Random random = new Random(fanout * 2L + (replace ? 1 : 0));
        int checked = 0;
        for (int v = 0; v < graph.numNodes(); v++) {
            int d = graph.degree(v);
            if (d == 0 || NeighborPicks.takesAll(d, fanout, replace)) {
                continue;
            }
            long state = NeighborPicks.state(7, 1, v % 5, 1, v % 3 == 0 ? v % 11 : -1, v);
            int k = memory.drawPrefix(state, graph.start(v), d, d, fanout);
            int[] expected = Arrays.copyOf(memory.lastPicks(), k);
            float[] weights = Arrays.copyOfRange(graph.weights(), graph.start(v), graph.end(v));
            // Stored as groups of any size, read back in any order.
            List<long[]> entries = new ArrayList<>();
            for (int from = 0; from < d; ) {
                int to = Math.min(d, from + 1 + random.nextInt(5));
                entries.add(WeightedPicks.entry(1000L + from, weights, from, to));
                from = to;
            }
            Collections.shuffle(entries, random);
            float[] inOrder = WeightedPicks.inListOrder(entries, d, v);
            assertThat(inOrder).containsExactly(weights);
            assertThat(WeightedPicks.positions(state, inOrder, d, fanout, replace, v)).as("node %d", v)
                    .containsExactly(expected);
            checked++;
        }
        assertThat(checked).isGreaterThan(100);
    }

    @Test
    void missingWeightsAndAllZeroWeightsNameTheNode() {
        List<long[]> two = List.of(WeightedPicks.entry(5, new float[] {1f, 2f}, 0, 2));
        assertThatThrownBy(() -> WeightedPicks.inListOrder(two, 3, 42))
                .isInstanceOf(IllegalStateException.class).hasMessage("node 42: 2 stored weights for 3 neighbours");
        assertThatThrownBy(() -> WeightedPicks.positions(SplitMix64.seed(1, 2), new float[] {0f, 0f, 0f}, 3, 1,
                false, 42))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("node 42: every weight of its 3 edges is 0");
    }
}
