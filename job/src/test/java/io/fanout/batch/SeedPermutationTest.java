package io.fanout.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class SeedPermutationTest {
    @ParameterizedTest(name = "n = {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 7, 8, 100, 2708, 19_717, 65_536, 65_537, 1_000_003})
    void isABijectionOfZeroToNAndSlotOfInvertsPositionAt(long n) {
        SeedPermutation perm = new SeedPermutation(n, 42L);
        BitSet seen = new BitSet();
        for (long slot = 0; slot < n; slot++) {
            long position = perm.positionAt(slot);
            assertThat(position).isBetween(0L, n - 1);
            assertThat(seen.get((int) position)).as("position %d twice", position).isFalse();
            seen.set((int) position);
            assertThat(perm.slotOf(position)).isEqualTo(slot);
        }
        assertThat(seen.cardinality()).isEqualTo((int) n);
    }

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(longs = {1, 2, 3, 5, 100, 2708, 65_537, 1_000_003})
    void positionsAtGivesPositionAtOfEverySlotInOrder(long n) {
        SeedPermutation perm = new SeedPermutation(n, 9L);
        java.util.SplittableRandom random = new java.util.SplittableRandom(n);
        for (int count : new int[] {0, 1, 3, 4, 5, 9, 512, 1031}) {
            long[] slots = new long[count + 2]; // room past count stays unread
            for (int i = 0; i < count; i++) {
                slots[i] = i % 7 == 6 ? slots[i - 1] : random.nextLong(n); // repeats too
            }
            slots[count] = -1;
            int[] out = new int[count];
            perm.positionsAt(slots, count, out);
            for (int i = 0; i < count; i++) {
                assertThat(out[i]).as("slot %d of %d", i, count).isEqualTo(perm.positionAt(slots[i]));
            }
        }
        assertThatThrownBy(() -> perm.positionsAt(new long[] {0, n}, 2, new int[2]))
                .isInstanceOf(IndexOutOfBoundsException.class).hasMessageContaining(String.valueOf(n));
    }

    @Test
    void largeDomainsInvertWithoutAnArray() {
        long n = (1L << 40) + 12_345;
        SeedPermutation perm = new SeedPermutation(n, -7L);
        for (long slot : new long[] {0, 1, n / 3, n - 2, n - 1}) {
            long position = perm.positionAt(slot);
            assertThat(position).isBetween(0L, n - 1);
            assertThat(perm.slotOf(position)).isEqualTo(slot);
        }
    }

    @Test
    void everyPositionLandsInEverySlotAboutEquallyOftenOverKeys() {
        // 12 positions over 24,000 keys: each (slot, position) cell expects 2,000 (sd ~43). A weak round function
        // (e.g. a Feistel network of too few rounds over so small a domain) leaves cells far from that.
        int n = 12;
        int keys = 24_000;
        int[][] counts = new int[n][n];
        for (int k = 0; k < keys; k++) {
            SeedPermutation perm = new SeedPermutation(n, io.fanout.random.SplitMix64.seed(3L, k, 1L));
            for (int slot = 0; slot < n; slot++) {
                counts[slot][(int) perm.positionAt(slot)]++;
            }
        }
        for (int slot = 0; slot < n; slot++) {
            for (int position = 0; position < n; position++) {
                assertThat(Math.abs(counts[slot][position] - keys / n)).as("slot %d position %d", slot, position)
                        .isLessThan(250);
            }
        }
    }

    @Test
    void outOfRangeIsRejected() {
        SeedPermutation perm = new SeedPermutation(10, 1L);
        assertThatThrownBy(() -> perm.positionAt(10)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> perm.slotOf(-1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> new SeedPermutation(0, 1L)).isInstanceOf(IllegalArgumentException.class);
    }
}
