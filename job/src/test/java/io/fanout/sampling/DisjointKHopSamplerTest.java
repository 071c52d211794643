package io.fanout.sampling;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.AliasTable;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.random.SplitMix64;
import io.fanout.testing.SharedData;
import io.fanout.testing.ShiftedWeights;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exact invariants of {@link DisjointKHopSampler} on real graphs: one tree per seed, nothing shared between trees. */
class DisjointKHopSamplerTest {
    @TempDir
    Path tmp;

    /**
     * Seeds first, one per seed; every edge stays inside one tree and is an edge of the graph; every non-seed
     * node is reached by an edge of its own tree from the previous hop; no (tree, node) pair twice, so trees
     * share no node slot; per-hop counts add up.
     */
    static void checkTrees(CsrGraph graph, int[] seeds, SampledSubgraph s, int[] fanouts, boolean replace) {
        checkTreeShape(graph, seeds, s);
        int[] rows = s.rows();
        // Each seed's own hop: min(f, d) edges without replacement (all when d <= f), f with, as KHopSampler.
        for (int t = 0; t < seeds.length; t++) {
            final int root = t;
            long out = IntStream.range(0, s.numSampledEdges()[0]).filter(e -> rows[e] == root).count();
            int d = graph.degree(seeds[t]);
            assertThat(out).isEqualTo(d == 0 ? 0 : fanouts[0] < 0 || (!replace && d <= fanouts[0]) ? d : fanouts[0]);
        }
    }

    /** The invariants every disjoint sample has, whatever its draws. */
    static void checkTreeShape(CsrGraph graph, int[] seeds, SampledSubgraph s) {
        int[] ids = s.ids();
        int[] tree = Arrays.copyOf(s.nodeBatchBuffer(), s.numNodes());
        assertThat(Arrays.copyOf(ids, seeds.length)).containsExactly(seeds);
        assertThat(Arrays.copyOf(tree, seeds.length)).containsExactly(IntStream.range(0, seeds.length).toArray());
        assertThat(Arrays.stream(s.numSampledNodes()).sum()).isEqualTo(s.numNodes());
        assertThat(Arrays.stream(s.numSampledEdges()).sum()).isEqualTo(s.numEdges());
        Set<Long> pairs = new HashSet<>();
        for (int i = 0; i < ids.length; i++) {
            assertThat(pairs.add((long) tree[i] << 32 | ids[i])).as("(tree %d, node %d) once", tree[i], ids[i]).isTrue();
        }
        int[] rows = s.rows();
        int[] cols = s.cols();
        boolean[] reached = new boolean[ids.length];
        int hopStart = 0;
        int edge = 0;
        for (int h = 0; h < s.numHops(); h++) {
            int hopEnd = hopStart + s.numSampledNodes()[h];
            for (int e = 0; e < s.numSampledEdges()[h]; e++, edge++) {
                assertThat(rows[edge]).as("hop %d edges leave hop %d nodes", h + 1, h).isBetween(hopStart, hopEnd - 1);
                assertThat(tree[cols[edge]]).as("edge inside one tree").isEqualTo(tree[rows[edge]]);
                assertThat(graph.hasEdge(ids[rows[edge]], ids[cols[edge]])).isTrue();
                reached[cols[edge]] = true;
            }
            hopStart = hopEnd;
        }
        for (int i = seeds.length; i < ids.length; i++) {
            assertThat(reached[i]).as("node %d reached in its tree", i).isTrue();
        }
    }

    @Test
    void coraTreesAreDisjointAndComplete() throws Exception {
        CsrGraph cora = GraphLoader.load(SharedData.graph("cora"), EdgeDirection.OUT);
        int[] fanouts = {10, 5};
        DisjointKHopSampler sampler = new DisjointKHopSampler(new KHopSampler(cora, fanouts, false),
                NodeIdMap.identity(cora.numNodes()), true);
        // 7 repeats seed 3: it is its own, second tree.
        int[] seeds = {3, 1701, 42, 3, 2000, 0, 1};
        SampledSubgraph s = sampler.sample(seeds, 11, 0, 5);
        checkTrees(cora, seeds, s, fanouts, false);
        assertThat(s.numNodes()).isGreaterThan(new KHopSampler(cora, fanouts, false).sample(seeds, 11, 0, 5).numNodes());
        // The two trees of seed 3 draw from different streams (the tree index is part of the key).
        SampledSubgraph again = sampler.sample(seeds, 11, 0, 5);
        assertThat(again.ids()).containsExactly(s.ids());
        assertThat(again.cols()).containsExactly(s.cols());
        assertThat(again.nodeBatchBuffer()).startsWith(Arrays.copyOf(s.nodeBatchBuffer(), s.numNodes()));
    }

    @Test
    void treeStreamsAreKeyedBySeedEpochBatchHopTreeAndNodeId() throws Exception {
        CsrGraph cora = GraphLoader.load(SharedData.graph("cora"), EdgeDirection.OUT);
        int hub = IntStream.range(0, cora.numNodes()).reduce((a, b) -> cora.degree(a) >= cora.degree(b) ? a : b)
                .getAsInt();
        KHopSampler khop = new KHopSampler(cora, new int[] {3}, false);
        SampledSubgraph s = new DisjointKHopSampler(khop, NodeIdMap.identity(cora.numNodes()), true)
                .sample(new int[] {5, hub}, 9, 2, 4);
        long state = SplitMix64.seed(9, 2, 4, 1, 1, hub);
        int[] expected = Arrays.copyOf(khop.draw(state, cora.start(hub), cora.degree(hub), 3), 3);
        int[] positions = s.edgePositionsBuffer();
        int[] hubEdges = IntStream.range(0, s.numEdges()).filter(e -> s.rowsBuffer()[e] == 1)
                .map(e -> positions[e] - cora.start(hub)).toArray();
        assertThat(hubEdges).containsExactly(expected);
    }

    @Test
    void weightedTreesOnBitcoinAlphaWithAndWithoutReplacement() throws Exception {
        CsrGraph graph = GraphLoader.load(ShiftedWeights.bitcoinAlpha(tmp), EdgeDirection.OUT);
        AliasTable alias = AliasTable.build(graph);
        int[] seeds = IntStream.range(0, 200).map(i -> i * 17 % graph.numNodes()).toArray();
        for (boolean replace : new boolean[] {false, true}) {
            int[] fanouts = {5, 3};
            KHopSampler khop = new KHopSampler(graph, NodeIdMap.identity(graph.numNodes()), fanouts, replace, false,
                    new WeightedDraws(graph.weights(), alias));
            SampledSubgraph s = new DisjointKHopSampler(khop, NodeIdMap.identity(graph.numNodes()), false)
                    .sample(seeds, 1, 0, 0);
            checkTrees(graph, seeds, s, fanouts, replace);
        }
    }
}
