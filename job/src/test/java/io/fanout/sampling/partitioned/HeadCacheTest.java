package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The head cache: heads and later buckets each bounded by bytes, least recently used dropped first, hits and misses
 * counted, 0 = off.
 */
class HeadCacheTest {
    private static long[] head(int degree) {
        long[] h = new long[1 + degree];
        h[0] = degree;
        return h;
    }

    @Test
    void dropsTheLeastRecentlyUsedBeyondItsBytes() {
        long one = HeadCache.sizeOf(head(3));
        HeadCache cache = new HeadCache(16 * one, 0);
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

    /**
     * Recency is kept from half full on: a head hit while the cache was under half full keeps its insertion place (a
     * plain probe), one hit after that is moved, so the first drop takes the oldest head not hit since half full.
     */
    @Test
    void keepsRecencyFromHalfFullOn() {
        long one = HeadCache.sizeOf(head(3));
        HeadCache cache = new HeadCache(8 * one, 0);
        cache.put(1, head(3));
        cache.put(2, head(3));
        assertThat(cache.get(1)).isNotNull(); // a quarter full: 1 keeps its place, before 2
        for (long node = 3; node <= 8; node++) {
            cache.put(node, head(3));
        }
        assertThat(cache.get(3)).isNotNull(); // full: 3 becomes the most recent
        cache.put(9, head(3));
        assertThat(cache.get(1)).as("hit only while under half full: dropped first").isNull();
        cache.put(10, head(3));
        assertThat(cache.get(2)).isNull();
        cache.put(11, head(3));
        assertThat(cache.get(4)).as("3 was hit when full: 4 goes before it").isNull();
        assertThat(cache.get(3)).isNotNull();
        assertThat(cache.size()).isEqualTo(8);
    }

    @Test
    void aHeadLargerThanAnEighthIsNotCachedAndZeroIsOff() {
        HeadCache cache = new HeadCache(8 * HeadCache.sizeOf(head(10)), 0);
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

    @Test
    void aQuarterMoreHoldsLaterBucketsByNode() {
        HeadCache quarter = new HeadCache(4000); // and 1,000 for buckets
        quarter.putBucket(1, 1, 3, new long[4]); // 96 bytes: within an eighth of the 1,000
        assertThat(quarter.bucketBytes()).isPositive().isLessThanOrEqualTo(1000);
        assertThat(quarter.bucket(1, 1)).hasSize(4);

        long[] bucket = new long[8]; // 128 bytes: within an eighth of the 1,032 below
        long node = HeadCache.ENTRY_OVERHEAD + 8L * 3; // a node entry with 3 bucket slots
        long most = 3 * (node + 2 * HeadCache.sizeOf(bucket));
        HeadCache cache = new HeadCache(most, most);
        for (long n = 1; n <= 3; n++) {
            cache.putBucket(n, 1, 3, bucket);
            cache.putBucket(n, 2, 3, bucket);
        }
        assertThat(cache.bucketBytes()).isEqualTo(3 * (node + 2 * HeadCache.sizeOf(bucket)));
        assertThat(cache.bucket(1, 2)).isSameAs(bucket); // node 1 is now the most recent: 2 goes first
        cache.putBucket(4, 1, 3, bucket);
        assertThat(cache.bucket(2, 1)).isNull();
        assertThat(cache.bucket(2, 2)).isNull();
        assertThat(cache.bucket(1, 1)).isSameAs(bucket);
        assertThat(cache.bucket(4, 1)).isSameAs(bucket);
        assertThat(cache.bucket(4, 2)).isNull(); // not read yet
        assertThat(cache.bucketHits()).isEqualTo(3);
        assertThat(cache.bucketMisses()).isEqualTo(3);
        assertThat(cache.hits() + cache.misses()).as("heads are counted apart").isZero();

        cache.putBucket(5, 1, 3, new long[1000]); // larger than an eighth of the bucket bytes: not cached
        assertThat(cache.bucket(5, 1)).isNull();
        HeadCache off = new HeadCache(100_000, 0);
        off.putBucket(1, 1, 2, bucket);
        assertThat(off.bucket(1, 1)).isNull();
        assertThatThrownBy(() -> new HeadCache(10, -1)).hasMessageContaining("must be >= 0 bytes, got -1");
    }

    @Test
    void bucketsNeverEvictHeads() {
        long one = HeadCache.sizeOf(head(3));
        HeadCache cache = new HeadCache(16 * one, 8 * one); // 16 heads, and 8 heads' worth of buckets
        for (long node = 1; node <= 16; node++) {
            cache.put(node, head(3));
        }
        cache.putBucket(100, 1, 2, new long[3]);
        assertThat(cache.bucket(100, 1)).isNotNull();
        assertThat(cache.size()).isEqualTo(16);
        assertThat(cache.bytes()).isEqualTo(16 * one);
        assertThat(cache.bucketBytes()).isPositive().isLessThanOrEqualTo(8 * one);
    }
}
