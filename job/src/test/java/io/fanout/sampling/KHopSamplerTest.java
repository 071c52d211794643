package io.fanout.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.random.SplitMix64;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Unit tests of {@link KHopSampler} on small graphs built in the test. */
class KHopSamplerTest {
    private static final int NODES = 300;
    private static final int[][] EDGES = Graphs.randomEdges(NODES, 6000, 42);
    private static final CsrGraph OUT = Graphs.fromEdges(NODES, EDGES[0], EDGES[1], EdgeDirection.OUT);
    private static final CsrGraph IN = Graphs.fromEdges(NODES, EDGES[0], EDGES[1], EdgeDirection.IN);

    private static int[] randomSeeds(int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] seeds = new int[count];
        for (int i = 0; i < count; i++) {
            seeds[i] = random.nextInt(NODES);
        }
        return seeds;
    }

    @Test
    void withoutReplacementPicksMinOfFanoutAndDegreeDistinctPositions() {
        int[] fanouts = {3, 2, 4};
        KHopSampler sampler = new KHopSampler(OUT, fanouts, false);
        for (int batch = 0; batch < 20; batch++) {
            int[] seeds = randomSeeds(16, batch);
            SampleInvariants.check(OUT, fanouts, false, seeds, sampler.sample(seeds, 7, 0, batch));
        }
    }

    @Test
    void largeFanoutUsesTheHashedFloydPathAndStillPicksDistinctPositions() {
        int[] fanouts = {40, 30};
        int maxDegree = 0;
        for (int v = 0; v < NODES; v++) {
            maxDegree = Math.max(maxDegree, OUT.degree(v));
        }
        assertThat(maxDegree).as("the test graph has hubs above the fanout").isGreaterThan(100);
        KHopSampler sampler = new KHopSampler(OUT, fanouts, false);
        int[] hubs = {0, 1, 2, 3, 4};
        for (int batch = 0; batch < 10; batch++) {
            SampledSubgraph s = sampler.sample(hubs, 3, 1, batch);
            SampleInvariants.check(OUT, fanouts, false, hubs, s);
            assertThat(s.numSampledEdges()[0]).isEqualTo(5 * 40);
        }
    }

    @Test
    void withReplacementDrawsExactlyFanoutPerNodeWithNeighbours() {
        int[] fanouts = {5, 3};
        KHopSampler sampler = new KHopSampler(OUT, fanouts, true);
        for (int batch = 0; batch < 20; batch++) {
            int[] seeds = randomSeeds(16, 100 + batch);
            SampleInvariants.check(OUT, fanouts, true, seeds, sampler.sample(seeds, 7, 0, batch));
        }
        // A node of degree 2 with fanout 5 still yields 5 edges, so some neighbour repeats.
        CsrGraph small = Graphs.star(2);
        SampledSubgraph s = new KHopSampler(small, new int[] {5}, true).sample(new int[] {0}, 1, 0, 0);
        assertThat(s.rows()).hasSize(5).containsOnly(0);
        assertThat(s.ids()).hasSize(3);
    }

    @ParameterizedTest
    @EnumSource(EdgeDirection.class)
    void everySampledEdgeIsAnEdgeOfTheGraphInItsDirection(EdgeDirection direction) {
        CsrGraph graph = direction == EdgeDirection.OUT ? OUT : IN;
        Set<Long> directed = new HashSet<>();
        for (int i = 0; i < EDGES[0].length; i++) {
            directed.add((long) EDGES[0][i] << 32 | EDGES[1][i]);
        }
        int[] fanouts = {4, 3};
        for (boolean replace : new boolean[] {false, true}) {
            KHopSampler sampler = new KHopSampler(graph, fanouts, replace);
            for (int batch = 0; batch < 10; batch++) {
                int[] seeds = randomSeeds(20, 200 + batch);
                SampledSubgraph s = sampler.sample(seeds, 11, 2, batch);
                SampleInvariants.check(graph, fanouts, replace, seeds, s);
                for (int e = 0; e < s.rows().length; e++) {
                    int from = s.ids()[s.rows()[e]];
                    int to = s.ids()[s.cols()[e]];
                    long edge = direction == EdgeDirection.OUT ? (long) from << 32 | to : (long) to << 32 | from;
                    assertThat(directed).as("%s edge %d,%d is in the input edge list", direction, from, to)
                            .contains(edge);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void allNeighboursFanoutTakesEveryNeighbourInCsrOrder(boolean replace) {
        int[] fanouts = {-1, 2};
        KHopSampler sampler = new KHopSampler(OUT, fanouts, replace);
        int[] seeds = {0, 7, 150};
        SampledSubgraph s = sampler.sample(seeds, 5, 0, 0);
        SampleInvariants.check(OUT, fanouts, replace, seeds, s);
        assertThat(s.numSampledEdges()[0]).isEqualTo(OUT.degree(0) + OUT.degree(7) + OUT.degree(150));
    }

    @Test
    void inducerEmitsEdgesToKnownNodesButNeverExpandsThemAgain() {
        // 0->1, 0->2, 1->2, 2->0: hop 2 reaches 2 (found at hop 1) and 0 (a seed) again.
        CsrGraph graph = Graphs.fromEdges(3, new int[] {0, 0, 1, 2}, new int[] {1, 2, 2, 0}, EdgeDirection.OUT);
        SampledSubgraph s = new KHopSampler(graph, new int[] {-1, -1, -1}, false).sample(new int[] {0}, 1, 0, 0);
        assertThat(s.ids()).containsExactly(0, 1, 2);
        assertThat(s.rows()).containsExactly(0, 0, 1, 2);
        assertThat(s.cols()).containsExactly(1, 2, 2, 0);
        assertThat(s.numSampledNodes()).containsExactly(1, 2, 0, 0);
        assertThat(s.numSampledEdges()).containsExactly(2, 2, 0);
        assertThat(s.numHops()).isEqualTo(3);
    }

    @Test
    void duplicateSeedsAreExpandedOnceAndKeptInBatch() {
        int[] fanouts = {3};
        int[] seeds = {5, 5, 3, 5, 3, 9};
        SampledSubgraph s = new KHopSampler(OUT, fanouts, false).sample(seeds, 1, 0, 0);
        SampleInvariants.check(OUT, fanouts, false, seeds, s);
        assertThat(Arrays.copyOf(s.ids(), 3)).containsExactly(5, 3, 9);
        assertThat(s.numSampledNodes()[0]).isEqualTo(3);
        assertThat(s.batch()).containsExactly(5, 5, 3, 5, 3, 9);
        // A seed reached as a neighbour is an edge target, not a new node.
        CsrGraph pair = Graphs.fromEdges(2, new int[] {0, 1}, new int[] {1, 0}, EdgeDirection.OUT);
        SampledSubgraph p = new KHopSampler(pair, new int[] {1, 1}, false).sample(new int[] {0, 1}, 1, 0, 0);
        assertThat(p.ids()).containsExactly(0, 1);
        assertThat(p.rows()).containsExactly(0, 1);
        assertThat(p.cols()).containsExactly(1, 0);
        assertThat(p.numSampledNodes()).containsExactly(2, 0, 0);
        assertThat(p.numSampledEdges()).containsExactly(2, 0);
    }

    @Test
    void isolatedSeedsYieldNoEdges() {
        CsrGraph graph = Graphs.fromEdges(4, new int[] {0}, new int[] {1}, EdgeDirection.OUT);
        for (boolean replace : new boolean[] {false, true}) {
            SampledSubgraph s = new KHopSampler(graph, new int[] {5, -1}, replace).sample(new int[] {2, 3}, 1, 0, 0);
            assertThat(s.ids()).containsExactly(2, 3);
            assertThat(s.rows()).isEmpty();
            assertThat(s.numSampledNodes()).containsExactly(2, 0, 0);
            assertThat(s.numSampledEdges()).containsExactly(0, 0);
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void sameArgumentsGiveIdenticalSamples(boolean replace) {
        int[] fanouts = {4, 3};
        int[] seeds = randomSeeds(32, 9);
        SampledSubgraph a = new KHopSampler(OUT, fanouts, replace).sample(seeds, 123, 4, 17);
        KHopSampler reused = new KHopSampler(OUT, fanouts, replace);
        SampledSubgraph b = reused.sample(seeds, 123, 4, 17);
        SampledSubgraph c = reused.sample(seeds, 123, 4, 17);
        for (SampledSubgraph other : new SampledSubgraph[] {b, c}) {
            assertSame(a, other);
        }
        assertThat(c.ids()).as("each sample owns its arrays").isNotSameAs(b.ids());
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void differentBatchEpochOrSeedGiveDifferentSamples(boolean replace) {
        int[] fanouts = {4, 3};
        int[] seeds = randomSeeds(32, 9);
        KHopSampler sampler = new KHopSampler(OUT, fanouts, replace);
        SampledSubgraph base = sampler.sample(seeds, 123, 4, 17);
        SampledSubgraph otherBatch = sampler.sample(seeds, 123, 4, 18);
        SampledSubgraph otherEpoch = sampler.sample(seeds, 123, 5, 17);
        SampledSubgraph otherSeed = sampler.sample(seeds, 124, 4, 17);
        for (SampledSubgraph other : new SampledSubgraph[] {otherBatch, otherEpoch, otherSeed}) {
            assertThat(Arrays.equals(base.ids(), other.ids()) && Arrays.equals(base.cols(), other.cols()))
                    .as("a different (seed, epoch, batchId) changes the sample").isFalse();
        }
    }

    @Test
    void sampleDoesNotDependOnBatchesSampledBefore() {
        int[] fanouts = {5, 5};
        int[] seeds = randomSeeds(40, 1);
        SampledSubgraph fresh = new KHopSampler(OUT, fanouts, false).sample(seeds, 99, 0, 3);
        KHopSampler busy = new KHopSampler(OUT, fanouts, false);
        for (int batch = 10; batch < 30; batch++) {
            busy.sample(randomSeeds(64, batch), 99, 0, batch);
        }
        assertSame(fresh, busy.sample(seeds, 99, 0, 3));
        // Seed order only changes the frontier order, not any node's own choices.
        int[] reversed = new int[seeds.length];
        for (int i = 0; i < seeds.length; i++) {
            reversed[i] = seeds[seeds.length - 1 - i];
        }
        SampledSubgraph r = busy.sample(reversed, 99, 0, 3);
        assertThat(hop1NeighboursOf(r, seeds[0])).isEqualTo(hop1NeighboursOf(fresh, seeds[0]));
    }

    /**
     * Pins the per-node stream contract so another implementation can reproduce samples bit for bit,
     * on each of the sampler's Floyd paths: degree <= 64 (bit mask), small fanout (linear scan) and
     * large fanout (hash set); the expected positions come from the plain textbook loop.
     */
    @ParameterizedTest(name = "degree {0}, fanout {1}")
    @CsvSource({"10, 3", "64, 15", "64, 63", "65, 15", "200, 24", "300, 100", "1000, 999"})
    void nodeAtHopDrawsFromItsOwnSplitMixStream(int degree, int fanout) {
        CsrGraph star = Graphs.star(degree);
        long seed = 2024;
        int epoch = 3;
        for (int batchId = 77; batchId < 87; batchId++) {
            SplitMix64 rng = new SplitMix64(SplitMix64.seed(seed, epoch, batchId, 1, 0));
            int[] positions = new int[fanout];
            for (int j = degree - fanout, c = 0; j < degree; j++, c++) { // Floyd
                int r = rng.nextInt(j + 1);
                for (int q = 0; q < c; q++) {
                    if (positions[q] == r) {
                        r = j;
                    }
                }
                positions[c] = r;
            }
            int[] expected = Arrays.stream(positions).map(p -> p + 1).toArray(); // position p is node p + 1
            SampledSubgraph s = new KHopSampler(star, new int[] {fanout}, false).sample(new int[] {0}, seed, epoch, batchId);
            assertThat(globalCols(s)).containsExactly(expected);

            rng.reset(SplitMix64.seed(seed, epoch, batchId, 1, 0));
            int[] drawn = new int[5];
            for (int c = 0; c < drawn.length; c++) {
                drawn[c] = rng.nextInt(degree) + 1;
            }
            SampledSubgraph w = new KHopSampler(star, new int[] {5}, true).sample(new int[] {0}, seed, epoch, batchId);
            assertThat(globalCols(w)).containsExactly(drawn);
        }
    }

    @Test
    void fanoutsAreValidatedNamingTheBadValue() {
        assertThatThrownBy(() -> new KHopSampler(OUT, new int[0], false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one hop");
        assertThatThrownBy(() -> new KHopSampler(OUT, new int[] {15, 0}, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hop 2").hasMessageContaining("got 0");
        assertThatThrownBy(() -> new KHopSampler(OUT, new int[] {-2}, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got -2");
    }

    @Test
    void parseFanoutsReadsCommaSeparatedHops() {
        assertThat(KHopSampler.parseFanouts("15,10")).containsExactly(15, 10);
        assertThat(KHopSampler.parseFanouts(" 25 , -1 ")).containsExactly(25, -1);
        assertThat(KHopSampler.parseFanouts("-1")).containsExactly(-1);
        assertThatThrownBy(() -> KHopSampler.parseFanouts("15,x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'x'").hasMessageContaining("entry 2");
        assertThatThrownBy(() -> KHopSampler.parseFanouts("15,,10"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("entry 2");
        assertThatThrownBy(() -> KHopSampler.parseFanouts("10,-3"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got -3");
        assertThatThrownBy(() -> KHopSampler.parseFanouts(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
    }

    @Test
    void seedOutsideTheGraphIsRejectedNamingIt() {
        KHopSampler sampler = new KHopSampler(OUT, new int[] {2}, false);
        assertThatThrownBy(() -> sampler.sample(new int[] {1, NODES}, 1, 0, 6))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("seed " + NODES).hasMessageContaining("position 1").hasMessageContaining("batch 6");
        assertThatThrownBy(() -> sampler.sample(new int[] {-1}, 1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void batchAfterARejectedOneIsSampledAsByAFreshSampler() {
        int[] fanouts = {4, 3};
        int[] seeds = randomSeeds(30, 5);
        KHopSampler sampler = new KHopSampler(OUT, fanouts, false);
        int[] bad = Arrays.copyOf(seeds, seeds.length + 1);
        bad[seeds.length] = NODES; // the valid seeds before it were already taken into the batch
        assertThatThrownBy(() -> sampler.sample(bad, 7, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertSame(new KHopSampler(OUT, fanouts, false).sample(seeds, 7, 0, 1), sampler.sample(seeds, 7, 0, 1));
    }

    @Test
    void slotRangesRestartNearIntegerMaxWithoutChangingSamples() {
        int[] fanouts = {6, 4};
        KHopSampler fresh = new KHopSampler(OUT, fanouts, false);
        KHopSampler wrapping = new KHopSampler(OUT, fanouts, false);
        wrapping.sample(randomSeeds(50, 1), 3, 0, 0); // leaves slots from an earlier range behind
        wrapping.startNextBatchAt(Integer.MAX_VALUE - 3 * NODES);
        for (int batch = 1; batch < 8; batch++) { // crosses the restart after a few batches
            int[] seeds = randomSeeds(50, batch);
            assertSame(fresh.sample(seeds, 3, 0, batch), wrapping.sample(seeds, 3, 0, batch));
        }
    }

    @Test
    void batchHoldingEveryNodeFitsItsIdBuffer() {
        int nodes = 3000; // more seeds than the initial id buffer, so it is sized to exactly numNodes
        int[][] edges = Graphs.randomEdges(nodes, 12000, 9);
        CsrGraph graph = Graphs.fromEdges(nodes, edges[0], edges[1], EdgeDirection.OUT);
        int[] all = new int[nodes];
        Arrays.setAll(all, i -> i);
        SampledSubgraph s = new KHopSampler(graph, new int[] {-1, 2}, false).sample(all, 1, 0, 0);
        assertThat(s.numNodes()).isEqualTo(nodes);
        assertThat(s.numSampledNodes()).containsExactly(nodes, 0, 0);
        assertThat(s.numEdges()).isEqualTo(graph.numEdges());
    }

    static void assertSame(SampledSubgraph expected, SampledSubgraph actual) {
        assertThat(actual.ids()).containsExactly(expected.ids());
        assertThat(actual.rows()).containsExactly(expected.rows());
        assertThat(actual.cols()).containsExactly(expected.cols());
        assertThat(actual.batch()).containsExactly(expected.batch());
        assertThat(actual.numSampledNodes()).containsExactly(expected.numSampledNodes());
        assertThat(actual.numSampledEdges()).containsExactly(expected.numSampledEdges());
    }

    private static int[] globalCols(SampledSubgraph s) {
        return Arrays.stream(s.cols()).map(c -> s.ids()[c]).toArray();
    }

    private static java.util.List<Integer> hop1NeighboursOf(SampledSubgraph s, int node) {
        java.util.List<Integer> out = new java.util.ArrayList<>();
        for (int e = 0; e < s.numSampledEdges()[0]; e++) {
            if (s.ids()[s.rows()[e]] == node) {
                out.add(s.ids()[s.cols()[e]]);
            }
        }
        return out;
    }
}
