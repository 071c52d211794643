package io.fanout.sampling.ppr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.testing.SharedData;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** PprSampler's selection rules, batch layout, determinism and neighbour limit, on small and real graphs. */
class PprSamplerTest {
    /** Hub 0 -> leaves 1..degree; the leaves are dangling (directed). */
    static CsrGraph star(int degree) {
        int[] offsets = new int[degree + 2];
        int[] targets = new int[degree];
        for (int i = 0; i < degree; i++) {
            targets[i] = i + 1;
        }
        for (int v = 1; v <= degree + 1; v++) {
            offsets[v] = degree;
        }
        return new CsrGraph(offsets, targets, null, null, EdgeDirection.OUT);
    }

    @Test
    void residualTopUpFillsFreeSlotsFromDiscoveredNodes() {
        // eps so large that only the seed is pushed: each leaf holds (1-alpha)*alpha/10 < alpha*eps.
        CsrGraph g = star(10);
        PprSampler topUp = new PprSampler(g, 0.5, 0.9, 5, -1, true, 1);
        assertThat(topUp.sampleSeed(0)).isEqualTo(5);
        assertThat(topUp.push().pushes()).isEqualTo(1);
        assertThat(topUp.selectedNode(0)).isZero();
        assertThat(topUp.selectedValue(0)).isEqualTo(0.5);
        for (int j = 1; j < 5; j++) {
            assertThat(topUp.selectedNode(j)).as("ties by node id").isEqualTo(j);
            assertThat(topUp.selectedValue(j)).isCloseTo(0.5 * 0.5 / 10, within(1e-17));
        }
        PprSampler settledOnly = new PprSampler(g, 0.5, 0.9, 5, -1, false, 1);
        assertThat(settledOnly.sampleSeed(0)).isEqualTo(1);
        assertThat(settledOnly.selectedNode(0)).isZero();
    }

    @Test
    void finalizedNodesAreNotDisplacedAndValuesIncludeResidual() throws Exception {
        CsrGraph cora = GraphLoader.load(SharedData.graph("cora"), EdgeDirection.OUT);
        PprSampler topUp = new PprSampler(cora, 0.15, 1e-3, 10, -1, true, 1);
        PprSampler settled = new PprSampler(cora, 0.15, 1e-3, 10, -1, false, 1);
        for (int s : new int[] {0, 1358, 2000}) {
            int n = topUp.sampleSeed(s);
            ForwardPush push = topUp.push();
            Set<Integer> chosen = new HashSet<>();
            for (int j = 0; j < n; j++) {
                int v = topUp.selectedNode(j);
                chosen.add(v);
                assertThat(topUp.selectedValue(j)).isEqualTo(push.score(v) + push.residual(v));
            }
            int m = settled.sampleSeed(s);
            Set<Integer> chosenSettled = new HashSet<>();
            for (int j = 0; j < m; j++) {
                chosenSettled.add(settled.selectedNode(j));
                assertThat(settled.selectedValue(j)).isEqualTo(settled.push().score(settled.selectedNode(j)));
            }
            // Phase one is the same ranking by settled score; the top-up only re-orders by score + residual.
            assertThat(chosen).containsAll(chosenSettled);
        }
    }

    @Test
    void batchLayoutSeedsFirstEdgesGroupedBySeedAndSorted() throws Exception {
        CsrGraph cora = GraphLoader.load(SharedData.graph("cora"), EdgeDirection.OUT);
        PprSampler sampler = new PprSampler(cora, 0.15, 1e-4, 8, -1, true, 1);
        int[] seeds = {5, 1358, 5, 77, 2707};
        PprSubgraph sample = sampler.sample(seeds);
        assertThat(sample.batch()).containsExactly(seeds);
        assertThat(sample.numSeeds()).isEqualTo(4);
        assertThat(Arrays.copyOf(sample.ids(), 4)).containsExactly(5, 1358, 77, 2707);
        assertThat(Arrays.stream(sample.ids()).distinct().count()).isEqualTo(sample.numNodes());
        int n = sample.numEdges();
        int[] ei = sample.edgeIndex();
        double[] attr = sample.edgeAttr();
        assertThat(ei).hasSize(2 * n);
        assertThat(attr).hasSize(2 * n);
        PprSampler single = new PprSampler(cora, 0.15, 1e-4, 8, -1, true, 1);
        int e = 0;
        for (int si = 0; si < 4; si++) {
            int s = sample.ids()[si];
            int count = single.sampleSeed(s);
            boolean self = false;
            for (int j = 0; j < count; j++, e++) {
                assertThat(ei[e]).isEqualTo(si);
                int v = sample.ids()[ei[n + e]];
                // the same neighbours and values as the seed sampled on its own: batch-independent
                assertThat(v).isEqualTo(single.selectedNode(j));
                assertThat(attr[2 * e]).isEqualTo(single.selectedValue(j));
                assertThat(attr[2 * e + 1]).isEqualTo(1.0 / (1 + single.push().hop(v)));
                self |= v == s;
                if (v == s) {
                    assertThat(attr[2 * e + 1]).isEqualTo(1.0);
                }
            }
            assertThat(self).as("seed %d is its own PPR neighbour", s).isTrue();
        }
        assertThat(e).isEqualTo(n);
        // a second instance gives identical arrays
        PprSubgraph again = new PprSampler(cora, 0.15, 1e-4, 8, -1, true, 1).sample(seeds);
        assertThat(again.ids()).containsExactly(sample.ids());
        assertThat(again.edgeIndex()).containsExactly(ei);
        assertThat(again.edgeAttr()).containsExactly(attr);
    }

