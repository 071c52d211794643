package io.fanout.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.random.SplitMix64;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link FloydDraws} asks "was it taken" the cheapest way for each size (a bit mask up to degree 64, a scan of the
 * picks up to fanout 24, a hash set beyond): every path gives the textbook form's positions, step for step, with
 * its buffers reused from call to call as {@link KHopSampler} reuses them. ({@code PartitionedKHopTest} checks the
 * partitioned lookups' draws against the in-memory sampler on real graphs.)
 */
class FloydDrawsTest {

    /** Floyd's algorithm as the class documents it, a flag per neighbour for "taken": the reference. */
    private static int[] textbook(long state, int d, int f) {
        SplitMix64 rng = new SplitMix64(state);
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
        int[] out = new int[128];
        int[] set = new int[FloydDraws.setSize(128)]; // reused dirty: each hashed draw must clear what it uses
        int checked = 0;
        // Degrees on both sides of 64 and fanouts on both sides of 24, so each path runs, with its edge cases.
        for (int d : new int[] {2, 3, 11, 63, 64, 65, 100, 1000, 100_000}) {
            for (int f : new int[] {1, 2, 10, 23, 24, 25, 40, 63, 99}) {
                if (f >= d) {
                    continue; // every neighbour in list order: no draws
                }
                for (long node = 0; node < 50; node++) {
                    long state = SplitMix64.seed(7, 2, 31, 1, node * 104_729);
                    int[] picks = Arrays.copyOf(FloydDraws.draw(state, d, f, out, set), f);
                    assertThat(picks).as("d=%d f=%d node=%d", d, f, node).containsExactly(textbook(state, d, f));
                    assertThat(picks).doesNotHaveDuplicates();
                    assertThat(Arrays.stream(picks).allMatch(p -> p >= 0 && p < d)).isTrue();
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(2_800);
    }

    @Test
    void onlyLargeFanoutsOverLongListsNeedASet() {
        assertThat(FloydDraws.needsSet(64, 63)).isFalse();
        assertThat(FloydDraws.needsSet(1000, FloydDraws.SCAN_MAX)).isFalse();
        assertThat(FloydDraws.needsSet(1000, FloydDraws.SCAN_MAX + 1)).isTrue();
        assertThat(FloydDraws.draw(SplitMix64.seed(1, 2, 3), 1000, 10, new int[10], null)).doesNotHaveDuplicates();
    }
}
