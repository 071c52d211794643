package io.fanout.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.testing.SharedData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Exact tests of {@link SubgraphInducer} on real graphs: induced = every edge among the nodes, and no other. */
class SubgraphInducerTest {
    @ParameterizedTest
    @ValueSource(strings = {"cora", "cora_cites", "college_msg"})
    void inducedHoldsEveryEdgeAmongTheSampledNodesAndNoOther(String name) throws Exception {
        CsrGraph g = GraphLoader.load(SharedData.graph(name), EdgeDirection.OUT);
        int[] seeds = IntStream.range(0, 64).map(i -> i * 29 % g.numNodes()).toArray();
        SampledSubgraph sampled = new KHopSampler(g, NodeIdMap.identity(g.numNodes()), new int[] {5, 3}, false, true)
                .sample(seeds, 1, 0, 0);
        SampledSubgraph induced = new SubgraphInducer(g).induced(sampled);
        assertThat(induced.ids()).containsExactly(sampled.ids());
        assertThat(induced.edgesByHop()).isFalse();
        // Expected: every stored edge (with multiplicity) whose two ends are sampled nodes, by brute force.
        Set<Integer> nodes = new HashSet<>();
        for (int v : sampled.ids()) {
            nodes.add(v);
        }
        Map<Long, Integer> expected = new HashMap<>();
        for (int v = 0; v < g.numNodes(); v++) {
            for (int p = g.start(v); p < g.end(v); p++) {
                if (nodes.contains(v) && nodes.contains(g.targets()[p])) {
                    expected.merge((long) v << 32 | g.targets()[p], 1, Integer::sum);
                }
            }
        }
        Map<Long, Integer> actual = new HashMap<>();
        int[] ids = induced.ids();
        for (int e = 0; e < induced.numEdges(); e++) {
            int u = ids[induced.rows()[e]];
            int w = ids[induced.cols()[e]];
            assertThat(g.targets()[induced.edgePositionsBuffer()[e]]).isEqualTo(w);
            actual.merge((long) u << 32 | w, 1, Integer::sum);
        }
        assertThat(actual).isEqualTo(expected);
        assertThat(induced.numEdges()).isGreaterThanOrEqualTo(new HashSet<>(edgePairs(sampled)).size());
    }

    @ParameterizedTest
    @ValueSource(strings = {"cora_cites", "college_msg"})
    void bidirectionalIsTheSampledEdgesAndTheirReversesOnceSorted(String name) throws Exception {
        CsrGraph g = GraphLoader.load(SharedData.graph(name), EdgeDirection.OUT);
        int[] seeds = IntStream.range(0, 64).map(i -> i * 31 % g.numNodes()).toArray();
        SampledSubgraph sampled = new KHopSampler(g, NodeIdMap.identity(g.numNodes()), new int[] {5, 3}, true, true)
                .sample(seeds, 2, 0, 0);
        SampledSubgraph both = new SubgraphInducer(g).bidirectional(sampled);
        Set<Long> expected = new HashSet<>();
        for (long[] rc : edgePairs(sampled)) {
            expected.add(rc[0] << 32 | rc[1]);
            expected.add(rc[1] << 32 | rc[0]);
        }
        List<Long> actual = new ArrayList<>();
        for (long[] rc : edgePairs(both)) {
            actual.add(rc[0] << 32 | rc[1]);
        }
        assertThat(actual).doesNotHaveDuplicates().isSorted();
        assertThat(new HashSet<>(actual)).isEqualTo(expected);
        // Without positions (the partitioned store's form): the same edges, from the pairs alone.
        SubgraphInducer.Edges pairsOnly = SubgraphInducer.bidirectional(sampled.rows(), sampled.cols(), null,
                sampled.numEdges());
        assertThat(pairsOnly.positions()).isNull();
        assertThat(java.util.Arrays.copyOf(pairsOnly.rows(), pairsOnly.count())).isEqualTo(both.rows());
        assertThat(java.util.Arrays.copyOf(pairsOnly.cols(), pairsOnly.count())).isEqualTo(both.cols());
    }

    /** (row, col) local pairs of a subgraph's edges. */
    static List<long[]> edgePairs(SampledSubgraph s) {
        List<long[]> pairs = new ArrayList<>();
        for (int e = 0; e < s.numEdges(); e++) {
            pairs.add(new long[] {s.rows()[e], s.cols()[e]});
        }
        return pairs;
    }
}
