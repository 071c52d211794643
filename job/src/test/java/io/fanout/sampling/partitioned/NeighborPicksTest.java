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

    @Test
    void takesAllIsExactlyWhenThePositionsAreTheWholeListInOrder() {
        // The lookup copies a node's list instead of drawing when takesAll holds, so the two must agree.
        for (boolean replace : new boolean[] {false, true}) {
            for (int f : new int[] {-1, 1, 3, 10}) {
                for (int d = 0; d <= 12; d++) {
                    int[] positions = NeighborPicks.positions(7, 1, 2, 1, 5, d, f, replace);
                    int[] all = java.util.stream.IntStream.range(0, d).toArray();
                    if (NeighborPicks.takesAll(d, f, replace)) {
                        assertThat(positions).as("d=%d f=%d replace=%s", d, f, replace).containsExactly(all);
                    } else if (d > 0) { // drawn: f picks
                        assertThat(positions).as("d=%d f=%d replace=%s", d, f, replace).hasSize(f);
                    }
                }
            }
        }
    }
}
