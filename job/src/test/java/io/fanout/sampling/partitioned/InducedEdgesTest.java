package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.sampling.SubgraphInducer;
import io.fanout.testing.SharedData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Each sampled node's whole list kept to the batch's nodes by its owner ({@link InducedEdges#keepMembers}), the
 * answers grouped and shuffled as lookups send them, give exactly {@link SubgraphInducer#induced}'s edges on real
 * graphs (parallel edges and self-loops included, as college_msg and cnr_2000 have).
 */
class InducedEdgesTest {

    @ParameterizedTest(name = "{0} {1} edge-dir {2}")
    @CsvSource({"cora, '10,5', OUT", "ego_twitter_u, '8,4', OUT", "cnr_2000, '10,5', IN", "college_msg, '5,5', OUT"})
    void sameEdgesAsTheInMemoryInducer(String dataset, String fanoutText, EdgeDirection direction) throws Exception {
        CsrGraph graph = GraphLoader.load(SharedData.graph(dataset), direction);
        KHopSampler sampler = new KHopSampler(graph, NodeIdMap.identity(graph.numNodes()),
                KHopSampler.parseFanouts(fanoutText), false, false);
        SubgraphInducer inducer = new SubgraphInducer(graph);
        Random random = new Random(dataset.hashCode());
        for (int batchId = 0; batchId < 4; batchId++) {
            int[] seeds = random.ints(64, 0, graph.numNodes()).toArray();
            SampledSubgraph sampled = sampler.sample(seeds, 5, 0, batchId);
            SampledSubgraph expected = inducer.induced(sampled);
            long[] ids = Arrays.stream(sampled.ids()).asLongStream().toArray();
            long[] members = ids.clone();
            Arrays.sort(members);

            // Each node answered by "its owner": its whole list, kept to the batch's nodes, in groups of any split.
            int groups = 1 + random.nextInt(3);
            List<List<Integer>> owned = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                owned.add(new ArrayList<>());
            }
            for (int p = 0; p < ids.length; p++) {
                owned.get(random.nextInt(groups)).add(p);
            }
            int[][] positions = new int[groups][];
            int[][] ends = new int[groups][];
            long[][] neighbors = new long[groups][];
            for (int g = 0; g < groups; g++) {
                Collections.shuffle(owned.get(g), random);
                positions[g] = owned.get(g).stream().mapToInt(Integer::intValue).toArray();
                ends[g] = new int[positions[g].length];
                List<Long> whole = new ArrayList<>();
                for (int i = 0; i < positions[g].length; i++) {
                    int v = (int) ids[positions[g][i]];
                    for (int e = graph.start(v); e < graph.start(v) + graph.degree(v); e++) {
                        whole.add((long) graph.targets()[e]);
                    }
                    ends[g][i] = whole.size();
                }
                neighbors[g] = InducedEdges.keepMembers(whole.stream().mapToLong(Long::longValue).toArray(), ends[g],
                        positions[g].length, members);
            }
            InducedEdges.Edges edges = InducedEdges.of(ids, positions, ends, neighbors);
            assertThat(edges.rows()).as("batch %d", batchId).containsExactly(expected.rows());
            assertThat(edges.cols()).containsExactly(expected.cols());
            assertThat(edges.rows().length).isGreaterThanOrEqualTo(sampled.numEdges() > 0 ? 1 : 0);
        }
    }

    @Test
    void aNeighbourOutsideTheBatchIsAnError() {
        assertThatThrownBy(() -> InducedEdges.of(new long[] {4, 9}, new int[][] {{0, 1}}, new int[][] {{1, 1}},
                new long[][] {{7}}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("node 4 answered neighbour 7, which is not in the batch");
    }
}
