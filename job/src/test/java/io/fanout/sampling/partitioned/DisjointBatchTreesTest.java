package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.sampling.DisjointKHopSampler;
import io.fanout.sampling.FloydDraws;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.testing.SharedData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Per-node draws in each node's tree ({@link NeighborPicks#draw} with a tree) plus {@link BatchAssembly#disjoint}, the
 * answers grouped and shuffled as lookups send them and the batch resumed from its exported state at every hop, give
 * exactly {@link DisjointKHopSampler}'s trees on real graphs, seeds given twice included.
 */
class DisjointBatchTreesTest {

    @ParameterizedTest(name = "{0} {1} replace={2}")
    @CsvSource({"cora, '15,10', false", "cora, '-1,3', false", "ego_twitter_u, '10,5', false",
            "ego_twitter_u, '6,4', true", "cnr_2000, '20,5,2', false"})
    void sameTreesAsTheInMemoryDisjointSampler(String dataset, String fanoutText, boolean replace) throws Exception {
        CsrGraph graph = GraphLoader.load(SharedData.graph(dataset), EdgeDirection.OUT);
        NodeIdMap ids = NodeIdMap.identity(graph.numNodes());
        int[] fanouts = KHopSampler.parseFanouts(fanoutText);
        DisjointKHopSampler sampler = new DisjointKHopSampler(new KHopSampler(graph, ids, fanouts, replace, false), ids,
                false);
        Random random = new Random(dataset.hashCode());
        long seed = 17;
        int epoch = 2;
        for (int batchId = 0; batchId < 5; batchId++) {
            int[] seeds = new int[48];
            for (int i = 0; i < seeds.length; i++) {
                seeds[i] = i % 7 == 6 ? seeds[i - 3] : random.nextInt(graph.numNodes()); // some seeds twice
            }
            SampledSubgraph expected = sampler.sample(seeds, seed, epoch, batchId);

            BatchAssembly batch = BatchAssembly.disjoint(Arrays.stream(seeds).asLongStream().toArray());
            for (int hop = 1; hop <= fanouts.length; hop++) {
                long[] frontier = batch.frontier();
                int[] trees = batch.frontierTrees();
                long[][] answers = new long[frontier.length][];
                int drawn = 0;
                for (int i = 0; i < frontier.length; i++) { // each node answered by "its partition", in its tree
                    answers[i] = sampled(graph, frontier[i], trees[i], seed, epoch, batchId, hop, fanouts[hop - 1],
                            replace);
                    drawn += answers[i].length;
                }
                batch = new BatchAssembly(batch.batch(), batch.ids(), batch.trees(), batch.rows(), batch.cols(),
                        batch.numSampledNodes(), batch.numSampledEdges(), random.nextBoolean() ? drawn : 0);
                applyGrouped(batch, answers, random);
            }
            assertThat(batch.ids()).as("batch %d", batchId)
                    .containsExactly(Arrays.stream(expected.ids()).asLongStream().toArray());
            assertThat(batch.trees()).containsExactly(Arrays.copyOf(expected.nodeBatchBuffer(), expected.numNodes()));
            assertThat(batch.rows()).containsExactly(expected.rows());
            assertThat(batch.cols()).containsExactly(expected.cols());
            assertThat(batch.numSampledNodes()).containsExactly(expected.numSampledNodes());
            assertThat(batch.numSampledEdges()).containsExactly(expected.numSampledEdges());
            assertThat(batch.numSampledNodes()[0]).as("one tree per seed, duplicates kept").isEqualTo(seeds.length);
        }
    }

    /** Node {@code node}'s sampled neighbours in tree {@code tree}, drawn from its own list as a lookup does. */
    private static long[] sampled(CsrGraph graph, long node, int tree, long seed, int epoch, int batchId, int hop,
            int fanout, boolean replace) {
        int v = (int) node;
        int d = graph.degree(v);
        int[] picks = new int[NeighborPicks.count(d, fanout, replace)];
        int[] set = fanout > 0 && FloydDraws.needsSet(d, fanout) ? new int[FloydDraws.setSize(fanout)] : null;
        NeighborPicks.draw(seed, epoch, batchId, hop, tree, node, d, fanout, replace, picks, set);
        long[] neighbors = new long[picks.length];
        for (int p = 0; p < picks.length; p++) {
            neighbors[p] = graph.targets()[graph.start(v) + picks[p]];
        }
        return neighbors;
    }

    /** Applies one hop's answers split into up to three groups, each in shuffled order, as lookups send them. */
    private static void applyGrouped(BatchAssembly batch, long[][] answers, Random random) {
        int groups = 1 + random.nextInt(3);
        List<List<Integer>> members = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            members.add(new ArrayList<>());
        }
        for (int i = 0; i < answers.length; i++) {
            members.get(random.nextInt(groups)).add(i);
        }
        int[][] positions = new int[groups][];
        int[][] ends = new int[groups][];
        long[][] neighbors = new long[groups][];
        for (int g = 0; g < groups; g++) {
            Collections.shuffle(members.get(g), random);
            positions[g] = members.get(g).stream().mapToInt(Integer::intValue).toArray();
            ends[g] = new int[positions[g].length];
            int total = 0;
            for (int i = 0; i < positions[g].length; i++) {
                total += answers[positions[g][i]].length;
                ends[g][i] = total;
            }
            neighbors[g] = new long[total];
            for (int i = 0; i < positions[g].length; i++) {
                long[] a = answers[positions[g][i]];
                System.arraycopy(a, 0, neighbors[g], ends[g][i] - a.length, a.length);
            }
        }
        batch.addHop(positions, ends, neighbors);
    }
}
