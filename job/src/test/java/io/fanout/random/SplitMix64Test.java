package io.fanout.random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Unit tests of {@link SplitMix64}'s bounded mappings (the int one the samplers inline in their hot loops). */
class SplitMix64Test {
    @Test
    void nextIntIsBoundedAppliedToTheNextOutput() {
        SplitMix64 ints = new SplitMix64(42);
        SplitMix64 longs = new SplitMix64(42);
        for (int bound : new int[] {1, 2, 3, 10, 64, 1000, Integer.MAX_VALUE}) {
            for (int i = 0; i < 1000; i++) {
                int expected = SplitMix64.bounded(longs.nextLong(), bound);
                assertThat(ints.nextInt(bound)).isEqualTo(expected).isBetween(0, bound - 1);
            }
        }
    }

    @Test
    void boundedScalesTheTop32BitsOntoTheRange() {
        assertThat(SplitMix64.bounded(0L, 10)).isZero();
        assertThat(SplitMix64.bounded(0x00000000FFFFFFFFL, 10)).as("low bits are ignored").isZero();
        assertThat(SplitMix64.bounded(-1L, 10)).isEqualTo(9);
        assertThat(SplitMix64.bounded(0x8000000000000000L, 10)).isEqualTo(5);
        assertThat(SplitMix64.bounded(-1L, Integer.MAX_VALUE)).isEqualTo(Integer.MAX_VALUE - 1);
    }

    @Test
    void nextLongOfABoundIsTheTop63BitsModuloItAndCoversTheRange() {
        SplitMix64 bounded = new SplitMix64(7);
        SplitMix64 raw = new SplitMix64(7);
        long bound = 6_000_000_000L; // past int: counts of non-edge pairs can be
        for (int i = 0; i < 1000; i++) {
            // The chance of a redraw is bound / 2^63, below 1e-9 here: every draw is one output.
            assertThat(bounded.nextLong(bound)).isEqualTo((raw.nextLong() >>> 1) % bound).isBetween(0L, bound - 1);
        }
        SplitMix64 small = new SplitMix64(1);
        boolean[] seen = new boolean[3];
        for (int i = 0; i < 100; i++) {
            seen[(int) small.nextLong(3)] = true;
        }
        assertThat(seen).containsOnly(true);
        assertThatThrownBy(() -> small.nextLong(0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
