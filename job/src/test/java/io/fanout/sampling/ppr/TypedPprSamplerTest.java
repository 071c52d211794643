package io.fanout.sampling.ppr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fanout.features.FeatureDType;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.store.GraphSpec;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.SharedData;
import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed PPR on the real typed graphs cora_hetero and bitcoin_alpha_typed: each channel's push against the exact
 * PPR of ../shared/oracles/ppr_oracle.py on the channel's edge types (the test writes the channel's edges as an
 * edge file), within the forward-push bound; channel targets; weight columns; sampled edges.
 */
class TypedPprSamplerTest {
    private static final double ALPHA = 0.5;
    private static final double EPS = 1e-6;
    private static final double ROUNDING = 1e-12;

    @TempDir
    Path tmp;

    private static TypedGraphStore load(String name, EdgeDirection direction) throws Exception {
        return TypedGraphStore.load(new GraphSpec(SharedData.graph(name).toString(), direction, null,
                FeatureDType.FLOAT32, true));
    }

    private static TypedPprSampler sampler(TypedGraphStore g, String seedType, String channels, int maxPprNodes,
            double eps, boolean topUp, boolean sampledEdges) {
        PprChannels parsed = channels == null ? null : PprChannels.parse(channels, g.adjacency().keySet());
        return new TypedPprSampler(g.adjacency(), g.nodeIds(), seedType, parsed, ALPHA, eps, maxPprNodes, -1, topUp,
                sampledEdges, 3);
    }

    /** Writes a channel's walk graph as a directed edge file in global indices (the oracle's input). */
    private Path writeChannel(CsrGraph csr, String name) throws Exception {
        Path file = tmp.resolve(name + ".tsv");
        try (BufferedWriter w = Files.newBufferedWriter(file)) {
            w.write("# name=" + name + " directed=true num_nodes=" + csr.numNodes() + " columns=src,dst\n");
            for (int u = 0; u < csr.numNodes(); u++) {
                for (int p = csr.start(u); p < csr.end(u); p++) {
                    w.write(u + "\t" + csr.targets()[p] + "\n");
                }
            }
        }
        return file;
    }

