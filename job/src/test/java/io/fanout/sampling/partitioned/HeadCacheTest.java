package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The head cache: bounded by bytes, least recently used dropped first, hits and misses counted, 0 = off. */
class HeadCacheTest {
    private static long[] head(int degree) {
        long[] h = new long[1 + degree];
        h[0] = degree;
        return h;
    }

    @Test
    void dropsTheLeastRecentlyUsedBeyondItsBytes() {
        long one = HeadCache.sizeOf(head(3));
        HeadCache cache = new HeadCache(16 * one);
        for (long node = 1; node <= 16; node++) {
            cache.put(node, head(3));
        }
        assertThat(cache.get(1)).isNotNull(); // 1 is now the most recent: 2 goes first
        cache.put(17, head(3));
        assertThat(cache.get(2)).isNull();
        assertThat(cache.get(1)).isNotNull();
        assertThat(cache.get(3)).isNotNull();
        assertThat(cache.get(17)).containsExactly(3, 0, 0, 0);
        assertThat(cache.bytes()).isEqualTo(16 * one);
        assertThat(cache.size()).isEqualTo(16);
        assertThat(cache.hits()).isEqualTo(4);
        assertThat(cache.misses()).isEqualTo(1);
    }

    @Test
    void aHeadLargerThanAnEighthIsNotCachedAndZeroIsOff() {
        HeadCache cache = new HeadCache(8 * HeadCache.sizeOf(head(10)));
        cache.put(1, head(11));
        assertThat(cache.get(1)).isNull();
        cache.put(2, head(10));
        assertThat(cache.get(2)).isNotNull();

        HeadCache off = new HeadCache(0);
        off.put(1, head(0));
        assertThat(off.get(1)).isNull();
        assertThat(off.size()).isZero();
        assertThatThrownBy(() -> new HeadCache(-1)).hasMessageContaining("must be >= 0 bytes, got -1");
    }
}
