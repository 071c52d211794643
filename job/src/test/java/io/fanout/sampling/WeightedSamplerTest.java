package io.fanout.sampling;

import static io.fanout.sampling.KHopSamplerUniformityTest.chiSquareCritical999;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.AliasTable;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.testing.ShiftedWeights;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Weighted k-hop draws ({@link WeightedDraws}) on bitcoin_alpha with its ratings shifted to 1..21
 * ({@link ShiftedWeights}): chi-square tests that the draws follow the weights exactly (with replacement: each
 * draw {@code w / sum}; without: successive sampling, checked on the ordered pair of picks, which fixes the
 * whole distribution for two picks), that the uniform sampler stays uniform on the same node, and that the
 * tests would catch a sampler that ignores the weights. Critical values at 0.999, fixed seeds.
 */
class WeightedSamplerTest {
    @TempDir
    static Path tmp;

    static CsrGraph graph;
    static AliasTable alias;

    @BeforeAll
    static void load() throws Exception {
        graph = GraphLoader.load(ShiftedWeights.bitcoinAlpha(tmp), EdgeDirection.OUT);
        alias = AliasTable.build(graph);
    }

    /** A node of out-degree in [lo, hi] whose weights take at least 4 values (the first such, by index). */
    static int nodeWithVariedWeights(int lo, int hi) {
        for (int v = 0; v < graph.numNodes(); v++) {
            int d = graph.degree(v);
            if (d >= lo && d <= hi) {
                long distinct = IntStream.range(graph.start(v), graph.end(v))
                        .mapToDouble(i -> graph.weights()[i]).distinct().count();
                if (distinct >= 4) {
                    return v;
                }
            }
        }
        throw new IllegalStateException("no node of degree " + lo + ".." + hi + " with varied weights");
    }

    static KHopSampler weighted(CsrGraph g, int fanout, boolean replace) {
        return new KHopSampler(g, NodeIdMap.identity(g.numNodes()), new int[] {fanout}, replace, true,
                new WeightedDraws(g.weights(), g == graph ? alias : AliasTable.build(g)));
    }

    static double[] weightShares(int v) {
        double[] p = new double[graph.degree(v)];
        double sum = 0;
        for (int c = 0; c < p.length; c++) {
            sum += p[c] = graph.weights()[graph.start(v) + c];
        }
        for (int c = 0; c < p.length; c++) {
            p[c] /= sum;
        }
        return p;
    }

    /** Pearson's statistic over cells, pooling cells expected below 5 into one; returns {statistic, df}. */
    static double[] pearson(long[] observed, double[] expected) {
        double statistic = 0;
        double pooledExpected = 0;
        long pooledObserved = 0;
        int cells = 0;
        for (int i = 0; i < observed.length; i++) {
            if (expected[i] < 5) {
                pooledExpected += expected[i];
                pooledObserved += observed[i];
            } else {
                statistic += (observed[i] - expected[i]) * (observed[i] - expected[i]) / expected[i];
                cells++;
            }
        }
        if (pooledExpected > 0) {
            statistic += (pooledObserved - pooledExpected) * (pooledObserved - pooledExpected) / pooledExpected;
            cells++;
        }
        return new double[] {statistic, cells - 1};
    }

    /** Positions (relative to v's first neighbour) of the sample's edges, in emission order. */
    static int[] positions(SampledSubgraph s, int v) {
        int[] at = Arrays.copyOf(s.edgePositionsBuffer(), s.numEdges());
        for (int i = 0; i < at.length; i++) {
            at[i] -= graph.start(v);
        }
        return at;
    }

    @Test
    void withReplacementEveryDrawFollowsTheWeights() {
        int v = nodeWithVariedWeights(20, 40);
        int d = graph.degree(v);
        int batches = 6_000;
        int fanout = 10;
        long[] counts = new long[d];
        KHopSampler sampler = weighted(graph, fanout, true);
        for (int batch = 0; batch < batches; batch++) {
            for (int c : positions(sampler.sample(new int[] {v}, 99, 0, batch), v)) {
                counts[c]++;
            }
        }
        double[] expected = weightShares(v);
        for (int c = 0; c < d; c++) {
            expected[c] *= (double) batches * fanout;
        }
        double[] chi = pearson(counts, expected);
        assertThat(chi[0]).as("chi-square, node %d of degree %d", v, d).isLessThan(chiSquareCritical999((int) chi[1]));
    }

