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
import io.fanout.testing.AblpGraphs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * ABLP on real data (bitcoin_alpha_typed with a fifth of its trust edges moved into a label edge type, MiniCluster):
 * label edges are never traversed, each anchor's label rows are exactly its label edges, negatives are never edges
 * of the graph, the label nodes are in the sample (also between two node types, on cora_hetero), and messages are
 * byte-identical at parallelism 1 and 2.
 */
class AblpJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    private static final EdgeType TRUSTS = EdgeType.parse("user__trusts__user");
    private static final EdgeType DISTRUSTS = EdgeType.parse("user__distrusts__user");

    @TempDir
    Path tmp;

    private static Map<Long, TreeSet<Long>> byAnchor(TypedReference.TypeEdges edges) {
        Map<Long, TreeSet<Long>> out = new TreeMap<>();
        for (long[] e : edges.rows) {
            out.computeIfAbsent(e[0], k -> new TreeSet<>()).add(e[1]);
        }
        return out;
    }

    /** Row i of a [B, P] label tensor without its -1 padding. */
    private static TreeSet<Long> row(TensorMessage m, String key, int i) {
        long[] shape = m.get(key).shape();
        long[] values = m.get(key).asLongArray();
        TreeSet<Long> out = new TreeSet<>();
        for (int k = 0; k < shape[1]; k++) {
            long v = values[(int) (i * shape[1] + k)];
            if (v != -1) {
                out.add(v);
            }
        }
        return out;
    }

    private void checkMessages(TreeMap<Long, byte[]> messages, TypedReference ref, EdgeDirection direction,
            Set<Long> anchorsSeen) {
        TypedReference original = null;
        Map<Long, TreeSet<Long>> positives = byAnchor(ref.types.get(EdgeType.parse(AblpGraphs.POSITIVE)));
        Map<Long, TreeSet<Long>> negatives = byAnchor(ref.types.get(EdgeType.parse(AblpGraphs.NEGATIVE)));
        String posKey = "#META.gigl_positive_labels." + AblpGraphs.POSITIVE;
        String negKey = "#META.gigl_negative_labels." + AblpGraphs.NEGATIVE;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            // Only the message-passing types are reported; every sampled edge is one of theirs (the derived trusts
            // file no longer holds the label edges), with exactly min(f, deg) per expanded node.
            for (String key : m.names()) {
                if (!key.startsWith("#META.")) {
                    assertThat(key).doesNotContain("gigl_positive__").doesNotContain("gigl_negative__");
                }
            }
            HeteroMessageChecks.check(m, ref, Map.of(TRUSTS, new int[] {5, 2}, DISTRUSTS, new int[] {5, 2}),
                    direction, false);
            long[] anchors = m.get("user.batch").asLongArray();
            long[] ids = m.get("user.ids").asLongArray();
            Set<Long> sampled = new HashSet<>();
            for (long id : ids) {
                sampled.add(id);
            }
            assertThat(m.get(posKey).shape()[0]).isEqualTo(anchors.length);
            assertThat(m.get(negKey).shape()).containsExactly(anchors.length, 2);
            for (int i = 0; i < anchors.length; i++) {
                long a = anchors[i];
                anchorsSeen.add(a);
                assertThat(ids[i]).as("anchors are the first seeds").isEqualTo(a);
                assertThat(row(m, posKey, i)).as("positives of %d", a).isEqualTo(positives.getOrDefault(a, new TreeSet<>()));
                assertThat(row(m, negKey, i)).as("negatives of %d", a).isEqualTo(negatives.getOrDefault(a, new TreeSet<>()));
                for (long n : row(m, negKey, i)) {
                    assertThat(positives.getOrDefault(a, new TreeSet<>())).doesNotContain(n);
                    assertThat(ref.types.get(TRUSTS).has(a, n) || ref.types.get(DISTRUSTS).has(a, n))
                            .as("negative %d -> %d is an edge", a, n).isFalse();
                }
                assertThat(sampled).as("label nodes are in the sample").containsAll(row(m, posKey, i))
                        .containsAll(row(m, negKey, i));
            }
        }
    }

    @Test
    void bitcoinAnchorsGetTheirLabelsAndLabelEdgesAreNeverTraversed() throws Exception {
        Path graph = AblpGraphs.bitcoin(tmp.resolve("g"));
        TypedReference ref = TypedReference.read(graph);
        Set<Long> anchors = new TreeSet<>();
        TreeMap<Long, byte[]> messages = FanoutJobITCase.runAtParallelismOneAndTwo(tmp,
                "--graph", graph.toString(), "--ablp-positive-type", AblpGraphs.POSITIVE, "--ablp-negative-type",
                AblpGraphs.NEGATIVE, "--fanout", "5,2", "--batch-size", "300", "--shuffle");
        checkMessages(messages, ref, EdgeDirection.OUT, anchors);
        // Default anchors: every node with a positive label edge, each once.
        assertThat(anchors).isEqualTo(byAnchor(ref.types.get(EdgeType.parse(AblpGraphs.POSITIVE))).keySet());
    }

    @Test
    void edgeDirInKeepsTheLabelsAnchorFirstAndSeedsSelectAnchors() throws Exception {
        Path graph = AblpGraphs.bitcoin(tmp.resolve("g"));
        TypedReference ref = TypedReference.read(graph);
        // User 40 trusts nobody: an anchor without labels gets a row of padding.
        Path seeds = Files.writeString(tmp.resolve("anchors.txt"), "7\n1\n40\n3\n");
        Set<Long> anchors = new TreeSet<>();
        TreeMap<Long, byte[]> messages = FanoutJobITCase.runAtParallelismOneAndTwo(tmp,
                "--graph", graph.toString(), "--ablp-positive-type", AblpGraphs.POSITIVE, "--ablp-negative-type",
                AblpGraphs.NEGATIVE, "--fanout", "5,2", "--edge-dir", "in", "--seeds", seeds.toString());
        assertThat(messages).hasSize(1);
        checkMessages(messages, ref, EdgeDirection.IN, anchors);
        assertThat(anchors).containsExactlyInAnyOrder(7L, 1L, 40L, 3L);
        TensorMessage m = SafetensorsCodec.decode(messages.firstEntry().getValue());
        assertThat(row(m, "#META.gigl_positive_labels." + AblpGraphs.POSITIVE, 2)).isEmpty();
    }

    @Test
    void coraLabelsBetweenTwoNodeTypesAreSeedsOfTheSupervisionType() throws Exception {
        // cora_hetero's paper -> word edges as the positive label type: only paper__cites__paper is walked.
        Path graph = SharedData.graph("cora_hetero");
        TypedReference ref = TypedReference.read(graph);
        EdgeType hasWord = EdgeType.parse("paper__has_word__word");
        Map<Long, TreeSet<Long>> words = byAnchor(ref.types.get(hasWord));
        Path seeds = Files.writeString(tmp.resolve("papers.txt"), "0\n5\n17\n2000\n1200\n42\n");
        TreeMap<Long, byte[]> messages = FanoutJobITCase.runAtParallelismOneAndTwo(tmp,
                "--graph", graph.toString(), "--ablp-positive-type", hasWord.toString(), "--fanout", "3,2",
                "--seeds", seeds.toString(), "--batch-size", "4");
        assertThat(messages).hasSize(2);
        String key = "#META.gigl_positive_labels." + hasWord;
        Set<Long> anchors = new TreeSet<>();
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            assertThat(m.contains("word__rev_has_word__paper.rows")).isFalse();
            HeteroMessageChecks.check(m, ref, Map.of(EdgeType.parse("paper__cites__paper"), new int[] {3, 2}),
                    EdgeDirection.OUT, false);
            long[] papers = m.get("paper.batch").asLongArray();
            Set<Long> sampledWords = new HashSet<>();
            for (long w : m.get("word.ids").asLongArray()) {
                sampledWords.add(w);
            }
            TreeSet<Long> allLabels = new TreeSet<>();
            for (int i = 0; i < papers.length; i++) {
                anchors.add(papers[i]);
                assertThat(row(m, key, i)).as("words of paper %d", papers[i]).isEqualTo(words.get(papers[i]));
                allLabels.addAll(row(m, key, i));
            }
            // The word seeds are exactly the label nodes (no edge type is walked into words).
            assertThat(sampledWords).isEqualTo(allLabels);
        }
        assertThat(anchors).containsExactlyInAnyOrder(0L, 5L, 17L, 2000L, 1200L, 42L);
    }

    @Test
    void badAblpOptionsNameOptionAndValue() throws Exception {
        String graph = AblpGraphs.bitcoin(tmp.resolve("g")).toString();
        String pos = AblpGraphs.POSITIVE;
        assertThatThrownBy(() -> runJob("--graph", graph, "--ablp-positive-type", "user__likes__user"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value 'user__likes__user' for option fanout.ablp-positive-type")
                .hasMessageContaining("its edge types: [user__distrusts__user, user__trusts__user, "
                        + AblpGraphs.NEGATIVE + ", " + pos + "]");
        assertThatThrownBy(() -> runJob("--graph", graph, "--ablp-positive-type", pos, "--fanout",
                "user__trusts__user:5;user__distrusts__user:5;" + pos + ":3"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("for option fanout.fanout")
                .hasMessageContaining(pos + " is a supervision (label) edge type of ABLP, never traversed");
        assertThatThrownBy(() -> runJob("--graph", graph, "--ablp-negative-type", AblpGraphs.NEGATIVE))
                .hasMessageContaining("fanout.ablp-negative-type (--ablp-negative-type) needs fanout.ablp-positive-type");
        assertThatThrownBy(() -> runJob("--graph", graph, "--ablp-positive-type", pos, "--ablp-negative-type", pos))
                .hasMessageContaining("the same edge type as");
        // A negative label edge that is also a positive one contradicts itself.
        Path clash = AblpGraphs.bitcoin(tmp.resolve("clash"));
        String firstPositive = Files.readAllLines(clash.resolve("edges." + pos + ".tsv")).get(1);
        Files.writeString(clash.resolve("edges." + AblpGraphs.NEGATIVE + ".tsv"), firstPositive + "\n",
                java.nio.file.StandardOpenOption.APPEND);
        assertThatThrownBy(() -> runJob("--graph", clash.toString(), "--ablp-positive-type", pos,
                "--ablp-negative-type", AblpGraphs.NEGATIVE))
                .hasMessageContaining("Invalid value '" + AblpGraphs.NEGATIVE + "' for option fanout.ablp-negative-type")
                .hasMessageContaining("its edge " + firstPositive.replace("\t", " -> ") + " is also a positive label edge");
        assertThatThrownBy(() -> runJob("--graph", graph, "--ablp-positive-type", pos, "--seed-type", "item"))
                .hasMessageContaining("Invalid value 'item' for option fanout.seed-type");
        assertThatThrownBy(() -> runJob("--graph", graph, "--ablp-positive-type", pos, "--sampler", "ppr"))
                .hasMessageContaining("fanout.ablp-positive-type (--ablp-positive-type) '" + pos + "' is for k-hop");
        Path links = Files.writeString(tmp.resolve("links.tsv"), "0\t5\n");
        assertThatThrownBy(() -> runJob("--graph", graph, "--ablp-positive-type", pos, "--link-seeds",
                links.toString())).hasMessageContaining("not both");
        assertThatThrownBy(() -> runJob("--graph", SharedData.graph("cora").toString(), "--ablp-positive-type", pos))
                .hasMessageContaining("fanout.ablp-positive-type (--ablp-positive-type) '" + pos + "' is for k-hop on a typed graph");
    }
}
