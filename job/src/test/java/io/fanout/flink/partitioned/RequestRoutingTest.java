package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A batch's frontier grouped per lookup subtask: every node in exactly one group, each group's nodes owned by the
 * subtask its key (the first node) routes to, frontier positions kept, no group over {@link RequestRouting#MAX_GROUP}.
 */
class RequestRoutingTest {
    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2, 3, 7})
    void everyFrontierNodeGoesOnceToTheSubtaskThatOwnsIt(int parallelism) {
        int maxParallelism = KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism);
        Random random = new Random(parallelism);
        long[] frontier = new long[3 * RequestRouting.MAX_GROUP + 17];
        for (int i = 0; i < frontier.length; i++) {
            frontier[i] = random.nextLong() >>> 1; // sparse int64 ids
        }
        PartialBatch batch = new PartialBatch();
        batch.batchKey = 77;
        batch.epoch = 2;
        batch.batchId = 5;
        batch.graphVersion = 9;
        List<RequestGroup> groups = new ArrayList<>();
        RequestRouting.groups(batch, 2, frontier, maxParallelism, parallelism, groups::add);

        Set<Integer> positions = new HashSet<>();
        for (RequestGroup g : groups) {
            assertThat(g.size()).isBetween(1, RequestRouting.MAX_GROUP);
            assertThat(g.node).isEqualTo(g.nodes[0]);
            assertThat(new long[] {g.batchKey, g.epoch, g.batchId, g.hop, g.version}).containsExactly(77, 2, 5, 2, 9);
            int owner = KeyGroupRangeAssignment.assignKeyToParallelOperator(g.node, maxParallelism, parallelism);
            for (int i = 0; i < g.size(); i++) {
                assertThat(KeyGroupRangeAssignment.assignKeyToParallelOperator(g.nodes[i], maxParallelism, parallelism))
                        .isEqualTo(owner);
                assertThat(frontier[g.positions[i]]).isEqualTo(g.nodes[i]);
                assertThat(positions.add(g.positions[i])).isTrue();
                if (i > 0) {
                    assertThat(g.positions[i]).isGreaterThan(g.positions[i - 1]); // frontier order within a group
                }
            }
        }
        assertThat(positions).hasSize(frontier.length);
        // One group per subtask unless a subtask's share exceeds MAX_GROUP.
        assertThat(groups.size()).isLessThanOrEqualTo(parallelism + frontier.length / RequestRouting.MAX_GROUP);
    }

    @Test
    void theUnboxedOwnerIsFlinksForEveryKindOfId() {
        Random random = new Random(3);
        for (int parallelism : new int[] {2, 3, 7, 128}) {
            int maxParallelism = KeyGroupRangeAssignment.computeDefaultMaxParallelism(parallelism);
            for (int i = 0; i < 10_000; i++) {
                long node = i < 5_000 ? i - 2_500 : random.nextLong();
                assertThat(RequestRouting.subtaskOf(node, maxParallelism, parallelism))
                        .isEqualTo(KeyGroupRangeAssignment.assignKeyToParallelOperator(node, maxParallelism, parallelism));
            }
        }
    }

    @Test
    void answersScatterToTheirFrontierPositions() {
        AnswerGroup answers = new AnswerGroup(1, new int[] {4, 0, 2}, new int[] {2, 2, 5}, new long[] {7, 8, 9, 10, 11});
        long[][] inOrder = new long[5][];
        answers.scatter(inOrder);
        assertThat(inOrder[4]).containsExactly(7, 8);
        assertThat(inOrder[0]).isEmpty();
        assertThat(inOrder[2]).containsExactly(9, 10, 11);
        assertThat(inOrder[1]).isNull();
    }
}
