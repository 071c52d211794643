package io.fanout.random;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Unit tests of {@link SplitMix64}'s bounded mapping, which the samplers inline in their hot loops. */
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
}
