package io.fanout.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.random.SplitMix64;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** {@link TopK}'s order (larger key, ties to the smaller node) against a full sort, with and without tags. */
class TopKTest {
    @Test
    void keepsTheKBestAsAFullSortWouldWithTiesToTheSmallerNode() {
        SplitMix64 rng = new SplitMix64(3);
        int n = 500;
        long[] nodes = new long[n];
        double[] keys = new double[n];
        for (int i = 0; i < n; i++) {
            nodes[i] = 1000 + (i * 7919L) % 1009; // distinct, not in offer order
            keys[i] = rng.nextInt(20); // many ties
        }
        Integer[] order = IntStream.range(0, n).boxed().toArray(Integer[]::new);
        Arrays.sort(order, Comparator.<Integer>comparingDouble(i -> -keys[i]).thenComparingLong(i -> nodes[i]));
        TopK plain = new TopK(4);
        TopK tagged = new TopK(4);
        TopK filtered = new TopK(4);
        for (int k : new int[] {1, 17, 50, n, n + 10}) { // grows past its first capacity; k over n keeps all
            plain.reset(k);
            tagged.reset(k);
            filtered.reset(k);
            int skipped = 0;
            for (int i = 0; i < n; i++) {
                plain.offer(nodes[i], keys[i]);
                tagged.offerTagged(nodes[i], keys[i], i);
                // Offered only where it may be kept: the same heap (ties are offered, to compare the nodes).
                if (filtered.mayKeep(keys[i])) {
                    filtered.offerTagged(nodes[i], keys[i], i);
                } else {
                    skipped++;
                }
            }
            int[] filteredTags = new int[Math.min(k, n)];
            filtered.drainTagsBestFirst(filteredTags);
            assertThat(skipped > 0).as("k %d: some offers skipped", k).isEqualTo(k < n);
            int m = Math.min(k, n);
            long[] best = new long[m];
            double[] bestKeys = new double[m];
            assertThat(plain.drainBestFirst(best, bestKeys, 0)).isEqualTo(m);
            int[] tags = new int[m];
            assertThat(tagged.drainTagsBestFirst(tags)).isEqualTo(m);
            for (int j = 0; j < m; j++) {
                assertThat(best[j]).isEqualTo(nodes[order[j]]);
                assertThat(bestKeys[j]).isEqualTo(keys[order[j]]);
                assertThat(tags[j]).isEqualTo(order[j]);
                assertThat(filteredTags[j]).isEqualTo(order[j]);
            }
            assertThat(plain.size()).isZero();
            assertThat(tagged.size()).isZero();
        }
        TopK none = new TopK(1);
        none.reset(0);
        assertThat(none.mayKeep(Double.MAX_VALUE)).as("a heap of no pairs keeps none").isFalse();
    }
}
