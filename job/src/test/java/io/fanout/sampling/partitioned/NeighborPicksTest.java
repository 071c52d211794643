package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.random.SplitMix64;
import org.junit.jupiter.api.Test;

/**
 * {@link NeighborPicks}' own cases; its Floyd draws are {@link io.fanout.sampling.FloydDraws}' (tested there), and
 * {@link PartitionedKHopTest} checks them against the in-memory sampler on real graphs.
 */
class NeighborPicksTest {

    @Test
    void aDegreeAtMostTheFanoutTakesEveryPositionInOrder() {
        assertThat(NeighborPicks.positions(7, 0, 0, 1, 5, 4, 10, false)).containsExactly(0, 1, 2, 3);
        assertThat(NeighborPicks.positions(7, 0, 0, 1, 5, 3, -1, false)).containsExactly(0, 1, 2);
        assertThat(NeighborPicks.positions(7, 0, 0, 1, 5, 0, 10, false)).isEmpty();
    }

    @Test
    void withReplacementEachPickIsTheNodesNextDraw() {
        SplitMix64 rng = new SplitMix64(SplitMix64.seed(7, 0, 0, 1, 5));
        int[] expected = {rng.nextInt(3), rng.nextInt(3), rng.nextInt(3), rng.nextInt(3)};
        assertThat(NeighborPicks.positions(7, 0, 0, 1, 5, 3, 4, true)).containsExactly(expected);
        assertThat(NeighborPicks.positions(7, 0, 0, 1, 5, 0, 4, true)).isEmpty();
    }
}