    /**
     * Without replacement, two picks: the ordered pair (i, j) has probability p_i p_j / (1 - p_i) under
     * successive sampling, so a multinomial test over the d(d-1) ordered pairs checks the exact distribution.
     */
    @Test
    void withoutReplacementTheOrderedPairIsSuccessiveSampling() {
        int v = nodeWithVariedWeights(6, 10);
        int d = graph.degree(v);
        int batches = 40_000;
        long[] counts = new long[d * d];
        KHopSampler sampler = weighted(graph, 2, false);
        for (int batch = 0; batch < batches; batch++) {
            int[] at = positions(sampler.sample(new int[] {v}, 5, 1, batch), v);
            assertThat(at).hasSize(2);
            assertThat(at[0]).isNotEqualTo(at[1]);
            counts[at[0] * d + at[1]]++;
        }
        double[] p = weightShares(v);
        double[] expected = new double[d * d];
        for (int i = 0; i < d; i++) {
            for (int j = 0; j < d; j++) {
                expected[i * d + j] = i == j ? 0 : batches * p[i] * p[j] / (1 - p[i]);
            }
        }
        double[] chi = pearson(counts, expected);
        assertThat(chi[0]).as("chi-square over ordered pairs, node %d of degree %d", v, d)
                .isLessThan(chiSquareCritical999((int) chi[1]));
    }

    /** The first of f picks is exactly w / sum, whatever f (the first arrival of the exponential clocks). */
    @Test
    void withoutReplacementTheFirstPickFollowsTheWeights() {
        int v = nodeWithVariedWeights(20, 40);
        int d = graph.degree(v);
        int batches = 20_000;
        long[] counts = new long[d];
        KHopSampler sampler = weighted(graph, 5, false);
        for (int batch = 0; batch < batches; batch++) {
            int[] at = positions(sampler.sample(new int[] {v}, 17, 2, batch), v);
            assertThat(Arrays.stream(at).distinct().count()).as("distinct positions").isEqualTo(5);
            counts[at[0]]++;
        }
        double[] expected = weightShares(v);
        for (int c = 0; c < d; c++) {
            expected[c] *= batches;
        }
        double[] chi = pearson(counts, expected);
        assertThat(chi[0]).isLessThan(chiSquareCritical999((int) chi[1]));
    }

    /** The uniform sampler on the same weighted node ignores the weights: every position 1/d. */
    @Test
    void uniformSamplerOnTheSameNodeIsUniform() {
        int v = nodeWithVariedWeights(20, 40);
        int d = graph.degree(v);
        int batches = 6_000;
        long[] counts = new long[d];
        KHopSampler sampler = new KHopSampler(graph, NodeIdMap.identity(graph.numNodes()), new int[] {10}, true, true);
        for (int batch = 0; batch < batches; batch++) {
            for (int c : positions(sampler.sample(new int[] {v}, 99, 0, batch), v)) {
                counts[c]++;
            }
        }
        double[] uniform = new double[d];
        Arrays.fill(uniform, batches * 10.0 / d);
        double[] chi = pearson(counts, uniform);
        assertThat(chi[0]).isLessThan(chiSquareCritical999((int) chi[1]));
        // Teeth: the same uniform counts are far from the weights, so the weighted tests can tell.
        double[] weightedExpected = weightShares(v);
        for (int c = 0; c < d; c++) {
            weightedExpected[c] *= batches * 10.0;
        }
        double[] wrong = pearson(counts, weightedExpected);
        assertThat(wrong[0]).isGreaterThan(chiSquareCritical999((int) wrong[1]));
    }

    /** A star whose centre 0 has weights {0, 1, 2, 0, 3} to leaves 1..5. */
    static CsrGraph starWithZeros() {
        return new CsrGraph(new int[] {0, 5, 5, 5, 5, 5, 5}, new int[] {1, 2, 3, 4, 5},
                new float[] {0, 1, 2, 0, 3}, null, EdgeDirection.OUT);
    }