    /** Every channel's scores within the push bound of the exact PPR of its edge types, for 12 seeds. */
    private void checkAgainstOracle(String graph, EdgeDirection dir, String seedType, String channels,
            Set<Integer> symmetricChannels) throws Exception {
        TypedGraphStore g = load(graph, dir);
        TypedPprSampler s = sampler(g, seedType, channels, 50, EPS, true, false);
        int n = g.nodeIds(seedType).size();
        int[] seeds = new int[12];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = (int) ((i * 2654435761L) % n);
        }
        int[] globalSeeds = new int[seeds.length];
        for (int i = 0; i < seeds.length; i++) {
            globalSeeds[i] = s.globalIndex(seedType, seeds[i]);
        }
        for (int c = 0; c < s.numChannels(); c++) {
            CsrGraph csr = s.push(c).graph();
            assertThat(csr.numEdges()).as("channel %d has edges", c).isPositive();
            double[][] exact = PprOracle.exactFile(writeChannel(csr, graph + "-" + dir + "-" + c), ALPHA, globalSeeds);
            for (int i = 0; i < seeds.length; i++) {
                int count = s.sampleSeed(seeds[i]);
                ForwardPush push = s.push(c);
                double bound = push.residualMass() / ALPHA + ROUNDING;
                double mass = 0;
                for (int u = 0; u < csr.numNodes(); u++) {
                    double err = exact[i][u] - push.score(u);
                    mass += push.score(u);
                    assertThat(err).as("%s channel %d seed %d node %d", graph, c, seeds[i], u)
                            .isBetween(-ROUNDING, bound);
                    assertThat(Math.abs(exact[i][u] - push.score(u) - push.residual(u))).isLessThanOrEqualTo(bound);
                    if (symmetricChannels.contains(c)) {
                        assertThat(err).isLessThan(push.undirectedErrorBound(u) + ROUNDING);
                    }
                }
                assertThat(mass + push.residualMass() / ALPHA).isCloseTo(1.0, within(1e-9));
                // The reported channel columns are this push's values.
                for (int j = 0; j < count && s.numChannels() > 1; j++) {
                    int v = s.selectedNode(j);
                    if (push.hop(v) >= 0) {
                        assertThat(s.selectedWeight(j, 2 + 3 * c)).isEqualTo(push.score(v) + push.residual(v));
                        assertThat(s.selectedWeight(j, 4 + 3 * c)).isEqualTo(1.0);
                    } else {
                        assertThat(s.selectedWeight(j, 4 + 3 * c)).isEqualTo(0.0);
                    }
                }
            }
        }
    }

    @Test
    void coraHeteroChannelsMatchTheOracleBothDirections() throws Exception {
        // cites is undirected (symmetric rows): the eps * degree bound holds too; has_word is one way.
        checkAgainstOracle("cora_hetero", EdgeDirection.OUT, "paper", "paper__cites__paper:0.5,paper__has_word__word:0.5",
                Set.of(0));
        checkAgainstOracle("cora_hetero", EdgeDirection.IN, "word", "paper__has_word__word+paper__cites__paper:1",
                Set.of());
    }

    @Test
    void bitcoinAlphaTypedChannelsMatchTheOracle() throws Exception {
        checkAgainstOracle("bitcoin_alpha_typed", EdgeDirection.OUT, "user",
                "user__trusts__user:0.7,user__distrusts__user+user__trusts__user:0.3", Set.of());
    }

    /** Without channels a one-type typed graph is the homogeneous sampler on the union of its edge types. */
    @Test
    void withoutChannelsBitcoinAlphaTypedIsTheHomogeneousSamplerOnTheUnion() throws Exception {
        TypedGraphStore g = load("bitcoin_alpha_typed", EdgeDirection.OUT);
        for (boolean topUp : new boolean[] {true, false}) {
            TypedPprSampler typed = sampler(g, "user", null, 30, 1e-4, topUp, false);
            assertThat(typed.columns()).isEqualTo(2);
            PprSampler plain = new PprSampler(typed.push(0).graph(), ALPHA, 1e-4, 30, -1, topUp, 3);
            for (int seed = 0; seed < 3783; seed += 97) {
                int count = typed.sampleSeed(seed);
                assertThat(plain.sampleSeed(seed)).isEqualTo(count);
                for (int j = 0; j < count; j++) {
                    assertThat(typed.selectedNode(j)).isEqualTo(plain.selectedNode(j));
                    assertThat(typed.selectedWeight(j, 0)).isEqualTo(plain.selectedValue(j));
                }
            }
        }
    }

    @Test
    void targetCountsFollowGigl() {
        List<EdgeType> types = List.of(EdgeType.parse("a__r__b"), EdgeType.parse("a__s__b"), EdgeType.parse("b__t__a"));
        assertThat(PprChannels.parse("a__r__b:0.6,a__s__b+b__t__a:0.4", types).targetCounts(200)).containsExactly(120, 80);
        // floor(16.5)=16, floor(16.5)=16, floor(17)=17 -> one slot left, to the earlier of the tied remainders.
        assertThat(PprChannels.parse("a__r__b:0.33,a__s__b:0.33,b__t__a:0.34", types).targetCounts(50))
                .containsExactly(17, 16, 17);
        assertThat(PprChannels.parse("a__r__b:0.5,b__t__a:0.5", types).targetCounts(1)).containsExactly(1, 0);
    }

    /**
     * cora_hetero, 12 cites + 8 has_word slots: a seed whose channels each pushed enough nodes gets exactly its
     * targets; a seed with few words gives the free slots to the citations; never more than max_ppr_nodes.
     */
    @Test
    void channelTargetsAreRespected() throws Exception {
        TypedGraphStore g = load("cora_hetero", EdgeDirection.OUT);
        TypedPprSampler s = sampler(g, "paper", "paper__cites__paper:0.6,paper__has_word__word:0.4", 20, 1e-4, true,
                false);
        assertThat(s.targets()).containsExactly(12, 8);
        int exact = 0;
        int redistributed = 0;
        for (int seed = 0; seed < 2708; seed += 7) {
            int count = s.sampleSeed(seed);
            int[] attributed = new int[2];
            Set<Integer> nodes = new HashSet<>();
            for (int j = 0; j < count; j++) {
                attributed[s.selectedChannel(j)]++;
                assertThat(nodes.add(s.selectedNode(j))).as("no node twice").isTrue();
                if (j > 0) {
                    assertThat(s.selectedWeight(j, 0)).isLessThanOrEqualTo(s.selectedWeight(j - 1, 0));
                }
                // Papers come from the citation channel, words from the word channel (the seed from either).
                int v = s.selectedNode(j);
                if (v != s.globalIndex("paper", seed)) {
                    assertThat(s.selectedChannel(j)).isEqualTo(v < 2708 ? 0 : 1);
                }
            }
            assertThat(count).isLessThanOrEqualTo(20);
            int[] available = {discovered(s.push(0)), discovered(s.push(1))};
            // Every discovered node is a candidate: the sample is full unless the channels together found fewer.
            assertThat(count).isEqualTo(Math.min(20, available[0] + available[1] - 1));
            if (available[0] - 1 >= 12 && available[1] - 1 >= 8) {
                assertThat(attributed).containsExactly(12, 8);
                exact++;
            } else if (available[1] - 1 < 8 && count == 20) {
                assertThat(attributed[1]).isLessThanOrEqualTo(8);
                assertThat(attributed[0]).isGreaterThanOrEqualTo(12);
                redistributed++;
            }
        }
        assertThat(exact).isGreaterThan(50);
        assertThat(redistributed).isGreaterThan(0);
    }

    private static int discovered(ForwardPush p) {
        return p.numTouched();
    }

    @Test
    void weightColumnsAndSampledEdges() throws Exception {
        TypedGraphStore g = load("cora_hetero", EdgeDirection.OUT);
        TypedPprSampler s = sampler(g, "paper", "paper__cites__paper:0.5,paper__has_word__word:0.5", 16, 1e-4, true,
                true);
        TypedPprSubgraph sample = s.sample(new int[] {5, 9, 5, 1200, 33});
        assertThat(sample.numSeeds).isEqualTo(4);
        assertThat(sample.columns).isEqualTo(8);
        assertThat(sample.nodes.keySet()).containsExactly("paper", "word");
        assertThat(sample.nodes.get("paper")).startsWith(5, 9, 1200, 33);
        assertThat(sample.pprEdges.get("paper").numEdges() + sample.pprEdges.get("word").numEdges()).isEqualTo(4 * 16);
        for (Map.Entry<String, TypedPprSubgraph.PprEdges> e : sample.pprEdges.entrySet()) {
            TypedPprSubgraph.PprEdges edges = e.getValue();
            int n = edges.numEdges();
            for (int i = 0; i < n; i++) {
                double[] row = java.util.Arrays.copyOfRange(edges.weights, i * 8, i * 8 + 8);
                assertThat(row[0]).isEqualTo(Math.max(row[2] * row[4], row[5] * row[7]));
                assertThat(row[4] + row[7]).as("present in some channel").isGreaterThanOrEqualTo(1);
                double hop = Math.max(row[3], row[6]);
                assertThat(row[1]).isEqualTo(hop);
                assertThat(edges.edgeIndex[i]).isBetween(0, 3);
                assertThat(edges.edgeIndex[n + i]).isBetween(0, sample.nodes.get(e.getKey()).length - 1);
            }
        }
        // Sampled edges: real edges of the graph between selected nodes, under GLT's reported names.
        assertThat(sample.sampledEdges.keySet()).containsExactly(EdgeType.parse("paper__cites__paper"),
                EdgeType.parse("word__rev_has_word__paper"));
        int total = 0;
        for (Map.Entry<EdgeType, TypedPprSubgraph.SampledEdges> e : sample.sampledEdges.entrySet()) {
            TypedPprSubgraph.SampledEdges edges = e.getValue();
            TypedAdjacency a = edges.adjacency;
            int[] valueNodes = sample.nodes.get(e.getKey().src());
            int[] keyNodes = sample.nodes.get(e.getKey().dst());
            Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < edges.rows.length; i++) {
                int key = keyNodes[edges.cols[i]];
                int value = valueNodes[edges.rows[i]];
                int pos = edges.positions[i];
                assertThat(pos).isBetween(a.csr().start(key), a.csr().end(key) - 1);
                assertThat(a.csr().targets()[pos]).isEqualTo(a.valueBase() + value);
                assertThat(seen.add(pos)).as("each edge once").isTrue();
            }
            total += edges.rows.length;
        }
        assertThat(total).isPositive();
    }

    @Test
    void badChannelsNameTheProblem() {
        List<EdgeType> types = List.of(EdgeType.parse("paper__cites__paper"), EdgeType.parse("paper__has_word__word"));
        assertThatThrownBy(() -> PprChannels.parse("paper__cites__paper:0.5,paper__writes__paper:0.5", types))
                .hasMessageContaining("paper__writes__paper is not an edge type of the graph")
                .hasMessageContaining("[paper__cites__paper, paper__has_word__word]");
        assertThatThrownBy(() -> PprChannels.parse("paper__cites__paper:0.5,paper__has_word__word:0.4", types))
                .hasMessageContaining("must sum to 1");
        assertThatThrownBy(() -> PprChannels.parse("paper__cites__paper:0", types)).hasMessageContaining("(0, 1]");
        assertThatThrownBy(() -> PprChannels.parse("paper__cites__paper", types)).hasMessageContaining("<ratio>");
        assertThatThrownBy(() -> PprChannels.parse("paper__cites__paper:x", types)).hasMessageContaining("not a number");
        assertThatThrownBy(() -> PprChannels.parse("paper__cites__paper+paper__cites__paper:1", types))
                .hasMessageContaining("twice");
        assertThatThrownBy(() -> PprChannels.parse("paper__cites__paper:0.5,paper__cites__paper:0.5", types))
                .hasMessageContaining("same edge types");
        assertThatThrownBy(() -> PprChannels.parse("paper_cites:1", types)).hasMessageContaining("not <src>__<rel>__<dst>");
    }
}
