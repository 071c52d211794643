package io.fanout.sampling.partitioned;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.AliasTable;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.sampling.DisjointKHopSampler;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.sampling.WeightedDraws;
import io.fanout.testing.SharedData;
import io.fanout.testing.ShiftedWeights;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A node's temporal draws from its own list ({@link TemporalPicks}: its times and weights from group entries in any
 * order, sorted by time alone) are the in-memory store's ({@link DisjointKHopSampler} over the whole graph sorted by
 * time): on college_msg (parallel edges, many equal times) and bitcoin_alpha with shifted weights, uniform and
 * {@code last}, with and without replacement, for seed times before, inside and after each node's edges.
 */
class TemporalPicksTest {
    private static final long SEED = 7;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} fanout {1} replace={2} last={3}")
    @CsvSource({
        "college_msg, 3, false, false", "college_msg, 3, true, false", "college_msg, 3, false, true",
        "college_msg, 3, true, true", "college_msg, 40, false, false", "college_msg, -1, false, false",
        "bitcoin_alpha, 3, false, false", "bitcoin_alpha, 3, true, false", "bitcoin_alpha, 40, false, false",
        "bitcoin_alpha, 2, true, true", "bitcoin_alpha, 40, true, false"})
    void sameNeighboursAsTheInMemoryStore(String name, int fanout, boolean replace, boolean last) throws Exception {
        boolean weighted = name.equals("bitcoin_alpha");
        CsrGraph raw = GraphLoader.load(weighted ? ShiftedWeights.bitcoinAlpha(tmp) : SharedData.graph(name),
                EdgeDirection.OUT);
        CsrGraph sorted = raw.sortedByTime();
        NodeIdMap ids = NodeIdMap.identity(sorted.numNodes());
        KHopSampler khop = new KHopSampler(sorted, ids, new int[] {fanout}, replace, false,
                weighted ? new WeightedDraws(sorted.weights(), AliasTable.build(sorted)) : null);
        DisjointKHopSampler memory = new DisjointKHopSampler(khop, ids, false, last);
        Random random = new Random(name.hashCode() * 31L + fanout);
        int checked = 0;
        int partial = 0;
        for (int v = 0; v < raw.numNodes(); v++) {
            int d = raw.degree(v);
            if (d == 0) {
                continue;
            }
            long[] list = new long[d];
            for (int c = 0; c < d; c++) {
                list[c] = raw.targets()[raw.start(v) + c];
            }
            long[] times = Arrays.copyOfRange(raw.timestamps(), raw.start(v), raw.end(v));
            float[] weights = weighted ? Arrays.copyOfRange(raw.weights(), raw.start(v), raw.end(v)) : null;
            TemporalPicks.Node node = TemporalPicks.Node.of(list,
                    GroupValues.inListOrder(entries(times, random), d, v, "times"), weights, v);
            long min = Arrays.stream(times).min().getAsLong();
            long max = Arrays.stream(times).max().getAsLong();
            for (long time : new long[] {min - 1, min, times[random.nextInt(d)], times[random.nextInt(d)], max}) {
                int batchId = v % 5;
                // The node is tree 1 (after another seed), so its draws are from tree 1's stream.
                int other = (v + 1) % raw.numNodes();
                SampledSubgraph sub = memory.sample(new int[] {other, v}, new long[] {time, time}, SEED, 2, batchId);
                LongArrayList expected = new LongArrayList();
                for (int e = 0; e < sub.numEdges(); e++) {
                    if (sub.rows()[e] == 1) {
                        expected.add(sub.ids()[sub.cols()[e]]);
                    }
                }
                long[] actual = node.sample(SEED, 2, batchId, 1, 1, v, time, last, fanout, replace);
                assertThat(actual).as("node %d at time %d", v, time).containsExactly(expected.toLongArray());
                checked++;
                if (node.countUpTo(time) > 0 && node.countUpTo(time) < d) {
                    partial++;
                }
            }
        }
        assertThat(checked).isGreaterThan(1000);
        assertThat(partial).as("seed times inside a node's edges").isGreaterThan(100);
    }

    /** The node's times stored as groups of any size, read back in any order. */
    private static List<long[]> entries(long[] times, Random random) {
        List<long[]> entries = new ArrayList<>();
        for (int from = 0; from < times.length; ) {
            int to = Math.min(times.length, from + 1 + random.nextInt(5));
            entries.add(GroupValues.entry(1000L + from, times, from, to));
            from = to;
        }
        Collections.shuffle(entries, random);
        return entries;
    }

    @Test
    void equalTimesKeepListOrderAndNothingBeforeTheFirstEdge() {
        TemporalPicks.Node node = TemporalPicks.Node.of(new long[] {10, 11, 12, 13}, new long[] {5, 3, 5, 3}, null, 1);
        assertThat(node.sample(SEED, 0, 0, 1, 0, 1, 2, false, -1, false)).isEmpty();
        assertThat(node.sample(SEED, 0, 0, 1, 0, 1, 3, false, -1, false)).containsExactly(11, 13);
        assertThat(node.sample(SEED, 0, 0, 1, 0, 1, 9, false, -1, false)).containsExactly(11, 13, 10, 12);
        assertThat(node.sample(SEED, 0, 0, 1, 0, 1, 9, true, 2, false)).containsExactly(10, 12);
        assertThat(node.countUpTo(4)).isEqualTo(2);
    }

    @Test
    void missingTimesAndAllZeroWeightsNameTheNode() {
        List<long[]> two = List.of(GroupValues.entry(5, new long[] {1, 2}, 0, 2));
        assertThatThrownBy(() -> GroupValues.inListOrder(two, 3, 42, "times"))
                .isInstanceOf(IllegalStateException.class).hasMessage("node 42: 2 stored times for 3 neighbours");
        assertThatThrownBy(() -> TemporalPicks.Node.of(new long[] {1, 2}, new long[] {1, 2}, new float[] {0f, 0f}, 42))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("node 42: every weight of its 2 edges is 0");
    }
}
