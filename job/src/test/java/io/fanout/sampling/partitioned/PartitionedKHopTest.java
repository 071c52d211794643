package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.testing.SharedData;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Per-node draws plus the per-batch assembly, answers applied in any arrival order, give exactly the in-memory
 * sampler's subgraphs on real graphs: the exchange of the partitioned store samples what the memory store does.
 */
class PartitionedKHopTest {

    /** One node's answer, as the owner of its neighbour list would send it. */
    private record Answer(int frontierPosition, long[] neighbors) {}

    @ParameterizedTest(name = "{0} {1} replace={2}")
    @CsvSource({"cora, '15,10', false", "cora, '-1,3', false", "pubmed, '10,10,5', false", "ego_twitter_u, '15,10', false",
            "ego_twitter_u, '15,10', true", "cnr_2000, '25,10', false"})
    void sameSubgraphsAsTheInMemorySampler(String dataset, String fanoutText, boolean replace) throws Exception {
        CsrGraph graph = GraphLoader.load(SharedData.graph(dataset), EdgeDirection.OUT);
        NodeIdMap ids = NodeIdMap.identity(graph.numNodes());
        int[] fanouts = KHopSampler.parseFanouts(fanoutText);
        KHopSampler sampler = new KHopSampler(graph, ids, fanouts, replace, false);
        Random random = new Random(dataset.hashCode());
        long seed = 99;
        for (int batchId = 0; batchId < 6; batchId++) {
            int[] seeds = new int[64];
            for (int i = 0; i < seeds.length; i++) {
                seeds[i] = random.nextInt(graph.numNodes());
            }
            SampledSubgraph expected = sampler.sample(seeds, seed, 3, batchId);

            BatchAssembly batch = new BatchAssembly(java.util.Arrays.stream(seeds).asLongStream().toArray());
            for (int hop = 1; hop <= fanouts.length; hop++) {
                long[] frontier = batch.frontier();
                List<Answer> answers = new ArrayList<>();
                for (int i = 0; i < frontier.length; i++) { // each node answered by "its partition"
                    int v = (int) frontier[i];
                    int start = graph.start(v);
                    int[] picks = NeighborPicks.positions(seed, 3, batchId, hop, frontier[i], graph.degree(v),
                            fanouts[hop - 1], replace);
                    long[] neighbors = new long[picks.length];
                    for (int p = 0; p < picks.length; p++) {
                        neighbors[p] = graph.targets()[start + picks[p]];
                    }
                    answers.add(new Answer(i, neighbors));
                }
                Collections.shuffle(answers, random); // answers arrive in any order
                long[][] inOrder = new long[frontier.length][];
                for (Answer a : answers) {
                    inOrder[a.frontierPosition()] = a.neighbors();
                }
                batch.addHop(inOrder);
            }
            assertThat(batch.ids()).containsExactly(java.util.Arrays.stream(expected.ids()).asLongStream().toArray());
            assertThat(batch.rows()).containsExactly(expected.rows());
            assertThat(batch.cols()).containsExactly(expected.cols());
            assertThat(batch.numSampledNodes()).containsExactly(expected.numSampledNodes());
            assertThat(batch.numSampledEdges()).containsExactly(expected.numSampledEdges());
        }
    }
}
