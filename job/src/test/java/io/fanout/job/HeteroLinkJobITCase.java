package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Link seeds with binary and triplet negatives on the real typed graphs (MiniCluster): GLT's link metadata points
 * at the seed edges' endpoints, negatives are never edges of the link type, messages are byte-identical at
 * parallelism 1 and 2.
 */
class HeteroLinkJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    /** Every {@code step}-th row of an edge file as a link-seed file in tmp: the seeds as {src, dst} rows. */
    private List<long[]> seedFile(TypedReference.TypeEdges edges, int step, Path file) throws Exception {
        List<long[]> seeds = new ArrayList<>();
        StringBuilder sb = new StringBuilder("# seed edges\n");
        for (int i = 0; i < edges.rows.size(); i += step) {
            long[] e = edges.rows.get(i);
            seeds.add(e);
            sb.append(e[0]).append('\t').append(e[1]).append('\n');
        }
        Files.writeString(file, sb);
        return seeds;
    }

    @Test
    void bitcoinBinaryNegativesAreNeverTrustEdgesAndLabelsPointAtTheSeeds() throws Exception {
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        TypedReference ref = TypedReference.read(graph);
        EdgeType trusts = EdgeType.parse("user__trusts__user");
        Path file = tmp.resolve("links.tsv");
        List<long[]> seeds = seedFile(ref.types.get(trusts), 40, file);
        TreeMap<Long, byte[]> messages = FanoutJobITCase.runAtParallelismOneAndTwo(tmp,
                "--graph", graph.toString(), "--link-seeds", file.toString(),
                "--link-type", trusts.toString(), "--neg-sampling", "binary", "--neg-amount", "1.5", "--fanout", "5,2",
                "--batch-size", "100", "--shuffle");
        assertThat(messages).hasSize((seeds.size() + 99) / 100);
        int positives = 0;
        int negatives = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            HeteroMessageChecks.check(m, ref, Map.of(trusts, new int[] {5, 2},
                    EdgeType.parse("user__distrusts__user"), new int[] {5, 2}), EdgeDirection.OUT, false);
            long[] ids = m.get("user.ids").asLongArray();
            long[] index = m.get("#META.edge_label_index").asLongArray();
            float[] label = m.get("#META.edge_label").asFloatArray();
            long[] inputIds = m.get("#META.input_id").asLongArray();
            int p = inputIds.length;
            int n = label.length;
            assertThat(n).isEqualTo(p + (int) Math.ceil(p * 1.5));
            assertThat(m.get("#META.edge_label_index").shape()).containsExactly(2, n);
            for (int i = 0; i < n; i++) {
                long src = ids[(int) index[i]];
                long dst = ids[(int) index[n + i]];
                if (i < p) {
                    assertThat(label[i]).isEqualTo(1f);
                    assertThat(new long[] {src, dst}).containsExactly(seeds.get((int) inputIds[i]));
                    positives++;
                } else {
                    assertThat(label[i]).isEqualTo(0f);
                    assertThat(ref.types.get(trusts).has(src, dst)).as("negative %d -> %d", src, dst).isFalse();
                    negatives++;
                }
            }
        }
        assertThat(positives).isEqualTo(seeds.size());
        assertThat(negatives).isGreaterThan(seeds.size());
    }

    @Test
    void coraTripletNegativesAcrossTwoNodeTypes() throws Exception {
        Path graph = SharedData.graph("cora_hetero");
        TypedReference ref = TypedReference.read(graph);
        EdgeType hasWord = EdgeType.parse("paper__has_word__word");
        Path file = tmp.resolve("links.tsv");
        List<long[]> seeds = seedFile(ref.types.get(hasWord), 97, file);
        TreeMap<Long, byte[]> messages = FanoutJobITCase.runAtParallelismOneAndTwo(tmp,
                "--graph", graph.toString(), "--link-seeds", file.toString(),
                "--link-type", hasWord.toString(), "--neg-sampling", "triplet", "--neg-amount", "3", "--fanout",
                "paper__cites__paper:4,2;paper__has_word__word:3,3", "--batch-size", "200", "--with-edge");
        int positives = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            HeteroMessageChecks.check(m, ref, Map.of(EdgeType.parse("paper__cites__paper"), new int[] {4, 2},
                    hasWord, new int[] {3, 3}), EdgeDirection.OUT, true);
            long[] papers = m.get("paper.ids").asLongArray();
            long[] words = m.get("word.ids").asLongArray();
            long[] src = m.get("#META.src_index").asLongArray();
            long[] pos = m.get("#META.dst_pos_index").asLongArray();
            long[] neg = m.get("#META.dst_neg_index").asLongArray();
            long[] inputIds = m.get("#META.input_id").asLongArray();
            assertThat(m.get("#META.dst_neg_index").shape()).containsExactly(src.length, 3);
            for (int i = 0; i < src.length; i++) {
                long paper = papers[(int) src[i]];
                assertThat(new long[] {paper, words[(int) pos[i]]}).containsExactly(seeds.get((int) inputIds[i]));
                for (int k = 0; k < 3; k++) {
                    long word = words[(int) neg[3 * i + k]];
                    assertThat(ref.types.get(hasWord).has(paper, word)).as("negative %d -> %d", paper, word).isFalse();
                }
                positives++;
            }
        }
        assertThat(positives).isEqualTo(seeds.size());
    }

    @Test
    void badLinkOptionsNameOptionAndValue() throws Exception {
        String cora = SharedData.graph("cora_hetero").toString();
        Path file = Files.writeString(tmp.resolve("links.tsv"), "0\t5\n1\t999999\n");
        assertThatThrownBy(() -> runJob("--graph", cora, "--link-seeds", file.toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.link-type (--link-type) is required");
        assertThatThrownBy(() -> runJob("--graph", cora, "--link-seeds", file.toString(), "--link-type",
                "paper__has_word__word")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("for option fanout.link-seeds").hasMessageContaining("line 2")
                .hasMessageContaining("999999");
        assertThatThrownBy(() -> runJob("--graph", cora, "--link-seeds", file.toString(), "--link-type",
                "paper__cites__paper", "--neg-sampling", "triplet", "--neg-amount", "1.5"))
                .hasMessageContaining("Invalid value '1.5' for option fanout.neg-amount");
        assertThatThrownBy(() -> runJob("--graph", cora, "--seed-type", "paper", "--neg-sampling", "binary"))
                .hasMessageContaining("fanout.neg-sampling (--neg-sampling) binary needs fanout.link-seeds");
        assertThatThrownBy(() -> runJob("--graph", cora, "--link-seeds", file.toString(), "--link-type",
                "paper__cites__paper", "--neg-sampling", "random"))
                .hasMessageContaining("Invalid value 'random' for option fanout.neg-sampling");
    }
}
