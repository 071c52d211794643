package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** {@link StableKeySort} orders keys as a stable comparison sort does, for ranges of every width and sign. */
class StableKeySortTest {

    /** The reference: indices sorted by key with a stable library sort (equal keys keep their input order). */
    private static int[] reference(long[] keys) {
        return IntStream.range(0, keys.length).boxed().sorted(Comparator.comparingLong(i -> keys[i]))
                .mapToInt(Integer::intValue).toArray();
    }

    private static void check(long[] keys) {
        long[] sorted = keys.clone();
        int[] order = StableKeySort.sort(sorted, sorted.length);
        int[] expected = reference(keys);
        assertThat(order).containsExactly(expected);
        // With values: the same order, and each value moved with its key.
        long[] withValues = keys.clone();
        long[] values = new long[keys.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = ~(long) i * 31;
        }
        assertThat(StableKeySort.sort(withValues, values, keys.length)).containsExactly(expected);
        for (int i = 0; i < keys.length; i++) {
            assertThat(sorted[i]).isEqualTo(keys[expected[i]]);
            assertThat(withValues[i]).isEqualTo(keys[expected[i]]);
            assertThat(values[i]).isEqualTo(~(long) expected[i] * 31);
        }
    }

    @Test
    void matchesAStableSortForNarrowAndWideRanges() {
        Random random = new Random(42);
        // Widths that take one pass, two (node ids below 2^18: 9 + 9 bits), an odd number (the copy back), passes
        // of fewer bits than the most (23 bits: 8 + 8 + 7), and all 64 bits.
        for (long bound : new long[] {1, 7, 2_047, 2_048, 1 << 18, 1 << 23, 1L << 33, 1L << 40, 1L << 62}) {
            for (int n : new int[] {0, 1, 2, 100, 5_000}) {
                long[] keys = new long[n];
                for (int i = 0; i < n; i++) {
                    keys[i] = 1_000 + Math.floorMod(random.nextLong(), bound); // repeats: stability shows
                }
                check(keys);
            }
        }
    }

    @Test
    void keysSpanningTheWholeSignedRange() {
        check(new long[] {Long.MAX_VALUE, Long.MIN_VALUE, 0, -1, Long.MAX_VALUE, 5, Long.MIN_VALUE, -1});
        Random random = new Random(7);
        long[] keys = new long[3_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = random.nextInt(4) == 0 ? keys[random.nextInt(i + 1)] : random.nextLong();
        }
        check(keys);
    }

    @Test
    void sortsOnlyTheFirstNKeys() {
        long[] keys = {5, 3, 5, 1, -9, -9};
        int[] order = StableKeySort.sort(keys, 4);
        assertThat(order).containsExactly(3, 1, 0, 2);
        assertThat(keys).containsExactly(1, 3, 5, 5, -9, -9);
    }

    @Test
    void aScratchReusedAcrossSortsOfEverySizeGivesEachSortsOwnOrder() {
        // A loader reuses one scratch for buffer after buffer: a small sort after a big one must not see its data.
        StableKeySort.Scratch scratch = new StableKeySort.Scratch();
        Random random = new Random(3);
        for (int n : new int[] {5_000, 3, 0, 1, 4_999, 10_000, 17, 6_000}) {
            long[] keys = random.longs(n, 0, 1L << (1 + random.nextInt(40))).toArray();
            long[] sorted = keys.clone();
            long[] values = new long[n];
            for (int i = 0; i < n; i++) {
                values[i] = i * 7L;
            }
            int[] order = StableKeySort.sort(sorted, values, n, scratch);
            int[] expected = reference(keys);
            assertThat(java.util.Arrays.copyOf(order, n)).as("n=%d", n).containsExactly(expected);
            for (int i = 0; i < n; i++) {
                assertThat(sorted[i]).isEqualTo(keys[expected[i]]);
                assertThat(values[i]).isEqualTo(expected[i] * 7L);
            }
        }
    }
}
