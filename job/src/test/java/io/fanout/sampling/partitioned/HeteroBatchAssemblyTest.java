package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.FeatureDType;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.sampling.hetero.HeteroKHopSampler;
import io.fanout.sampling.hetero.HeteroSubgraph;
import io.fanout.sampling.hetero.TypedFanouts;
import io.fanout.store.GraphSpec;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.SharedData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Per (edge type, node) draws ({@link NeighborPicks} under {@link HeteroKHopSampler#hopSeed}, hop 1) plus the
 * per-batch typed assembly give exactly the in-memory typed sampler's samples on real typed graphs, fed each hop in
 * frontier order or as lookups send it (groups per edge type, in any order): the exchange of the partitioned store
 * samples what the memory store does.
 */
class HeteroBatchAssemblyTest {

    @ParameterizedTest(name = "{0} {1} {2} replace={3}")
    @CsvSource(delimiter = '|', value = {
            "cora_hetero|OUT|paper__cites__paper:15,10;paper__has_word__word:5,0|false",
            "cora_hetero|IN|paper__cites__paper:3,-1;paper__has_word__word:4,6|false",
            "cora_hetero|OUT|paper__cites__paper:0,5;paper__has_word__word:5,5|true",
            "bitcoin_alpha_typed|OUT|10,5|false",
            "bitcoin_alpha_typed|IN|user__distrusts__user:4,2;user__trusts__user:6,3|true"})
    void sameSamplesAsTheInMemoryTypedSampler(String dataset, EdgeDirection direction, String fanoutText,
            boolean replace) throws Exception {
        TypedGraphStore store = TypedGraphStore.load(new GraphSpec(SharedData.graph(dataset).toString(), direction,
                null, FeatureDType.FLOAT32, false));
        Map<String, int[]> fanouts = TypedFanouts.parse(fanoutText).resolve(store.adjacency().keySet());
        String seedType = store.nodeIds().containsKey("paper") ? "paper" : "user";
        HeteroKHopSampler sampler = new HeteroKHopSampler(store.adjacency(), store.nodeIds(), fanouts, seedType,
                replace, false);
        List<String> nodeTypes = new ArrayList<>(store.nodeIds().keySet());
        List<TypedAdjacency> adjacency = new ArrayList<>(store.adjacency().values());
        List<HeteroBatchAssembly.Relation> relations = new ArrayList<>();
        for (TypedAdjacency a : adjacency) {
            relations.add(new HeteroBatchAssembly.Relation(nodeTypes.indexOf(a.keyType()),
                    nodeTypes.indexOf(a.valueType())));
        }
        NodeIdMap seedIds = store.nodeIds(seedType);
        Random random = new Random(dataset.hashCode());
        long seed = 5;
        int hops = fanouts.values().iterator().next().length;
        for (int batchId = 0; batchId < 5; batchId++) {
            int[] seeds = new int[48];
            for (int i = 0; i < seeds.length; i++) {
                seeds[i] = random.nextInt(seedIds.size());
            }
            HeteroSubgraph expected = sampler.sample(seeds, seed, 2, batchId);

            long[] seedIdList = new long[seeds.length];
            for (int i = 0; i < seeds.length; i++) {
                seedIdList[i] = seedIds.id(seeds[i]);
            }
            HeteroBatchAssembly batch = new HeteroBatchAssembly(nodeTypes.size(), relations,
                    nodeTypes.indexOf(seedType), seedIdList);
            for (int hop = 1; hop <= hops; hop++) {
                long[][][] answers = new long[relations.size()][][];
                for (int r = 0; r < relations.size(); r++) {
                    TypedAdjacency a = adjacency.get(r);
                    int f = fanouts.get(a.type().toString())[hop - 1];
                    long[] frontier = batch.frontier(relations.get(r).keyType());
                    if (f == 0 || frontier.length == 0) {
                        continue;
                    }
                    answers[r] = answer(a, store, frontier, f, replace,
                            HeteroKHopSampler.hopSeed(seed, a.type(), hop), 2, batchId);
                }
                // Every other hop as lookups send it: each edge type's answers in groups, in any order.
                if ((batchId + hop) % 2 == 0) {
                    batch.addHop(answers);
                } else {
                    addGrouped(batch, answers, random);
                }
                // Carried between hops as a keyed operator carries it: exported and resumed.
                batch = new HeteroBatchAssembly(nodeTypes.size(), relations, batch.batch(), batch.ids(),
                        batch.numSampledNodes(), batch.rows(), batch.cols(), batch.numSampledEdges());
            }
            for (int t = 0; t < nodeTypes.size(); t++) {
                HeteroSubgraph.Nodes nodes = expected.nodes.get(nodeTypes.get(t));
                NodeIdMap ids = store.nodeIds(nodeTypes.get(t));
                long[] expectedIds = new long[nodes.indices.length];
                for (int i = 0; i < expectedIds.length; i++) {
                    expectedIds[i] = ids.id(nodes.indices[i]);
                }
                assertThat(batch.ids()[t]).containsExactly(expectedIds);
                assertThat(batch.numSampledNodes()[t]).containsExactly(nodes.numSampledNodes);
            }
            long sampled = 0;
            for (int r = 0; r < relations.size(); r++) {
                TypedAdjacency a = adjacency.get(r);
                EdgeType reported = a.csr().direction() == EdgeDirection.OUT ? a.type().reversed() : a.type();
                HeteroSubgraph.Edges edges = expected.edges.get(reported);
                assertThat(batch.rows()[r]).containsExactly(edges.rows);
                assertThat(batch.cols()[r]).containsExactly(edges.cols);
                assertThat(batch.numSampledEdges()[r]).containsExactly(edges.numSampledEdges);
                sampled += edges.rows.length;
            }
            assertThat(sampled).isPositive();
        }
    }

    /** Each frontier node answered from its own list, as the lookup that owns (edge type, node) answers. */
    private static long[][] answer(TypedAdjacency a, TypedGraphStore store, long[] frontier, int f, boolean replace,
            long hopSeed, int epoch, int batchId) {
        NodeIdMap keyIds = store.nodeIds(a.keyType());
        NodeIdMap valueIds = store.nodeIds(a.valueType());
        CsrGraph csr = a.csr();
        long[][] out = new long[frontier.length][];
        for (int i = 0; i < frontier.length; i++) {
            int v = keyIds.indexOf(frontier[i]);
            int[] picks = NeighborPicks.positions(hopSeed, epoch, batchId, 1, frontier[i], csr.degree(v), f, replace);
            out[i] = new long[picks.length];
            for (int p = 0; p < picks.length; p++) {
                out[i][p] = valueIds.id(csr.targets()[csr.start(v) + picks[p]] - a.valueBase());
            }
        }
        return out;
    }

    /** Applies {@code inOrder} (per edge type, per frontier position) split into 1-3 shuffled groups per edge type. */
    private static void addGrouped(HeteroBatchAssembly batch, long[][][] inOrder, Random random) {
        int types = inOrder.length;
        int[][][] positions = new int[types][][];
        int[][][] ends = new int[types][][];
        long[][][] neighbors = new long[types][][];
        for (int r = 0; r < types; r++) {
            if (inOrder[r] == null) {
                continue;
            }
            int groups = 1 + random.nextInt(3);
            List<List<Integer>> members = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                members.add(new ArrayList<>());
            }
            for (int i = 0; i < inOrder[r].length; i++) {
                members.get(random.nextInt(groups)).add(i);
            }
            positions[r] = new int[groups][];
            ends[r] = new int[groups][];
            neighbors[r] = new long[groups][];
            for (int g = 0; g < groups; g++) {
                java.util.Collections.shuffle(members.get(g), random);
                positions[r][g] = members.get(g).stream().mapToInt(Integer::intValue).toArray();
                ends[r][g] = new int[positions[r][g].length];
                List<Long> flat = new ArrayList<>();
                for (int i = 0; i < positions[r][g].length; i++) {
                    for (long v : inOrder[r][positions[r][g][i]]) {
                        flat.add(v);
                    }
                    ends[r][g][i] = flat.size();
                }
                neighbors[r][g] = flat.stream().mapToLong(Long::longValue).toArray();
            }
        }
        batch.addHop(positions, ends, neighbors);
    }
}