    @Test
    void zeroWeightsAreDrawnOnlyWhenTooFewWeightsArePositive() {
        CsrGraph star = starWithZeros();
        KHopSampler two = weighted(star, 2, false);
        KHopSampler four = weighted(star, 4, false);
        KHopSampler replace = weighted(star, 3, true);
        long[] zerosInFour = new long[5];
        for (int batch = 0; batch < 4_000; batch++) {
            int[] ids2 = two.sample(new int[] {0}, 1, 0, batch).ids();
            assertThat(ids2).doesNotContain(1, 4);
            SampledSubgraph s4 = four.sample(new int[] {0}, 1, 0, batch);
            assertThat(s4.ids()).contains(2, 3, 5).hasSize(5);
            zerosInFour[Arrays.stream(s4.ids()).filter(u -> u == 1).count() > 0 ? 1 : 4]++;
            assertThat(replace.sample(new int[] {0}, 1, 0, batch).ids()).doesNotContain(1, 4);
        }
        // The fourth pick is one of the two zero-weight leaves, uniformly.
        double[] chi = pearson(new long[] {zerosInFour[1], zerosInFour[4]}, new double[] {2_000, 2_000});
        assertThat(chi[0]).isLessThan(chiSquareCritical999(1) * 1.1); // Wilson-Hilferty is rough at df 1
    }

    /**
     * One heavy neighbour holds most of the mass, so the rejection phase often gives way to the exponential
     * races: the ordered triple of picks must still be exactly successive sampling.
     */
    @Test
    void withoutReplacementStaysExactWhenOnePositionHoldsMostOfTheWeight() {
        float[] w = {50, 20, 5, 1, 1, 1};
        int d = w.length;
        CsrGraph star = new CsrGraph(new int[] {0, d, d, d, d, d, d, d}, new int[] {1, 2, 3, 4, 5, 6}, w, null,
                EdgeDirection.OUT);
        KHopSampler sampler = weighted(star, 3, false);
        int batches = 30_000;
        long[] counts = new long[d * d * d];
        for (int batch = 0; batch < batches; batch++) {
            int[] ids = sampler.sample(new int[] {0}, 8, 0, batch).ids();
            counts[(ids[1] - 1) * d * d + (ids[2] - 1) * d + (ids[3] - 1)]++;
        }
        double sum = 78;
        double[] expected = new double[d * d * d];
        for (int i = 0; i < d; i++) {
            for (int j = 0; j < d; j++) {
                for (int k = 0; k < d; k++) {
                    if (i != j && j != k && i != k) {
                        expected[i * d * d + j * d + k] = batches * (w[i] / sum) * (w[j] / (sum - w[i]))
                                * (w[k] / (sum - w[i] - w[j]));
                    }
                }
            }
        }
        double[] chi = pearson(counts, expected);
        assertThat(chi[0]).as("chi-square over ordered triples").isLessThan(chiSquareCritical999((int) chi[1]));
    }

    @Test
    void weightedSamplesAreDeterministicAndTwoHopsStayConsistent() {
        KHopSampler a = new KHopSampler(graph, NodeIdMap.identity(graph.numNodes()), new int[] {5, 3}, false, false,
                new WeightedDraws(graph.weights(), alias));
        KHopSampler b = new KHopSampler(graph, NodeIdMap.identity(graph.numNodes()), new int[] {5, 3}, false, true,
                new WeightedDraws(graph.weights(), alias));
        int[] seeds = IntStream.range(0, 64).map(i -> i * 37 % graph.numNodes()).toArray();
        SampledSubgraph x = a.sample(seeds, 42, 3, 7);
        SampledSubgraph y = b.sample(seeds, 42, 3, 7);
        assertThat(y.ids()).containsExactly(x.ids());
        assertThat(y.rows()).containsExactly(x.rows());
        assertThat(y.cols()).containsExactly(x.cols());
        SampleInvariants.check(graph, new int[] {5, 3}, false, seeds, x);
        assertThat(a.sample(seeds, 42, 3, 8).cols()).isNotEqualTo(x.cols());
    }
}
