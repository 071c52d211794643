package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link BatchAssembly} fed a hop as lookups send it (groups of answers, in any order, split any way) builds what it
 * builds fed the answers in frontier order, resumed with or without room for the hop; a group that leaves a
 * frontier node out or answers one twice is an error. {@link PartitionedKHopTest} checks the frontier-order path
 * against the in-memory sampler on real graphs.
 */
class BatchAssemblyTest {

    @Test
    void answerGroupsBuildWhatFrontierOrderBuilds() {
        Random random = new Random(5);
        for (int round = 0; round < 200; round++) {
            long[] seeds = random.longs(1 + random.nextInt(20), 0, 60).toArray();
            BatchAssembly inOrder = new BatchAssembly(seeds);
            BatchAssembly grouped = new BatchAssembly(seeds);
            for (int hop = 0; hop < 3; hop++) {
                int frontier = inOrder.frontier().length;
                long[][] answers = new long[frontier][];
                for (int i = 0; i < frontier; i++) {
                    answers[i] = random.longs(random.nextInt(6), 0, 80).toArray();
                }
                inOrder.addHop(answers);

                // Resume the grouped side from its exported state, as a hop stage does, with room or without.
                int drawn = 0;
                for (long[] a : answers) {
                    drawn += a.length;
                }
                grouped = new BatchAssembly(grouped.batch(), grouped.ids(), grouped.rows(), grouped.cols(),
                        grouped.numSampledNodes(), grouped.numSampledEdges(), random.nextBoolean() ? drawn : 0);
                int groups = 1 + random.nextInt(3);
                List<List<Integer>> members = new ArrayList<>();
                for (int g = 0; g < groups; g++) {
                    members.add(new ArrayList<>());
                }
                for (int i = 0; i < frontier; i++) {
                    members.get(random.nextInt(groups)).add(i);
                }
                int[][] positions = new int[groups][];
                int[][] ends = new int[groups][];
                long[][] neighbors = new long[groups][];
                for (int g = 0; g < groups; g++) {
                    java.util.Collections.shuffle(members.get(g), random);
                    positions[g] = members.get(g).stream().mapToInt(Integer::intValue).toArray();
                    ends[g] = new int[positions[g].length];
                    List<Long> flat = new ArrayList<>();
                    for (int i = 0; i < positions[g].length; i++) {
                        for (long v : answers[positions[g][i]]) {
                            flat.add(v);
                        }
                        ends[g][i] = flat.size();
                    }
                    neighbors[g] = flat.stream().mapToLong(Long::longValue).toArray();
                }
                grouped.addHop(positions, ends, neighbors);

                assertThat(grouped.ids()).as("round %d hop %d", round, hop).containsExactly(inOrder.ids());
                assertThat(grouped.rows()).containsExactly(inOrder.rows());
                assertThat(grouped.cols()).containsExactly(inOrder.cols());
                assertThat(grouped.numSampledNodes()).containsExactly(inOrder.numSampledNodes());
                assertThat(grouped.numSampledEdges()).containsExactly(inOrder.numSampledEdges());
                assertThat(grouped.frontier()).containsExactly(inOrder.frontier());
            }
        }
    }

    @Test
    void everyFrontierNodeIsAnsweredExactlyOnce() {
        BatchAssembly missing = new BatchAssembly(new long[] {1, 2, 3});
        assertThatThrownBy(() -> missing.addHop(new int[][] {{0, 2}}, new int[][] {{1, 2}}, new long[][] {{7, 8}}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("frontier position 1 of 3");
        BatchAssembly twice = new BatchAssembly(new long[] {1, 2});
        assertThatThrownBy(() -> twice.addHop(new int[][] {{0, 1}, {1}}, new int[][] {{1, 1}, {0}},
                new long[][] {{7}, {}})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("frontier position 1 answered twice");
    }

    @Test
    void seedIndicesAreFirstOccurrencesOrTreeRoots() {
        long[] ends = {7, 3, 7, 9, 3, 1L << 40};
        BatchAssembly shared = new BatchAssembly(ends);
        assertThat(shared.seedIndices()).containsExactly(0, 1, 0, 2, 1, 3);
        shared.addHop(new long[][] {{5, 7}, {9}, {}, {}});
        assertThat(shared.seedIndices()).as("unchanged by a hop").containsExactly(0, 1, 0, 2, 1, 3);
        assertThat(BatchAssembly.disjoint(ends).seedIndices()).containsExactly(0, 1, 2, 3, 4, 5);
    }
}
