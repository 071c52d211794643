package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.connectors.message.DType;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.message.Tensor;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.sampling.ppr.PprSampler;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The PPR job on real graphs in a real MiniCluster, read back from its offline files. */
class PprJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    private static final Set<String> PPR_KEYS = Set.of(MessageKeys.IDS, MessageKeys.BATCH, MessageKeys.ROWS,
            MessageKeys.COLS, MessageKeys.META_EDGE_INDEX, MessageKeys.META_EDGE_ATTR, MessageKeys.IS_HETERO,
            MessageKeys.META_EPOCH, MessageKeys.META_BATCH_ID, MessageKeys.META_NUM_BATCHES, MessageKeys.META_INPUT_ID);

    @Test
    void coraIsIdenticalAtParallelismOneAndTwoAndMatchesTheSampler() throws Exception {
        Path graphDir = SharedData.graph("cora");
        List<TreeMap<Long, byte[]>> runs = new ArrayList<>();
        for (int parallelism : new int[] {1, 2}) {
            Path out = tmp.resolve("p" + parallelism);
            JobSummary summary = FanoutJobITCase.runJob("--graph", graphDir.toString(), "--sampler", "ppr",
                    "--batch-size", "128", "--epochs", "2", "--shuffle", "--seed", "7", "--output", out.toString(),
                    "--parallelism", String.valueOf(parallelism));
            FanoutJobITCase.assertNoInProgressFiles(out);
            assertThat(summary.batches).isEqualTo(2 * 22);
            assertThat(summary.seeds).isEqualTo(2 * 2708);
            runs.add(FanoutJobITCase.readMessages(out));
        }
        FanoutJobITCase.assertSameMessages(runs.get(0), runs.get(1));
        CsrGraph graph = GraphLoader.load(graphDir, EdgeDirection.OUT);
        // The defaults are GiGL's PPRSamplerOptions: alpha 0.5, eps 1e-4, max_ppr_nodes 50, num_neighbors_per_hop 1000.
        PprSampler reference = new PprSampler(graph, 0.5, 1e-4, 50, 1000, true, 7);
        int[] seenPerEpoch = new int[2];
        for (byte[] blob : runs.get(0).values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            seenPerEpoch[(int) m.get(MessageKeys.META_EPOCH).asLongArray()[0]] += checkLayout(m, 50);
            assertThat(m.get(MessageKeys.META_NUM_BATCHES).asLongArray()).containsExactly(22L);
            assertMatchesSampler(m, reference);
        }
        assertThat(seenPerEpoch).containsExactly(2708, 2708);
    }

    /** In-edges of a directed graph with every PPR option set: the job passes each option to the sampler. */
    @Test
    void everyOptionReachesTheSamplerOnInEdges() throws Exception {
        Path graphDir = SharedData.graph("cora_cites");
        Path out = tmp.resolve("out");
        FanoutJobITCase.runJob("--graph", graphDir.toString(), "--sampler", "ppr", "--edge-dir", "in",
                "--alpha", "0.25", "--eps", "1e-5", "--max-ppr-nodes", "12", "--ppr-max-neighbors", "3",
                "--residual-topup", "false", "--seeds", "0,5,9,100,1000,2000,2707", "--batch-size", "3",
                "--seed", "11", "--output", out.toString());
        TreeMap<Long, byte[]> messages = FanoutJobITCase.readMessages(out);
        assertThat(messages).hasSize(3);
        PprSampler reference = new PprSampler(GraphLoader.load(graphDir, EdgeDirection.IN), 0.25, 1e-5, 12, 3,
                false, 11);
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            checkLayout(m, 12);
            assertMatchesSampler(m, reference);
        }
    }

    @Test
    void badPprOptionsFailBeforeTheJobNamingOptionAndValue() {
        String cora = SharedData.graph("cora").toString();
        String[][] cases = {
            {"--alpha", "0"}, {"--alpha", "1"}, {"--alpha", "1.5"}, {"--alpha", "-0.1"}, {"--alpha", "NaN"},
            {"--eps", "0"}, {"--eps", "-1e-4"}, {"--max-ppr-nodes", "0"}, {"--ppr-max-neighbors", "0"},
            {"--alpha", "x"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> FanoutJobITCase.runJob("--graph", cora, "--sampler", "ppr", c[0], c[1]))
                    .as("%s %s", c[0], c[1])
                    .isInstanceOf(ConfigException.class).hasMessageContaining(c[0]).hasMessageContaining(c[1]);
        }
        assertThatThrownBy(() -> FanoutJobITCase.runJob("--graph", cora, "--sampler", "pagerank"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--sampler").hasMessageContaining("pagerank");
    }

    /** Checks GiGL's PPR layout; returns the number of seeds in the batch. */
    private static int checkLayout(TensorMessage m, int maxPprNodes) {
        assertThat(m.names()).isEqualTo(PPR_KEYS);
        for (String key : PPR_KEYS) {
            assertThat(m.get(key).dtype()).as(key).isEqualTo(key.equals(MessageKeys.META_EDGE_ATTR) ? DType.F64 : DType.I64);
        }
        long[] ids = m.get(MessageKeys.IDS).asLongArray();
        long[] batch = m.get(MessageKeys.BATCH).asLongArray();
        assertThat(m.get(MessageKeys.ROWS).shape()).containsExactly(0L);
        assertThat(m.get(MessageKeys.COLS).shape()).containsExactly(0L);
        assertThat(m.get(MessageKeys.IS_HETERO).asLongArray()).containsExactly(0L);
        long[] uniqueSeeds = Arrays.stream(batch).distinct().toArray();
        assertThat(Arrays.copyOf(ids, uniqueSeeds.length)).containsExactly(uniqueSeeds);
        assertThat(Arrays.stream(ids).distinct().count()).isEqualTo(ids.length);
        Tensor edgeIndex = m.get(MessageKeys.META_EDGE_INDEX);
        Tensor edgeAttr = m.get(MessageKeys.META_EDGE_ATTR);
        int n = (int) edgeIndex.shape()[1];
        assertThat(edgeIndex.shape()).containsExactly(2L, n);
        assertThat(edgeAttr.shape()).containsExactly((long) n, 2L);
        long[] ei = edgeIndex.asLongArray();
        double[] attr = edgeAttr.asDoubleArray();
        int[] perSeed = new int[uniqueSeeds.length];
        for (int e = 0; e < n; e++) {
            int src = (int) ei[e];
            int dst = (int) ei[n + e];
            assertThat(src).isBetween(0, uniqueSeeds.length - 1);
            assertThat(dst).isBetween(0, ids.length - 1);
            perSeed[src]++;
            assertThat(attr[2 * e]).isGreaterThan(0).isLessThanOrEqualTo(1);
            double hop = 1 / attr[2 * e + 1] - 1;
            assertThat(Math.abs(hop - Math.rint(hop))).isLessThan(1e-9);
            if (dst == src) {
                assertThat(attr[2 * e + 1]).isEqualTo(1.0);
            }
            if (e > 0 && ei[e - 1] == src) {
                boolean ordered = attr[2 * (e - 1)] > attr[2 * e]
                        || (attr[2 * (e - 1)] == attr[2 * e] && ids[(int) ei[n + e - 1]] < ids[dst]);
                assertThat(ordered).as("edge %d sorted by score, ties by id", e).isTrue();
            } else if (e > 0) {
                assertThat(ei[e - 1]).as("edges grouped by seed in ids order").isLessThan(src);
            }
        }
        for (int c : perSeed) {
            assertThat(c).isBetween(1, maxPprNodes);
        }
        return batch.length;
    }

    private static void assertMatchesSampler(TensorMessage m, PprSampler reference) {
        long[] ids = m.get(MessageKeys.IDS).asLongArray();
        long[] ei = m.get(MessageKeys.META_EDGE_INDEX).asLongArray();
        double[] attr = m.get(MessageKeys.META_EDGE_ATTR).asDoubleArray();
        int n = ei.length / 2;
        int e = 0;
        for (int si = 0; e < n; si++) {
            int count = reference.sampleSeed((int) ids[si]);
            for (int j = 0; j < count; j++, e++) {
                assertThat(ei[e]).isEqualTo(si);
                assertThat(ids[(int) ei[n + e]]).isEqualTo(reference.selectedNode(j));
                assertThat(attr[2 * e]).isEqualTo(reference.selectedValue(j));
            }
        }
    }
}
