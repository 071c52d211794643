package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The lookup value cache: bounded by the bytes its values are said to take, least recently used dropped first. */
class ValueCacheTest {
    @Test
    void keepsTheMostRecentlyUsedWithinItsBytes() {
        ValueCache<String> cache = new ValueCache<>(1600); // values of up to 200 bytes are kept
        for (long node = 0; node < 16; node++) {
            cache.put(node, "v" + node, 100);
        }
        assertThat(cache.bytes()).isEqualTo(1600);
        assertThat(cache.get(0)).isEqualTo("v0"); // now the most recent
        cache.put(16, "v16", 100); // drops node 1, the least recently used
        assertThat(cache.get(1)).isNull();
        assertThat(cache.get(0)).isEqualTo("v0");
        assertThat(cache.get(16)).isEqualTo("v16");
        assertThat(cache.bytes()).isEqualTo(1600);
        assertThat(cache.size()).isEqualTo(16);
        assertThat(cache.hits()).isEqualTo(3);
        assertThat(cache.misses()).isEqualTo(1);
        cache.put(17, "v17", 200); // needs two 100-byte values gone: 2 and 3
        assertThat(cache.get(2)).isNull();
        assertThat(cache.get(3)).isNull();
        assertThat(cache.get(4)).isEqualTo("v4");
        assertThat(cache.get(17)).isEqualTo("v17");
        assertThat(cache.bytes()).isEqualTo(1600);
    }

    @Test
    void aValueOverAnEighthIsNotKeptAndAZeroCacheKeepsNothing() {
        ValueCache<String> cache = new ValueCache<>(800);
        cache.put(1, "hub", 101);
        assertThat(cache.get(1)).isNull();
        cache.put(2, "a", 100);
        cache.put(2, "b", 100); // cached once: the first value stays, its bytes counted once
        assertThat(cache.get(2)).isEqualTo("a");
        assertThat(cache.bytes()).isEqualTo(100);
        ValueCache<String> off = new ValueCache<>(0);
        off.put(1, "x", 0);
        assertThat(off.get(1)).isNull();
        assertThat(off.size()).isZero();
        assertThatThrownBy(() -> new ValueCache<String>(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("-1");
    }
}
