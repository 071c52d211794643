package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Dense and sparse int64 node ids: identity detection, rank order, lookups, both collection paths. */
class NodeIdMapTest {
    @Test
    void denseIdsGiveTheIdentity() {
        NodeIdMap map = new NodeIdCollector().add(new long[] {3, 0, 2, 1, 3}, 5).build();
        assertThat(map.isIdentity()).isTrue();
        assertThat(map.size()).isEqualTo(4);
        assertThat(map.indexOf(2)).isEqualTo(2);
        assertThat(map.indexOf(4)).isEqualTo(-1);
        assertThat(map.indexOf(-1)).isEqualTo(-1);
    }

    @Test
    void aDeclaredRangeAddsIsolatedNodes() {
        NodeIdMap map = new NodeIdCollector().add(new long[] {0, 2}, 2).addRange(6).build();
        assertThat(map.isIdentity()).isTrue();
        assertThat(map.size()).isEqualTo(6);
    }

    @Test
    void gapsMakeASparseMapInRankOrder() {
        // Small enough for the bit-set path.
        NodeIdMap map = new NodeIdCollector().add(new long[] {10, 3, 500, 3}, 4).build();
        assertThat(map.isIdentity()).isFalse();
        assertThat(map.size()).isEqualTo(3);
        assertThat(new long[] {map.id(0), map.id(1), map.id(2)}).containsExactly(3, 10, 500);
        assertThat(map.indexOf(500)).isEqualTo(2);
        assertThat(map.indexOf(11)).isEqualTo(-1);
        assertThat(map.heapBytes()).isLessThan(200);
    }

    @Test
    void hugeIdsTakeTheSortPathAndCostOnlyTheirCount() {
        long[] ids = {1L << 62, 2_000_000_000L, 7, 1_000_000_000_000L, 7, (1L << 62) - 1};
        NodeIdMap map = new NodeIdCollector().add(ids, ids.length).build();
        assertThat(map.size()).isEqualTo(5);
        assertThat(map.id(0)).isEqualTo(7);
        assertThat(map.maxId()).isEqualTo(1L << 62);
        assertThat(map.indexOf(2_000_000_000L)).isEqualTo(1);
        assertThat(map.indexOf((1L << 62) - 1)).isEqualTo(3);
        assertThat(map.heapBytes()).isLessThan(200); // no array sized by the largest id
    }

    @Test
    void ofAscendingRecognisesTheIdentity() {
        assertThat(NodeIdMap.ofAscending(new long[] {0, 1, 2}).isIdentity()).isTrue();
        assertThat(NodeIdMap.ofAscending(new long[] {1, 2, 3}).isIdentity()).isFalse();
    }
}
