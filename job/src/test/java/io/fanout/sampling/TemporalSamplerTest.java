package io.fanout.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.random.SplitMix64;
import io.fanout.testing.SharedData;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Temporal disjoint sampling on the real timestamps of college_msg and bitcoin_alpha: the adjacency sorted by
 * time is a per-node permutation; no sampled edge is later than its tree's seed time; {@code last} takes
 * exactly the most recent edges up to that time; uniform draws use only the edges up to it.
 */
class TemporalSamplerTest {
    static CsrGraph load(String name) throws Exception {
        return GraphLoader.load(SharedData.graph(name), EdgeDirection.OUT).sortedByTime();
    }

    /**
     * Weighted temporal sampling on bitcoin_alpha (+11): a node with many edges, its seed time at the middle of
     * its edges' times; with replacement each draw is w / (sum of the prefix's weights), without replacement the
     * first pick is; nothing later than the seed time is ever drawn.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void weightedTemporalDrawsFollowTheWeightsWithinThePrefix(boolean replace) throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("temporal-weighted");
        CsrGraph g = GraphLoader.load(io.fanout.testing.ShiftedWeights.bitcoinAlpha(dir), EdgeDirection.OUT).sortedByTime();
        int v = IntStream.range(0, g.numNodes()).filter(u -> g.degree(u) >= 40).findFirst().getAsInt();
        long time = g.timestamps()[g.start(v) + g.degree(v) / 2];
        int upTo = g.countUpTo(v, time);
        assertThat(upTo).as("a strict prefix").isLessThan(g.degree(v)).isGreaterThan(4);
        KHopSampler khop = new KHopSampler(g, NodeIdMap.identity(g.numNodes()), new int[] {4}, replace, true,
                new WeightedDraws(g.weights(), io.fanout.graph.AliasTable.build(g)));
        DisjointKHopSampler sampler = new DisjointKHopSampler(khop, NodeIdMap.identity(g.numNodes()), true, false);
        int batches = 8_000;
        long[] counts = new long[upTo];
        double sum = 0;
        for (int c = 0; c < upTo; c++) {
            sum += g.weights()[g.start(v) + c];
        }
        for (int batch = 0; batch < batches; batch++) {
            SampledSubgraph s = sampler.sample(new int[] {v}, new long[] {time}, 6, 0, batch);
            int[] pos = s.edgePositionsBuffer();
            assertThat(s.numEdges()).isEqualTo(4);
            for (int e = 0; e < (replace ? 4 : 1); e++) { // with replacement every draw, without the first pick
                int c = pos[e] - g.start(v);
                assertThat(c).as("within the prefix of %d", upTo).isLessThan(upTo);
                counts[c]++;
            }
        }
        double[] expected = new double[upTo];
        for (int c = 0; c < upTo; c++) {
            expected[c] = batches * (replace ? 4 : 1) * g.weights()[g.start(v) + c] / sum;
        }
        double[] chi = WeightedSamplerTest.pearson(counts, expected);
        assertThat(chi[0]).isLessThan(KHopSamplerUniformityTest.chiSquareCritical999((int) chi[1]));
        java.nio.file.Files.walk(dir).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }

    /** Seed times spread over the graph's time range: each seed its own, drawn from the stored timestamps. */
    static long[] seedTimes(CsrGraph g, int n) {
        SplitMix64 rng = new SplitMix64(5);
        return IntStream.range(0, n).mapToLong(i -> g.timestamps()[rng.nextInt(g.numEdges())]).toArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {"college_msg", "bitcoin_alpha"})
    void sortedByTimeIsAPerNodePermutationInTimeOrder(String name) throws Exception {
        CsrGraph raw = GraphLoader.load(SharedData.graph(name), EdgeDirection.OUT);
        CsrGraph sorted = raw.sortedByTime();
        for (int v = 0; v < raw.numNodes(); v++) {
            long[] a = new long[raw.degree(v)];
            long[] b = new long[raw.degree(v)];
            for (int c = 0; c < a.length; c++) {
                a[c] = raw.timestamps()[raw.start(v) + c] * 31 + raw.targets()[raw.start(v) + c];
                b[c] = sorted.timestamps()[sorted.start(v) + c] * 31 + sorted.targets()[sorted.start(v) + c];
                if (c > 0) {
                    assertThat(sorted.timestamps()[sorted.start(v) + c]).isGreaterThanOrEqualTo(sorted.timestamps()[sorted.start(v) + c - 1]);
                }
            }
            Arrays.sort(a);
            Arrays.sort(b);
            assertThat(b).containsExactly(a);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"college_msg", "bitcoin_alpha"})
    void noEdgeIsLaterThanItsTreesSeedTimeAndLastTakesTheMostRecent(String name) throws Exception {
        CsrGraph g = load(name);
        int[] seeds = IntStream.range(0, 300).map(i -> i * 7 % g.numNodes()).toArray();
        long[] times = seedTimes(g, seeds.length);
        int[] fanouts = {4, 3};
        for (boolean last : new boolean[] {false, true}) {
            for (boolean replace : new boolean[] {false, true}) {
                DisjointKHopSampler sampler = new DisjointKHopSampler(new KHopSampler(g, NodeIdMap.identity(g.numNodes()),
                        fanouts, replace, true), NodeIdMap.identity(g.numNodes()), true, last);
                SampledSubgraph s = sampler.sample(seeds, times, 3, 0, 1);
                DisjointKHopSamplerTest.checkTreeShape(g, seeds, s);
                int[] tree = s.nodeBatchBuffer();
                int[] ids = s.idsBuffer();
                int[] pos = s.edgePositionsBuffer();
                int[] rows = s.rowsBuffer();
                long violations = IntStream.range(0, s.numEdges())
                        .filter(e -> g.timestamps()[pos[e]] > times[tree[rows[e]]]).count();
                assertThat(violations).as("edges later than the seed time (last=%s)", last).isZero();
                // Per expanded node: how many edges, and for last exactly which.
                for (int i = 0; i < s.numNodes(); i++) {
                    final int node = i;
                    int[] mine = IntStream.range(0, s.numEdges()).filter(e -> rows[e] == node).map(e -> pos[e]).toArray();
                    if (mine.length == 0) {
                        continue;
                    }
                    int v = ids[i];
                    int upTo = g.countUpTo(v, times[tree[i]]);
                    int f = mine.length; // which hop the node was expanded at is not needed: compare with both fanouts
                    assertThat(f).isIn(replace ? new Object[] {4, 3} : new Object[] {Math.min(4, upTo), Math.min(3, upTo)});
                    if (last) {
                        int from = g.start(v) + upTo - Math.min(f, upTo);
                        for (int p : mine) {
                            assertThat(p).as("most recent %d of %d", f, upTo).isBetween(from, g.start(v) + upTo - 1);
                        }
                        if (!replace) {
                            assertThat(Arrays.stream(mine).sorted().toArray())
                                    .containsExactly(IntStream.range(from, from + f).toArray());
                        }
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"college_msg"})
    void aSeedTimeBeforeEveryEdgeSamplesNothing(String name) throws Exception {
        CsrGraph g = load(name);
        long before = Arrays.stream(g.timestamps()).min().getAsLong() - 1;
        DisjointKHopSampler sampler = new DisjointKHopSampler(new KHopSampler(g, new int[] {5}, false),
                NodeIdMap.identity(g.numNodes()), false, false);
        SampledSubgraph s = sampler.sample(new int[] {0, 1, 2}, new long[] {before, before, before}, 1, 0, 0);
        assertThat(s.numEdges()).isZero();
        assertThat(s.numNodes()).isEqualTo(3);
    }
}
