package io.fanout.sampling.link;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The triplet layouts PyG uses: row-major [P, k] for labels, negative-major for a disjoint batch's trees. */
class LinkBatchTest {
    @Test
    void negativeMajorPutsEachPositivesKthNegativeInTheKthBlockOfP() {
        // P = 2 positives, k = 3: row-major (i0k0, i0k1, i0k2, i1k0, i1k1, i1k2) -> blocks of P per k.
        assertThat(IntStream.range(0, 6).map(j -> LinkBatch.negativeMajor(j, 2, 3)).toArray())
                .containsExactly(0, 2, 4, 1, 3, 5);
        for (int p = 1; p <= 5; p++) {
            for (int k = 1; k <= 4; k++) {
                int positives = p;
                int perPositive = k;
                int[] at = IntStream.range(0, p * k).map(j -> LinkBatch.negativeMajor(j, positives, perPositive))
                        .toArray();
                assertThat(at).as("a permutation").containsExactlyInAnyOrder(IntStream.range(0, p * k).toArray());
                for (int j = 0; j < p * k; j++) {
                    assertThat(at[j] % p).as("tree mod P is the positive").isEqualTo(j / k);
                }
            }
        }
    }
}
