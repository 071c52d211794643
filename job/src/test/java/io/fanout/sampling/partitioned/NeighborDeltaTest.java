package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A node's list read at any version equals a plain list replayed up to that version, bucket reads included. */
class NeighborDeltaTest {
    @Test
    void everyVersionReadsAsTheReplayedList() throws Exception {
        Random random = new Random(11);
        for (int trial = 0; trial < 200; trial++) {
            int baseDegree = random.nextInt(12);
            long[] base = new long[baseDegree];
            for (int i = 0; i < baseDegree; i++) {
                base[i] = random.nextInt(6);
            }
            NeighborBuckets layout = new NeighborBuckets(1 + random.nextInt(4));
            Map<Integer, long[]> buckets = new HashMap<>();
            List<Map.Entry<Long, Long>> loaded = new ArrayList<>();
            for (int i = 0; i < baseDegree; i++) {
                loaded.add(Map.entry((long) i, base[i]));
            }
            layout.cut(loaded, buckets::put);
            NeighborDelta delta = new NeighborDelta();
            List<long[]> updates = new ArrayList<>(); // {version, add, neighbor}
            long version = 1;
            for (int u = 0; u < 10; u++) {
                version += random.nextInt(2);
                boolean add = random.nextBoolean();
                long neighbor = random.nextInt(6);
                updates.add(new long[] {version, add ? 1 : 0, neighbor});
                if (add) {
                    delta.add(neighbor, version);
                } else {
                    delta.delete(neighbor, version, (n, skip) -> {
                        for (int p = 0; p < baseDegree; p++) {
                            if (base[p] == n && !skip.test(p)) {
                                return p;
                            }
                        }
                        return -1;
                    });
                }
            }
            for (long v = 0; v <= version; v++) {
                List<Long> expected = new ArrayList<>();
                for (long b : base) {
                    expected.add(b);
                }
                for (long[] u : updates) {
                    if (u[0] <= v) {
                        if (u[1] == 1) {
                            expected.add(u[2]);
                        } else {
                            expected.remove(Long.valueOf(u[2]));
                        }
                    }
                }
                int d = delta.degreeAt(baseDegree, v);
                assertThat(d).isEqualTo(expected.size());
                int[] all = new int[d];
                for (int i = 0; i < d; i++) {
                    all[i] = d - 1 - i; // any order: answers keep the order asked
                }
                long[] got = delta.gather(all, baseDegree, v, layout, buckets::get);
                for (int i = 0; i < d; i++) {
                    assertThat(got[i]).as("trial %d version %d position %d", trial, v, all[i])
                            .isEqualTo(expected.get(all[i]));
                }
            }
        }
    }

    @Test
    void deletingAMissingEdgeChangesNothing() throws Exception {
        NeighborDelta delta = new NeighborDelta();
        delta.add(7, 1);
        assertThat(delta.delete(8, 2, (n, skip) -> -1)).isFalse();
        assertThat(delta.delete(7, 2, (n, skip) -> -1)).isTrue();
        assertThat(delta.delete(7, 3, (n, skip) -> -1)).as("already deleted").isFalse();
        assertThat(delta.degreeAt(0, 1)).isEqualTo(1);
        assertThat(delta.degreeAt(0, 2)).isZero();
    }
}
