package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.FanoutJobITCase.runAtParallelismOneAndTwo;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.sampling.hetero.HeteroMessageChecks;
import io.fanout.sampling.hetero.TypedReference;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real job (MiniCluster) on the typed graphs cora_hetero and bitcoin_alpha_typed: every message checked edge by
 * edge against the files ({@link HeteroMessageChecks}), byte-identical at parallelism 1 and 2.
 */
class HeteroJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    @Test
    void coraHeteroOutEdgesPerTypeFanoutsExactAndIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graph = SharedData.graph("cora_hetero");
        TypedReference ref = TypedReference.read(graph);
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp,
                "--graph", graph.toString(), "--seed-type", "paper",
                "--fanout", "paper__cites__paper:4,3;paper__has_word__word:5,0", "--batch-size", "700", "--shuffle",
                "--epochs", "2", "--with-edge");
        assertThat(messages).hasSize(2 * 4); // 2708 papers in batches of 700
        Map<EdgeType, int[]> fanouts = Map.of(EdgeType.parse("paper__cites__paper"), new int[] {4, 3},
                EdgeType.parse("paper__has_word__word"), new int[] {5, 0});
        Map<Long, Set<Long>> seedsPerEpoch = new TreeMap<>();
        long edges = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            edges += HeteroMessageChecks.check(m, ref, fanouts, EdgeDirection.OUT, true);
            // GLT's reversed name for the paper -> word edges walked out; the paper labels only (the input type).
            assertThat(m.contains("word__rev_has_word__paper.rows")).isTrue();
            assertThat(m.contains("paper.nlabels")).isTrue();
            assertThat(m.get("paper.nlabels").asLongArray()).hasSameSizeAs(m.get("paper.ids").asLongArray());
            long[] batch = m.get("paper.batch").asLongArray();
            long[] ids = m.get("paper.ids").asLongArray();
            for (int i = 0; i < batch.length; i++) {
                assertThat(ids[i]).isEqualTo(batch[i]);
            }
            seedsPerEpoch.computeIfAbsent(m.get("#META.epoch").asLongArray()[0], e -> new HashSet<>())
                    .addAll(java.util.Arrays.stream(batch).boxed().toList());
        }
        assertThat(edges).isGreaterThan(10_000);
        assertThat(seedsPerEpoch.values()).allSatisfy(s -> assertThat(s).hasSize(2708));
    }

    @Test
    void bitcoinTypedInEdgesWithWeightsExactAndIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        TypedReference ref = TypedReference.read(graph);
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp,
                "--graph", graph.toString(), "--fanout", "10,-1",
                "--edge-dir", "in", "--batch-size", "1000", "--with-edge");
        assertThat(messages).hasSize(4);
        Map<EdgeType, int[]> fanouts = Map.of(EdgeType.parse("user__trusts__user"), new int[] {10, -1},
                EdgeType.parse("user__distrusts__user"), new int[] {10, -1});
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            HeteroMessageChecks.check(m, ref, fanouts, EdgeDirection.IN, true);
            // Weights 1..10 as edge features, one per edge.
            float[] w = m.get("user__distrusts__user.efeats").asFloatArray();
            assertThat(w).hasSize(m.get("user__distrusts__user.rows").asLongArray().length);
            for (float x : w) {
                assertThat(x).isBetween(1f, 10f);
            }
        }
    }

    @Test
    void typedNodeFeaturesInUint8ForTheirTypeOnly() throws Exception {
        // A typed graph made in tmp from the shared files: cora_hetero's edges and word ids, cora's paper features.
        Path graph = Files.createDirectory(tmp.resolve("cora_typed_features"));
        Path hetero = SharedData.graph("cora_hetero");
        for (String name : new String[] {"edges.paper__cites__paper.tsv", "edges.paper__has_word__word.tsv",
                "nodes.word.tsv"}) {
            Files.createSymbolicLink(graph.resolve(name), hetero.resolve(name));
        }
        Path coraNodes = SharedData.graph("cora").resolve("nodes.tsv.gz");
        Files.createSymbolicLink(graph.resolve("nodes.paper.tsv.gz"), coraNodes);
        Map<Long, String[]> rows = new java.util.HashMap<>();
        for (String[] row : io.fanout.features.NodeFileReaderTest.referenceRows(coraNodes)) {
            rows.put(Long.parseLong(row[0]), row);
        }
        Path out = tmp.resolve("out");
        runJob("--graph", graph.toString(), "--seed-type", "paper", "--fanout", "3,2", "--batch-size", "1000",
                "--feature-dtype", "uint8", "--output", out.toString(), "--parallelism", "2");
        TreeMap<Long, byte[]> messages = readMessages(out);
        assertThat(messages).hasSize(3);
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            assertThat(m.contains("word.nfeats")).isFalse();
            long[] ids = m.get("paper.ids").asLongArray();
            assertThat(m.get("paper.nfeats").shape()).containsExactly(ids.length, 1433);
            byte[] q = m.get("paper.nfeats").asByteArray();
            float[] scale = m.get("#META.paper.nfeats_scale").asFloatArray();
            float[] offset = m.get("#META.paper.nfeats_offset").asFloatArray();
            long[] labels = m.get("paper.nlabels").asLongArray();
            for (int i = 0; i < ids.length; i++) {
                String[] row = rows.get(ids[i]);
                assertThat(labels[i]).isEqualTo(Long.parseLong(row[1]));
                for (int c = 0; c < 1433; c++) {
                    float value = offset[c] + scale[c] * (q[i * 1433 + c] & 0xff);
                    assertThat(value).as("feature %d of paper %d", c, ids[i]).isEqualTo(Float.parseFloat(row[2 + c]));
                }
            }
        }
    }
}