    @Test
    void massIsConservedAndNeighbourLimitReadsAFixedSample() throws Exception {
        CsrGraph ego = GraphLoader.load(SharedData.graph("ego_twitter_u"), EdgeDirection.OUT);
        int maxDegree = 0;
        int hub = 0;
        for (int v = 0; v < ego.numNodes(); v++) {
            if (ego.degree(v) > maxDegree) {
                maxDegree = ego.degree(v);
                hub = v;
            }
        }
        ForwardPush all = new ForwardPush(ego, 0.15, 1e-4, -1, 7);
        ForwardPush wide = new ForwardPush(ego, 0.15, 1e-4, maxDegree, 7);
        ForwardPush few = new ForwardPush(ego, 0.15, 1e-4, 5, 7);
        ForwardPush fewAgain = new ForwardPush(ego, 0.15, 1e-4, 5, 7);
        for (int s : new int[] {hub, 17, 40000}) {
            all.run(s);
            wide.run(s);
            assertThat(wide.pushes()).isEqualTo(all.pushes());
            for (int i = 0; i < all.numTouched(); i++) {
                int v = all.touched()[i];
                assertThat(wide.score(v)).isEqualTo(all.score(v));
            }
            few.run(s);
            fewAgain.run(s);
            assertThat(few.numTouched()).isEqualTo(fewAgain.numTouched());
            for (int i = 0; i < few.numTouched(); i++) {
                int v = few.touched()[i];
                assertThat(fewAgain.touched()[i]).isEqualTo(v);
                assertThat(fewAgain.score(v)).isEqualTo(few.score(v));
            }
            for (ForwardPush push : new ForwardPush[] {all, few}) {
                double mass = 0;
                for (int i = 0; i < push.numTouched(); i++) {
                    mass += push.score(push.touched()[i]);
                }
                // pi sums to 1 = sum p + sum r / alpha: no mass is lost when fewer neighbours are read
                assertThat(mass + push.residualMass() / 0.15).isCloseTo(1.0, within(1e-9));
            }
        }
        // the seed's push reads exactly 5 of the hub's positions
        few.run(hub);
        int reached = 0;
        for (int i = ego.start(hub); i < ego.end(hub); i++) {
            reached += few.hop(ego.targets()[i]) == 1 ? 1 : 0;
        }
        assertThat(reached).isBetween(1, 5);
        assertThat(few.numTouched()).isLessThan(all.numTouched());
    }

    @Test
    void isolatedSeedKeepsItsMassAndDanglingMassReturnsToTheSeed() {
        CsrGraph g = star(3);
        ForwardPush push = new ForwardPush(g, 0.2, 1e-9, -1, 1);
        push.run(2); // a dangling leaf: the walk always restarts at itself, so pi = e_2
        assertThat(push.score(2)).isCloseTo(1.0, within(1e-8));
        assertThat(push.numTouched()).isEqualTo(1);
        push.run(0); // hub: pi(0) = alpha / (1 - (1-alpha)^2), each leaf (1-alpha) pi(0) / 3
        double hub = 0.2 / (1 - 0.8 * 0.8);
        assertThat(push.score(0)).isCloseTo(hub, within(1e-8));
        assertThat(push.score(1)).isCloseTo(0.8 * hub / 3, within(1e-8));
    }

    @Test
    void badParametersAreRejected() {
        CsrGraph g = star(3);
        assertThatThrownBy(() -> new PprSampler(g, 0, 1e-4, 5, -1, true, 1)).hasMessageContaining("alpha");
        assertThatThrownBy(() -> new PprSampler(g, 1, 1e-4, 5, -1, true, 1)).hasMessageContaining("alpha");
        assertThatThrownBy(() -> new PprSampler(g, 0.5, 0, 5, -1, true, 1)).hasMessageContaining("eps");
        assertThatThrownBy(() -> new PprSampler(g, 0.5, 1e-4, 0, -1, true, 1)).hasMessageContaining("maxPprNodes");
        assertThatThrownBy(() -> new PprSampler(g, 0.5, 1e-4, 5, 0, true, 1)).hasMessageContaining("maxNeighbors");
        assertThatThrownBy(() -> new PprSampler(g, 0.5, 1e-4, 5, -1, true, 1).sample(new int[] {9}))
                .hasMessageContaining("seed 9");
    }
}
