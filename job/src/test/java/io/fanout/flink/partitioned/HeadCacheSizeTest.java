package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The automatic head cache size: all lookup subtasks a TaskManager can run together take at most an eighth of its heap. */
class HeadCacheSizeTest {
    @ParameterizedTest(name = "heap {0} MB, {1} hops, {2} slots")
    @CsvSource({"6144, 2, 1, 384", "6144, 2, 2, 192", "64, 2, 2, 2", "1024, 3, 4, 10"})
    void anEighthOfTheHeapSharedByHopsTimesSlots(long heapMb, int hops, int slots, long expectedMb) {
        long bytes = NeighborLookupOperator.autoCacheBytes(heapMb << 20, hops, slots);
        assertThat(bytes >> 20).isEqualTo(expectedMb);
        assertThat(bytes * hops * slots).isLessThanOrEqualTo((heapMb << 20) / 8);
    }
}
