package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.random.SplitMix64;
import org.junit.jupiter.api.Test;

/**
 * {@link NeighborPicks} draws Floyd's steps with the cheapest "was it taken" test for each size (a bit mask up to
 * degree 64, a scan of the picks up to fanout 24, a hash set beyond): every path gives the textbook form's
 * positions, step for step. ({@link PartitionedKHopTest} checks the draws against the in-memory sampler on real
 * graphs.)
 */
class NeighborPicksTest {

    /** Floyd's algorithm as the class documents it, a flag per neighbour for "taken": the reference. */
    private static int[] textbook(long seed, int epoch, int batchId, int hop, long node, int d, int f) {
        SplitMix64 rng = new SplitMix64(SplitMix64.seed(seed, epoch, batchId, hop, node));
        boolean[] taken = new boolean[d];
        int[] out = new int[f];
        int c = 0;
        for (int j = d - f; j < d; j++) {
            int r = rng.nextInt(j + 1);
            int pick = taken[r] ? j : r;
            taken[pick] = true;
            out[c++] = pick;
        }
        return out;
    }

    @Test
    void everyMembershipTestDrawsTheTextbookPositions() {
        int checked = 0;
        // Degrees on both sides of 64 and fanouts on both sides of 24, so each path runs, with its edge cases.
        for (int d : new int[] {2, 3, 11, 63, 64, 65, 100, 1000, 100_000}) {
            for (int f : new int[] {1, 2, 10, 23, 24, 25, 40, 63, 99}) {
                if (f >= d) {
                    continue; // every neighbour in list order: no draws
                }
                for (long node = 0; node < 50; node++) {
                    int[] picks = NeighborPicks.positions(7, 2, 31, 1, node * 104_729, d, f, false);
                    assertThat(picks).as("d=%d f=%d node=%d", d, f, node)
                            .containsExactly(textbook(7, 2, 31, 1, node * 104_729, d, f));
                    assertThat(picks).doesNotHaveDuplicates();
                    assertThat(java.util.Arrays.stream(picks).allMatch(p -> p >= 0 && p < d)).isTrue();
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(2_800);
    }

    @Test
    void aDegreeAtMostTheFanoutTakesEveryPositionInOrder() {
        assertThat(NeighborPicks.positions(7, 0, 0, 1, 5, 4, 10, false)).containsExactly(0, 1, 2, 3);
        assertThat(NeighborPicks.positions(7, 0, 0, 1, 5, 3, -1, false)).containsExactly(0, 1, 2);
        assertThat(NeighborPicks.positions(7, 0, 0, 1, 5, 0, 10, false)).isEmpty();
    }
}
