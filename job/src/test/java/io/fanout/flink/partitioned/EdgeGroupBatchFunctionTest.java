package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.store.GraphSpec;
import io.fanout.testing.SharedData;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.operators.StreamFlatMap;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link EdgeGroupBatchFunction} on real edge splits: every record holds groups of one lookup subtask only (Flink's
 * key-group assignment at the reader's parallelism), no record passes its edge bound by more than one group, and
 * the records carry exactly {@link EdgeGroupFunction}'s groups, each node's in the same order.
 */
class EdgeGroupBatchFunctionTest {

    @ParameterizedTest(name = "{0} p={1}")
    @CsvSource({"cora, 1", "cora, 3", "pubmed, 2"})
    void recordsHoldOneSubtasksGroupsAndEveryGroupOnce(String dataset, int parallelism) throws Exception {
        GraphSpec spec = new GraphSpec(SharedData.graph(dataset).toString(), EdgeDirection.OUT, null,
                FeatureDType.FLOAT32, false);
        List<GraphLoader.EdgeSplit> splits = PartitionedKHop.edgeSplits(spec);
        int maxParallelism = 128;
        List<String> expected = new ArrayList<>();
        List<String> got = new ArrayList<>();
        EdgeGroupFunction single = new EdgeGroupFunction(spec, splits);
        for (int subtask = 0; subtask < parallelism; subtask++) {
            var harness = new OneInputStreamOperatorTestHarness<>(
                    new StreamFlatMap<>(new EdgeGroupBatchFunction(spec, splits)), maxParallelism, parallelism, subtask);
            harness.open();
            try {
                for (long split = 0; split < splits.size(); split++) {
                    harness.processElement(split, 0);
                }
                for (EdgeGroupBatch batch : harness.extractOutputValues()) {
                    int owner = RequestRouting.subtaskOf(batch.nodes[0], maxParallelism, parallelism);
                    assertThat(batch.ends[batch.size() - 1]).isEqualTo(batch.neighbors.length)
                            .isLessThan(EdgeGroupBatchFunction.MAX_EDGES + SplitGroups.MAX_GROUP);
                    for (int i = 0, from = 0; i < batch.size(); from = batch.ends[i++]) {
                        assertThat(RequestRouting.subtaskOf(batch.nodes[i], maxParallelism, parallelism))
                                .as("node %d in a record of subtask %d's nodes", batch.nodes[i], owner).isEqualTo(owner);
                        got.add(describe(batch.nodes[i], batch.orders[i], java.util.Arrays.copyOfRange(batch.neighbors,
                                from, batch.ends[i])));
                    }
                }
            } finally {
                harness.close();
            }
        }
        for (long split = 0; split < splits.size(); split++) {
            single.flatMap(split, new Collector<>() {
                @Override
                public void collect(EdgeGroup group) {
                    expected.add(describe(group.node, group.order, group.neighbors));
                }

                @Override
                public void close() {}
            });
        }
        assertThat(expected).isNotEmpty();
        // Each reader subtask read every split here, so every group arrives once per reader subtask.
        List<String> perReader = new ArrayList<>();
        for (int s = 0; s < parallelism; s++) {
            perReader.addAll(expected);
        }
        java.util.Collections.sort(got);
        java.util.Collections.sort(perReader);
        assertThat(got).isEqualTo(perReader);
    }

    private static String describe(long node, long order, long[] neighbors) {
        return node + "@" + order + ":" + java.util.Arrays.toString(neighbors);
    }
}
