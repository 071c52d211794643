package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.random.SplitMix64;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link HeadGather} answers a group exactly as the lookup did node by node ({@link NeighborPicks#positions}, then
 * {@link NeighborBuckets#gatherFromHead}), for every kind of node: no edges, fewer than the fanout, drawn by
 * Floyd's three paths, with replacement, all (-1), and longer than one bucket.
 */
class HeadGatherTest {
    private static final int BUCKET = 16;

    @Test
    void aGroupGathersTheNeighboursOfEachNodeAnsweredAlone() throws Exception {
        NeighborBuckets layout = new NeighborBuckets(BUCKET);
        HeadGather gather = new HeadGather(layout);
        SplitMix64 rng = new SplitMix64(42);
        int[] degreeKinds = {0, 1, 3, 5, 9, 16, 17, 40, 64, 65, 200, 1000};
        for (boolean replace : new boolean[] {false, true}) {
            for (int fanout : new int[] {-1, 1, 5, 10, 30, 100}) {
                for (int round = 0; round < 20; round++) {
                    int n = 1 + rng.nextInt(24);
                    long[] nodes = new long[n];
                    List<long[][]> lists = new ArrayList<>(); // each node's buckets, bucket 0 first
                    long[][] heads = new long[n + 3][]; // longer than the group: gather must use n
                    for (int i = 0; i < n; i++) {
                        nodes[i] = rng.nextLong() >>> 20;
                        int degree = degreeKinds[rng.nextInt(degreeKinds.length)];
                        long[] list = new long[degree];
                        for (int j = 0; j < degree; j++) {
                            list[j] = rng.nextLong() >>> 8;
                        }
                        long[][] buckets = new long[Math.max(1, layout.bucketCount(degree))][];
                        for (int b = 0; b < buckets.length; b++) {
                            buckets[b] = Arrays.copyOfRange(list, Math.min(degree, b * BUCKET),
                                    Math.min(degree, (b + 1) * BUCKET));
                        }
                        lists.add(buckets);
                        heads[i] = layout.head(degree, buckets[0]);
                    }
                    int epoch = rng.nextInt(5);
                    int batchId = rng.nextInt(1000);
                    int hop = 1 + rng.nextInt(3);
                    int[] ends = new int[n];
                    long[] got = gather.gather(nodes, heads, n, 7L, epoch, batchId, hop, fanout, replace, ends,
                            (index, bucket) -> lists.get(index)[bucket]);

                    List<Long> expected = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        int degree = NeighborBuckets.degreeOf(heads[i]);
                        int[] picks = NeighborPicks.positions(7L, epoch, batchId, hop, nodes[i], degree, fanout,
                                replace);
                        long[][] buckets = lists.get(i);
                        for (long v : layout.gatherFromHead(picks, heads[i], bucket -> buckets[bucket])) {
                            expected.add(v);
                        }
                        assertThat(ends[i]).as("end of node %d", i).isEqualTo(expected.size());
                    }
                    assertThat(got).as("fanout %d replace %s round %d", fanout, replace, round)
                            .containsExactly(expected.stream().mapToLong(Long::longValue).toArray());
                }
            }
        }
    }

    @Test
    void anEmptyGroupGathersNothing() throws Exception {
        int[] ends = new int[0];
        assertThat(new HeadGather(new NeighborBuckets(4)).gather(new long[0], new long[0][], 0, 1L, 0, 0, 1, 5,
                false, ends, (index, bucket) -> {
                    throw new AssertionError("no bucket to read");
                })).isEmpty();
    }
}
