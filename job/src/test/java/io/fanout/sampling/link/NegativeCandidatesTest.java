package io.fanout.sampling.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.testing.SharedData;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.sampling.Graphs;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link NegativeCandidates} gives exactly {@link NegativeSampler#binary}'s negatives from candidates checked together,
 * on real graphs in both stored directions, and refuses by name where the memory store would draw exactly.
 */
class NegativeCandidatesTest {
    @Test
    void theFirstNonEdgesAmongTheCandidatesAreTheMemoryStoresNegatives() throws Exception {
        for (String name : new String[] {"cora", "college_msg"}) {
            for (EdgeDirection direction : EdgeDirection.values()) {
                CsrGraph graph = GraphLoader.load(SharedData.graph(name), direction);
                int n = graph.numNodes();
                NegativeSampler sampler = new NegativeSampler(graph, n);
                for (int count : new int[] {1, 7, 512, 1300}) {
                    for (int batch = 0; batch < 20; batch++) {
                        int[][] expected = sampler.binary(count, 42, 3, batch);
                        assertThat(negatives(sampler, n, count, 42, 3, batch)).as("%s %s %d", name, direction, count)
                                .isDeepEqualTo(expected);
                    }
                }
            }
        }
    }

    @Test
    void tripletNegativesAreTheMemoryStoresToo() throws Exception {
        for (String name : new String[] {"cora", "college_msg"}) {
            for (EdgeDirection direction : EdgeDirection.values()) {
                CsrGraph graph = GraphLoader.load(SharedData.graph(name), direction);
                int n = graph.numNodes();
                NegativeSampler sampler = new NegativeSampler(graph, n);
                java.util.Random random = new java.util.Random(7);
                for (int amount : new int[] {1, 3}) {
                    for (int batch = 0; batch < 20; batch++) {
                        int[] sources = random.ints(1 + random.nextInt(300), 0, n).toArray();
                        int[] expected = sampler.triplet(sources, amount, 42, 1, batch);
                        int[] candidates = NegativeCandidates.triplet(n, NegativeCandidates.candidates(expected.length),
                                42, 1, batch);
                        int[] picked = NegativeCandidates.pick(expected.length, candidates.length,
                                (slot, c) -> sampler.isEdge(sources[slot / amount], candidates[c]));
                        int[] got = new int[picked.length];
                        for (int j = 0; j < got.length; j++) {
                            got[j] = candidates[picked[j]];
                        }
                        assertThat(got).as("%s %s amount %d", name, direction, amount).containsExactly(expected);
                    }
                }
            }
        }
    }

    @Test
    void aGraphOfEveryPairButAFewIsRefusedWhereTheMemoryStoreDrawsExactly() {
        int n = 40; // 1,597 of 1,600 ordered pairs are edges
        IntArrayList src = new IntArrayList();
        IntArrayList dst = new IntArrayList();
        for (int s = 0; s < n; s++) {
            for (int d = 0; d < n; d++) {
                if (!(s == 3 && d == 9) && !(s == 20 && d == 20) && !(s == 39 && d == 0)) {
                    src.add(s);
                    dst.add(d);
                }
            }
        }
        NegativeSampler sampler = new NegativeSampler(Graphs.fromEdges(n, src.toIntArray(), dst.toIntArray(),
                EdgeDirection.OUT), n);
        assertThatThrownBy(() -> negatives(sampler, n, 5, 1, 0, 0)).isInstanceOf(NegativeCandidates.TooDense.class)
                .hasMessageContaining("candidate pairs");
        // Checked one by one, a candidate list that a run of MAX_TRIES edges ends is refused as such.
        boolean[] edges = new boolean[NegativeSampler.MAX_TRIES + 10];
        java.util.Arrays.fill(edges, 0, NegativeSampler.MAX_TRIES, true);
        assertThatThrownBy(() -> NegativeCandidates.pick(edges, 1)).isInstanceOf(NegativeCandidates.TooDense.class)
                .hasMessageContaining(NegativeSampler.MAX_TRIES + " candidate pairs in a row");
        boolean[] oneShort = edges.clone();
        oneShort[NegativeSampler.MAX_TRIES - 1] = false;
        assertThat(NegativeCandidates.pick(oneShort, 2)).containsExactly(NegativeSampler.MAX_TRIES - 1,
                NegativeSampler.MAX_TRIES);
    }

    @Test
    void candidatesLeaveRoomForAQuarterOfThemBeingEdges() {
        assertThat(NegativeCandidates.candidates(0)).isEqualTo(64);
        assertThat(NegativeCandidates.candidates(1)).isEqualTo(66);
        assertThat(NegativeCandidates.candidates(512)).isEqualTo(832);
        assertThatThrownBy(() -> NegativeCandidates.candidates(Integer.MAX_VALUE)).isInstanceOf(ArithmeticException.class);
    }

    /** The partitioned store's way: candidates drawn ahead, checked, the first non-edges kept. */
    private static int[][] negatives(NegativeSampler sampler, int n, int count, long seed, int epoch, int batch) {
        int[][] candidates = NegativeCandidates.binary(n, n, NegativeCandidates.candidates(count), seed, epoch, batch);
        boolean[] isEdge = new boolean[candidates[0].length];
        for (int c = 0; c < isEdge.length; c++) {
            isEdge[c] = sampler.isEdge(candidates[0][c], candidates[1][c]);
        }
        int[] picked = NegativeCandidates.pick(isEdge, count);
        int[][] out = new int[2][count];
        for (int i = 0; i < count; i++) {
            out[0][i] = candidates[0][picked[i]];
            out[1][i] = candidates[1][picked[i]];
        }
        return out;
    }
}
