package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.testing.SharedData;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bucket layout of a node's neighbour list: positions map to (bucket, offset), a list loaded under its
 * edges' order keys is cut back into the in-memory store's order whatever the iteration order, and a request's picks read through
 * buckets are exactly the list's entries at those positions, reading each bucket once, on ego_twitter_u's
 * hottest nodes.
 */
class NeighborBucketsTest {
    private static CsrGraph twitter;

    @BeforeAll
    static void load() throws Exception {
        twitter = GraphLoader.load(SharedData.graph("ego_twitter_u"), EdgeDirection.OUT);
    }

    @Test
    void positionsMapToBucketAndOffset() {
        NeighborBuckets b = new NeighborBuckets(7);
        assertThat(b.bucketCount(0)).isZero();
        assertThat(b.bucketCount(7)).isEqualTo(1);
        assertThat(b.bucketCount(20)).isEqualTo(3);
        assertThat(new int[] {b.bucketLength(20, 0), b.bucketLength(20, 1), b.bucketLength(20, 2)})
                .containsExactly(7, 7, 6);
        assertThat(b.bucket(13)).isEqualTo(1);
        assertThat(b.offset(13)).isEqualTo(6);
        assertThat(b.bucket(14)).isEqualTo(2);
        assertThat(b.offset(14)).isZero();
        assertThat(b.bucketsOf(new int[] {19, 0, 13, 3, 19})).containsExactly(0, 1, 2);
        assertThatThrownBy(() -> b.bucketLength(20, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NeighborBuckets(0)).hasMessageContaining("bucket size must be >= 1, got 0");
    }

    @Test
    void aGroupThatDisagreesWithItsIndexIsAnError() {
        NeighborBuckets layout = new NeighborBuckets(4);
        NeighborBuckets.GroupIndex index = NeighborBuckets.GroupIndex.of(java.util.List.of(
                NeighborBuckets.GroupIndex.reference(9, 2), NeighborBuckets.GroupIndex.reference(3, 3),
                NeighborBuckets.GroupIndex.inline(5, new long[] {-7})));
        assertThat(index.degree()).isEqualTo(6);
        assertThat(index.allInline()).isFalse();
        assertThat(index.references()).containsExactly(3, 9);
        assertThatThrownBy(() -> layout.cutIndexed(index, order -> new long[] {1, 2}, (b, n) -> { }))
                .hasMessageContaining("loaded group 3 has 2 neighbours, its index says 3");
        assertThatThrownBy(() -> NeighborBuckets.GroupIndex.of(java.util.List.of(
                NeighborBuckets.GroupIndex.reference(9, 2), NeighborBuckets.GroupIndex.inline(9, new long[] {1, 2}))))
                .hasMessageContaining("group 9 indexed twice, differently");
        assertThatThrownBy(() -> NeighborBuckets.GroupIndex.of(java.util.List.of(new long[] {-10, 0})))
                .hasMessageContaining("[-1 - order key, size >= 1]");
        assertThatThrownBy(() -> NeighborBuckets.GroupIndex.reference(-1, 2)).hasMessageContaining("order keys are >= 0");
    }

    @ParameterizedTest(name = "bucket size {0}")
    @ValueSource(ints = {1, 2, 7, 4096})
    void loadedPartsCutAndGatheredGiveTheListsEntries(int size) throws Exception {
        NeighborBuckets layout = new NeighborBuckets(size);
        Random random = new Random(size);
        for (int v : hottest(5)) {
            long[] list = neighbors(v);
            // Each edge under its order key (file index << 40 | row), as loaded: a part boundary in the middle, rows
            // with gaps (other nodes' rows between). Iterated ascending (RocksDB) and in hash order (heap).
            Map<Long, Long> ascending = new TreeMap<>();
            Map<Long, Long> hashed = new HashMap<>();
            for (int i = 0; i < list.length; i++) {
                long key = i < list.length / 2 ? 3L * i + 1 : (1L << 40) | (5L * i);
                ascending.put(key, list[i]);
                hashed.put(key, list[i]);
            }
            Map<Integer, long[]> fromHashed = new HashMap<>();
            assertThat(layout.cut(hashed.entrySet(), fromHashed::put)).isEqualTo(list.length);
            Map<Integer, long[]> buckets = new HashMap<>();
            int degree = layout.cut(ascending.entrySet(), buckets::put);
            assertThat(fromHashed.keySet()).isEqualTo(buckets.keySet());
            buckets.forEach((b, n) -> assertThat(fromHashed.get(b)).containsExactly(n));
            assertThat(degree).isEqualTo(list.length);
            assertThat(buckets).hasSize(layout.bucketCount(degree));

            // Loaded as groups (runs of 1..300 consecutive edges under their first edge's key), iterated ascending and
            // in hash order: the same buckets.
            Map<Long, long[]> groupsAscending = new TreeMap<>();
            Map<Long, long[]> groupsHashed = new HashMap<>();
            for (int i = 0; i < list.length; ) {
                int n = Math.min(list.length - i, 1 + random.nextInt(300));
                long key = i < list.length / 2 ? 3L * i + 1 : (1L << 40) | (5L * i);
                if (i < list.length / 2 && i + n > list.length / 2) {
                    n = list.length / 2 - i; // a group never spans two parts
                }
                long[] run = Arrays.copyOfRange(list, i, i + n);
                groupsAscending.put(key, run);
                groupsHashed.put(key, run);
                i += n;
            }
            for (Map<Long, long[]> groups : java.util.List.of(groupsAscending, groupsHashed)) {
                Map<Integer, long[]> fromGroups = new HashMap<>();
                assertThat(layout.cutGroups(groups.entrySet(), (bucket, n) -> fromGroups.put(bucket, n.clone())))
                        .isEqualTo(list.length);
                assertThat(fromGroups.keySet()).isEqualTo(buckets.keySet());
                buckets.forEach((bucket, n) -> assertThat(fromGroups.get(bucket)).containsExactly(n));
            }
            // Cut through the group index (groups of up to 64 inline, bigger ones by reference; indexed in hash order
            // and one group twice, as a replayed write would): each referenced group read once by key, in list order;
            // the head is bucket 0 with the degree.
            java.util.List<long[]> index = new java.util.ArrayList<>();
            java.util.Set<Long> referenced = new java.util.TreeSet<>();
            groupsHashed.forEach((key, run) -> {
                if (run.length <= 64) {
                    index.add(NeighborBuckets.GroupIndex.inline(key, run));
                } else {
                    index.add(NeighborBuckets.GroupIndex.reference(key, run.length));
                    referenced.add(key);
                }
            });
            index.add(index.get(0).clone());
            NeighborBuckets.GroupIndex groupIndex = NeighborBuckets.GroupIndex.of(index);
            assertThat(groupIndex.degree()).isEqualTo(list.length);
            java.util.List<Long> readOrder = new java.util.ArrayList<>();
            Map<Integer, long[]> fromIndex = new HashMap<>();
            long[] indexedHead = layout.cutIndexed(groupIndex, order -> {
                readOrder.add(order);
                return groupsAscending.get(order);
            }, (bucket, n) -> fromIndex.put(bucket, n.clone()));
            assertThat(readOrder).containsExactlyElementsOf(referenced);
            assertThat(groupIndex.allInline()).isEqualTo(referenced.isEmpty());
            assertThat(indexedHead).containsExactly(layout.head(list.length, buckets.get(0)));
            fromIndex.put(0, buckets.get(0));
            assertThat(fromIndex.keySet()).isEqualTo(buckets.keySet());
            buckets.forEach((bucket, n) -> assertThat(fromIndex.get(bucket)).containsExactly(n));
            for (long[] bucket : buckets.values()) {
                assertThat(bucket.length).isLessThanOrEqualTo(size);
            }

            for (int fanout : new int[] {15, -1}) {
                for (boolean replace : new boolean[] {false, true}) {
                    int[] picks = NeighborPicks.positions(42, 1, random.nextInt(100), 2, v, degree, fanout, replace);
                    int[] reads = {0};
                    long[] got = layout.gather(picks, b -> {
                        reads[0]++;
                        return buckets.get(b);
                    });
                    long[] expected = new long[picks.length];
                    for (int i = 0; i < picks.length; i++) {
                        expected[i] = list[picks[i]];
                    }
                    assertThat(got).containsExactly(expected);
                    assertThat(reads[0]).isEqualTo(layout.bucketsOf(picks).length)
                            .isLessThanOrEqualTo(Math.min(picks.length, layout.bucketCount(degree)));

                    // Bucket 0 in the head with the degree: the same entries, buckets 1 and up read only when picked.
                    long[] head = layout.head(degree, buckets.get(0));
                    assertThat(NeighborBuckets.degreeOf(head)).isEqualTo(degree);
                    java.util.List<Integer> later = new java.util.ArrayList<>();
                    assertThat(layout.gatherFromHead(picks, head, b -> {
                        later.add(b);
                        return buckets.get(b);
                    })).containsExactly(expected);
                    int[] needed = layout.bucketsOf(picks);
                    assertThat(later).containsExactlyElementsOf(Arrays.stream(needed).filter(b -> b > 0).boxed().toList());
                }
            }
        }
    }

    @Test
    void aSmallListIsAllInItsHead() throws Exception {
        NeighborBuckets layout = new NeighborBuckets(8);
        long[] head = layout.head(3, new long[] {30, 10, 20});
        assertThat(head).containsExactly(3, 30, 10, 20);
        assertThat(layout.gatherFromHead(new int[] {2, 0, 2}, head, b -> {
            throw new AssertionError("read bucket " + b + " of a one-bucket list");
        })).containsExactly(20, 30, 20);
        long[] none = layout.head(0, new long[0]);
        assertThat(NeighborBuckets.degreeOf(none)).isZero();
        assertThat(layout.gatherFromHead(new int[0], none, b -> null)).isEmpty();
    }

    private static long[] neighbors(int v) {
        int start = twitter.start(v);
        long[] out = new long[twitter.degree(v)];
        for (int i = 0; i < out.length; i++) {
            out[i] = twitter.targets()[start + i];
        }
        return out;
    }

    private static int[] hottest(int k) {
        Integer[] nodes = new Integer[twitter.numNodes()];
        for (int v = 0; v < nodes.length; v++) {
            nodes[v] = v;
        }
        Arrays.sort(nodes, (a, b) -> Integer.compare(twitter.degree(b), twitter.degree(a)));
        int[] out = new int[k];
        for (int i = 0; i < k; i++) {
            out[i] = nodes[i];
        }
        assertThat(twitter.degree(out[0])).isGreaterThan(1000); // hot indeed
        return out;
    }

    @Test
    void anAllInlineIndexWithinABucketGivesTheCutsHeadInOneStep() throws Exception {
        // inlineHead must agree with GroupIndex.of + cutIndexed whenever it answers, and leave every other index
        // (a group stored apart, a list longer than a bucket, an order key recorded twice) to them.
        NeighborBuckets b = new NeighborBuckets(40);
        Random random = new Random(11);
        int answered = 0;
        for (int round = 0; round < 500; round++) {
            int groups = 1 + random.nextInt(12);
            java.util.List<long[]> entries = new java.util.ArrayList<>();
            long order = random.nextInt(5);
            for (int g = 0; g < groups; g++) {
                long[] neighbors = random.longs(1 + random.nextInt(6), 0, 1L << 40).toArray();
                entries.add(random.nextInt(40) == 0 ? NeighborBuckets.GroupIndex.reference(order, neighbors.length)
                        : NeighborBuckets.GroupIndex.inline(order, neighbors));
                order += 1 + random.nextInt(1000);
            }
            if (random.nextInt(20) == 0) {
                entries.add(entries.get(random.nextInt(entries.size())).clone()); // loaded twice
            }
            java.util.Collections.shuffle(entries, random);
            long[] head = b.inlineHead(entries);
            NeighborBuckets.GroupIndex index = NeighborBuckets.GroupIndex.of(entries);
            boolean expectAnswer = index.allInline() && index.degree() <= b.size()
                    && index.references().length == 0 && new java.util.HashSet<>(entries.stream()
                            .map(e -> e[0]).toList()).size() == entries.size();
            if (!expectAnswer) {
                assertThat(head).as("round %d", round).isNull();
                continue;
            }
            answered++;
            long[] cut = b.cutIndexed(index, o -> {
                throw new AssertionError("no group stored apart");
            }, (bucket, values) -> {
                throw new AssertionError("a list within one bucket writes nothing");
            });
            assertThat(head).as("round %d", round).containsExactly(cut);
        }
        assertThat(answered).isGreaterThan(200);
    }
}
