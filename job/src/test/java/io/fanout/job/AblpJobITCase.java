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
import java.util.List;
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

    private static final String PLAIN_POSITIVE = "#META.gigl_positive_labels."
            + "default_homogeneous_node_type__to_gigl_positive__default_homogeneous_node_type";
    private static final String PLAIN_NEGATIVE = "#META.gigl_negative_labels."
            + "default_homogeneous_node_type__to_gigl_negative__default_homogeneous_node_type";

    /**
     * ABLP on a plain graph (GiGL's DistABLPLoader on a homogeneous graph): cora with every fifth edge moved into a
     * positive label-edge file, plus a negative file of non-edges. The label edges are never traversed (every
     * sampled edge is an edge of the reduced graph, so no held-out label edge is ever sampled), each anchor's label
     * rows are exactly its label edges, the label nodes are in the sample, {@code batch} is the anchors (by default
     * every node with a positive label, once per epoch), and messages are byte-identical at parallelism 1 and 2.
     */
    @Test
    void plainGraphAnchorsWithLabelEdgeFiles() throws Exception {
        List<String> lines = Files.readAllLines(SharedData.graph("cora").resolve("edges.tsv"));
        Path graph = Files.createDirectories(tmp.resolve("cora-held-out"));
        StringBuilder kept = new StringBuilder(lines.get(0).replaceAll(" num_edges=[0-9]+", "")).append('\n');
        StringBuilder positiveText = new StringBuilder("# anchor\tlabel: held-out cora edges\n");
        Set<String> graphEdges = new HashSet<>();
        Map<Long, TreeSet<Long>> positives = new TreeMap<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split("\t");
            long a = Long.parseLong(f[0]);
            long b = Long.parseLong(f[1]);
            if (i % 5 == 0) {
                positiveText.append(a).append('\t').append(b).append('\n');
                positives.computeIfAbsent(a, k -> new TreeSet<>()).add(b);
            } else {
                kept.append(lines.get(i)).append('\n');
                graphEdges.add(a + ">" + b);
                graphEdges.add(b + ">" + a); // undirected
            }
        }
        Files.writeString(graph.resolve("edges.tsv"), kept);
        // Negatives: for every third anchor a node that is neither a graph edge nor a positive of it.
        StringBuilder negativeText = new StringBuilder();
        Map<Long, TreeSet<Long>> negatives = new TreeMap<>();
        int k = 0;
        for (Map.Entry<Long, TreeSet<Long>> e : positives.entrySet()) {
            if (k++ % 3 != 0) {
                continue;
            }
            long a = e.getKey();
            for (long n = (a * 7 + 13) % 2708; ; n = (n + 1) % 2708) {
                if (n != a && !graphEdges.contains(a + ">" + n) && !e.getValue().contains(n)) {
                    negativeText.append(a).append('\t').append(n).append('\n');
                    negatives.computeIfAbsent(a, x -> new TreeSet<>()).add(n);
                    break;
                }
            }
        }
        Path positiveFile = Files.writeString(tmp.resolve("positive-labels.tsv"), positiveText);
        Path negativeFile = Files.writeString(tmp.resolve("negative-labels.tsv"), negativeText);
        TreeMap<Long, byte[]> messages = FanoutJobITCase.runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(),
                "--ablp-positive-edges", positiveFile.toString(), "--ablp-negative-edges", negativeFile.toString(),
                "--fanout", "5,3", "--batch-size", "128", "--shuffle", "--epochs", "2");
        int batchesPerEpoch = (positives.size() + 127) / 128;
        assertThat(messages).hasSize(2 * batchesPerEpoch);
        long heldOutOnly = positives.entrySet().stream().mapToLong(e -> e.getValue().stream()
                .filter(b -> !graphEdges.contains(e.getKey() + ">" + b)).count()).sum();
        assertThat(heldOutOnly).as("label edges that are not graph edges").isGreaterThan(500);
        for (int epoch = 0; epoch < 2; epoch++) {
            Set<Long> anchorsSeen = new TreeSet<>();
            int sampledEdges = 0;
            for (byte[] blob : messages.subMap((long) epoch << 32, (long) (epoch + 1) << 32).values()) {
                TensorMessage m = SafetensorsCodec.decode(blob);
                assertThat(m.get("#IS_HETERO").asLongArray()).containsExactly(0);
                long[] anchors = m.get("batch").asLongArray();
                long[] ids = m.get("ids").asLongArray();
                long[] rows = m.get("rows").asLongArray();
                long[] cols = m.get("cols").asLongArray();
                for (int e = 0; e < rows.length; e++) {
                    // Never a label edge unless it is also a graph edge: every sampled edge is one of the graph's.
                    assertThat(graphEdges).contains(ids[(int) rows[e]] + ">" + ids[(int) cols[e]]);
                }
                sampledEdges += rows.length;
                Set<Long> sampled = new HashSet<>();
                for (long id : ids) {
                    sampled.add(id);
                }
                assertThat(m.get(PLAIN_POSITIVE).shape()[0]).isEqualTo(anchors.length);
                assertThat(m.get(PLAIN_NEGATIVE).shape()[0]).isEqualTo(anchors.length);
                for (int i = 0; i < anchors.length; i++) {
                    long a = anchors[i];
                    assertThat(anchorsSeen.add(a)).as("anchor %d once per epoch", a).isTrue();
                    assertThat(ids[i]).as("anchors are the first seeds").isEqualTo(a);
                    assertThat(row(m, PLAIN_POSITIVE, i)).as("positives of %d", a).isEqualTo(positives.get(a));
                    assertThat(row(m, PLAIN_NEGATIVE, i)).as("negatives of %d", a)
                            .isEqualTo(negatives.getOrDefault(a, new TreeSet<>()));
                    assertThat(sampled).as("label nodes are in the sample").containsAll(row(m, PLAIN_POSITIVE, i))
                            .containsAll(row(m, PLAIN_NEGATIVE, i));
                }
            }
            assertThat(anchorsSeen).isEqualTo(positives.keySet());
            assertThat(sampledEdges).isGreaterThan(10_000);
        }
        // Refusals, each naming its option: a typed graph's label edges are edge types, not files; temporal and
        // disjoint ABLP are not implemented; a bad row names the file and line; a negative that is also a positive.
        String cora = graph.toString();
        assertThatThrownBy(() -> runJob("--graph", cora, "--ablp-positive-type", "a__b__c"))
                .hasMessageContaining("fanout.ablp-positive-type (--ablp-positive-type) 'a__b__c' is for k-hop on a"
                        + " typed graph").hasMessageContaining("--ablp-positive-edges");
        assertThatThrownBy(() -> runJob("--graph", AblpGraphs.bitcoin(tmp.resolve("typed")).toString(),
                "--ablp-positive-edges", positiveFile.toString()))
                .hasMessageContaining("fanout.ablp-positive-edges (--ablp-positive-edges)")
                .hasMessageContaining("is for k-hop on a plain graph").hasMessageContaining("--ablp-positive-type");
        assertThatThrownBy(() -> runJob("--graph", cora, "--ablp-positive-edges", positiveFile.toString(),
                "--disjoint")).hasMessageContaining("fanout.disjoint").hasMessageContaining("not implemented");
        assertThatThrownBy(() -> runJob("--graph", cora, "--ablp-negative-edges", negativeFile.toString()))
                .hasMessageContaining("needs fanout.ablp-positive-edges");
        Path bad = Files.writeString(tmp.resolve("bad-labels.tsv"), "1\t2\n3\t99999\n");
        assertThatThrownBy(() -> runJob("--graph", cora, "--ablp-positive-edges", bad.toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.ablp-positive-edges")
                .hasMessageContaining("bad-labels.tsv").hasMessageContaining("line 2").hasMessageContaining("99999");
        String firstNegative = negativeText.substring(0, negativeText.indexOf("\n"));
        Path clash = Files.writeString(tmp.resolve("clash.tsv"), positiveText + firstNegative + "\n");
        assertThatThrownBy(() -> runJob("--graph", cora, "--ablp-positive-edges", clash.toString(),
                "--ablp-negative-edges", negativeFile.toString()))
                .hasMessageContaining("for option fanout.ablp-negative-edges")
                .hasMessageContaining("its edge " + firstNegative.replace("\t", " -> ") + " is also a positive");
    }
}
