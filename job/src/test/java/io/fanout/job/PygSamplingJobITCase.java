package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertEpochsCoverSeeds;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.GraphLoader;
import io.fanout.testing.SharedData;
import io.fanout.testing.ShiftedWeights;
import java.nio.file.Path;
import java.util.TreeMap;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyG's sampling options in the real job (MiniCluster): weighted ({@code --weight-column}) and disjoint
 * ({@code --disjoint}) k-hop messages, byte-identical at parallelism 1 and 2, and their option errors.
 */
class PygSamplingJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder()
                    .setNumberTaskManagers(1)
                    .setNumberSlotsPerTaskManager(2)
                    .build());

    @TempDir
    Path tmp;

    /** {@link FanoutJobITCase#runAtParallelismOneAndTwo} with its output under {@code tmp/<name>}. */
    private TreeMap<Long, byte[]> sameAtParallelismOneAndTwo(String name, String... args) throws Exception {
        return FanoutJobITCase.runAtParallelismOneAndTwo(tmp.resolve(name), args);
    }

    @Test
    void weightedBitcoinAlphaIsIdenticalAtParallelismOneAndTwoWithAndWithoutReplacement() throws Exception {
        Path edges = ShiftedWeights.bitcoinAlpha(tmp);
        CsrGraph graph = GraphLoader.load(edges, EdgeDirection.OUT);
        for (boolean replace : new boolean[] {false, true}) {
            TreeMap<Long, byte[]> messages = sameAtParallelismOneAndTwo(replace ? "replace" : "weighted", "--graph",
                    edges.toString(), "--weight-column", "weight", "--fanout", "10,5", "--batch-size", "256", "--shuffle",
                    "--seed", "3", "--with-edge", "--replace", String.valueOf(replace));
            assertEpochsCoverSeeds(messages, graph, graph.numNodes(), 256, 1, 2);
            for (byte[] blob : messages.values()) {
                TensorMessage m = SafetensorsCodec.decode(blob);
                for (float w : m.get(MessageKeys.EFEATS).asFloatArray()) {
                    assertThat(w).isBetween(1f, 21f); // the shifted ratings
                }
            }
        }
    }

    @Test
    void disjointTreesOnCoraAreIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graphDir = SharedData.graph("cora");
        CsrGraph graph = GraphLoader.load(graphDir, EdgeDirection.OUT);
        TreeMap<Long, byte[]> messages = sameAtParallelismOneAndTwo("disjoint", "--graph", graphDir.toString(),
                "--disjoint", "--fanout", "5,3", "--batch-size", "200", "--seed", "4");
        assertEpochsCoverSeeds(messages, graph, graph.numNodes(), 200, 1, 2);
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] tree = m.get(MessageKeys.META_BATCH).asLongArray();
            long[] rows = m.get(MessageKeys.ROWS).asLongArray();
            long[] cols = m.get(MessageKeys.COLS).asLongArray();
            int seeds = m.get(MessageKeys.BATCH).asLongArray().length;
            assertThat(tree).hasSameSizeAs(m.get(MessageKeys.IDS).asLongArray());
            for (int i = 0; i < seeds; i++) {
                assertThat(tree[i]).isEqualTo(i);
            }
            for (int e = 0; e < rows.length; e++) {
                assertThat(tree[(int) cols[e]]).isEqualTo(tree[(int) rows[e]]);
            }
        }
        assertThatThrownBy(() -> runJob("--graph", graphDir.toString(), "--disjoint", "--sampler", "ppr"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--disjoint");
    }

    @Test
    void temporalCollegeMsgNeverSamplesALaterEdgeAndIsIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graphDir = SharedData.graph("college_msg");
        CsrGraph graph = GraphLoader.load(graphDir, EdgeDirection.OUT);
        long[] sorted = graph.timestamps().clone();
        java.util.Arrays.sort(sorted);
        long seedTime = sorted[sorted.length / 2];
        for (String strategy : new String[] {"uniform", "last"}) {
            TreeMap<Long, byte[]> messages = sameAtParallelismOneAndTwo(strategy, "--graph", graphDir.toString(),
                    "--time-column", "timestamp", "--seed-time", String.valueOf(seedTime), "--temporal-strategy", strategy,
                    "--fanout", "5,3", "--batch-size", "300", "--with-edge");
            assertEpochsCoverSeeds(messages, graph, graph.numNodes(), 300, 1, 2);
            long edges = 0;
            for (byte[] blob : messages.values()) {
                TensorMessage m = SafetensorsCodec.decode(blob);
                assertThat(m.get(MessageKeys.META_SEED_TIME).asLongArray()).containsOnly(seedTime);
                long[] edgeTimes = m.get(MessageKeys.META_EDGE_TIME).asLongArray();
                assertThat(edgeTimes).hasSameSizeAs(m.get(MessageKeys.ROWS).asLongArray());
                for (long t : edgeTimes) {
                    assertThat(t).isLessThanOrEqualTo(seedTime);
                }
                assertThat(m.get(MessageKeys.META_BATCH).asLongArray()).hasSameSizeAs(m.get(MessageKeys.IDS).asLongArray());
                edges += edgeTimes.length;
            }
            assertThat(edges).as("something sampled (%s)", strategy).isPositive();
        }
        assertThatThrownBy(() -> runJob("--graph", graphDir.toString(), "--time-column", "timestamp"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--seed-time");
        assertThatThrownBy(() -> runJob("--graph", graphDir.toString(), "--time-column", "time", "--seed-time", "0"))
                .isInstanceOf(GraphFormatException.class).hasMessageContaining("fanout.time-column 'time'");
        assertThatThrownBy(() -> runJob("--graph", graphDir.toString(), "--temporal-strategy", "newest"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--temporal-strategy").hasMessageContaining("newest");
    }

    @Test
    void seedFileTimesBoundEachTreeAndAreIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graphDir = SharedData.graph("college_msg");
        CsrGraph graph = GraphLoader.load(graphDir, EdgeDirection.OUT);
        long[] sorted = graph.timestamps().clone();
        java.util.Arrays.sort(sorted);
        StringBuilder file = new StringBuilder("# id<TAB>time\n");
        int numSeeds = 400;
        long[] times = new long[numSeeds];
        for (int i = 0; i < numSeeds; i++) {
            times[i] = sorted[(int) ((long) i * 7919 % sorted.length)]; // seed times all over the range
            file.append(i * 3 % graph.numNodes()).append('\t').append(times[i]).append('\n');
        }
        Path seeds = tmp.resolve("seeds.tsv");
        java.nio.file.Files.writeString(seeds, file.toString());
        TreeMap<Long, byte[]> messages = sameAtParallelismOneAndTwo("seedtimes", "--graph", graphDir.toString(),
                "--time-column", "timestamp", "--seeds", seeds.toString(), "--fanout", "6,4", "--batch-size", "128",
                "--shuffle", "--with-edge");
        long edges = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] inputIds = m.get(MessageKeys.META_INPUT_ID).asLongArray();
            long[] seedTimes = m.get(MessageKeys.META_SEED_TIME).asLongArray();
            for (int i = 0; i < inputIds.length; i++) {
                assertThat(seedTimes[i]).isEqualTo(times[(int) inputIds[i]]);
            }
            long[] tree = m.get(MessageKeys.META_BATCH).asLongArray();
            long[] rows = m.get(MessageKeys.ROWS).asLongArray();
            long[] edgeTimes = m.get(MessageKeys.META_EDGE_TIME).asLongArray();
            for (int e = 0; e < rows.length; e++) {
                assertThat(edgeTimes[e]).isLessThanOrEqualTo(seedTimes[(int) tree[(int) rows[e]]]);
            }
            edges += rows.length;
        }
        assertThat(edges).isPositive();
        assertThatThrownBy(() -> runJob("--graph", graphDir.toString(), "--seeds", seeds.toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--time-column");
        assertThatThrownBy(() -> runJob("--graph", graphDir.toString(), "--time-column", "timestamp"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--seed-time");
    }

    @Test
    void inducedAndBidirectionalCoraAreIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graphDir = SharedData.graph("cora");
        CsrGraph graph = GraphLoader.load(graphDir, EdgeDirection.OUT);
        for (String type : new String[] {"induced", "bidirectional"}) {
            TreeMap<Long, byte[]> messages = sameAtParallelismOneAndTwo(type, "--graph", graphDir.toString(),
                    "--subgraph-type", type, "--fanout", "5,3", "--batch-size", "500");
            for (byte[] blob : messages.values()) {
                TensorMessage m = SafetensorsCodec.decode(blob);
                assertThat(m.contains(MessageKeys.NUM_SAMPLED_EDGES)).as("no per-hop edge counts (%s)", type).isFalse();
                long[] ids = m.get(MessageKeys.IDS).asLongArray();
                long[] rows = m.get(MessageKeys.ROWS).asLongArray();
                long[] cols = m.get(MessageKeys.COLS).asLongArray();
                for (int e = 0; e < rows.length; e++) {
                    // cora is undirected, so the reverse of a sampled edge is an edge too
                    assertThat(graph.hasEdge((int) ids[(int) rows[e]], (int) ids[(int) cols[e]])).isTrue();
                }
            }
        }
        assertThatThrownBy(() -> runJob("--graph", graphDir.toString(), "--subgraph-type", "induced", "--disjoint"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--subgraph-type").hasMessageContaining("PyG");
        assertThatThrownBy(() -> runJob("--graph", graphDir.toString(), "--subgraph-type", "undirected"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("undirected");
    }

    @Test
    void badSamplingWeightsFailBeforeTheJobNamingOptionFileAndLine() throws Exception {
        Path raw = SharedData.graph("bitcoin_alpha");
        assertThatThrownBy(() -> runJob("--graph", raw.toString(), "--weight-column", "weight"))
                .isInstanceOf(GraphFormatException.class).hasMessageContaining("edges.tsv line ")
                .hasMessageContaining("negative weight");
        assertThatThrownBy(() -> runJob("--graph", raw.toString(), "--weight-column", "rating"))
                .isInstanceOf(GraphFormatException.class).hasMessageContaining("fanout.weight-column 'rating'");
        assertThatThrownBy(() -> runJob("--graph", raw.toString(), "--weight-column", "weight", "--sampler", "ppr"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--weight-column")
                .hasMessageContaining("is for k-hop");
    }
}
