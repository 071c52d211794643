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

    /** An edge type's file rows as {src, dst, time} (bitcoin_alpha_typed: columns src, dst, weight, timestamp). */
    private static List<long[]> timedRows(Path graph, EdgeType type) throws Exception {
        List<long[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(graph.resolve("edges." + type + ".tsv"))) {
            if (!line.startsWith("#")) {
                String[] f = line.split("\t");
                out.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[3])});
            }
        }
        return out;
    }

    /**
     * PyG's {@code LinkNeighborLoader(time_attr=...)} on a {@code HeteroData}: the seed edges' times are the link-seed
     * file's third column; every endpoint of every positive and negative is its own tree (one node type: sources'
     * trees, then destinations'), {@code #META.user.batch} is each node's tree mod P, and no sampled edge of any
     * type is newer than its pair's seed edge.
     */
    @Test
    void temporalTypedLinkPredictionNeverSamplesAfterTheSeedEdgesTime() throws Exception {
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        TypedReference ref = TypedReference.read(graph);
        EdgeType trusts = EdgeType.parse("user__trusts__user");
        EdgeType distrusts = EdgeType.parse("user__distrusts__user");
        Map<EdgeType, List<long[]>> files = Map.of(trusts, timedRows(graph, trusts), distrusts,
                timedRows(graph, distrusts));
        List<long[]> seeds = new ArrayList<>();
        StringBuilder text = new StringBuilder("# held-out trust edges with their times\n");
        for (int i = 300; i < files.get(trusts).size() && seeds.size() < 60; i += 331) {
            long[] r = files.get(trusts).get(i);
            seeds.add(r);
            text.append(r[0]).append('\t').append(r[1]).append('\t').append(r[2]).append('\n');
        }
        Path links = Files.writeString(tmp.resolve("timed-links.tsv"), text);
        TreeMap<Long, byte[]> messages = FanoutJobITCase.runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(),
                "--link-seeds", links.toString(), "--link-type", trusts.toString(), "--time-column", "timestamp",
                "--neg-sampling", "binary", "--neg-amount", "1", "--fanout", "5,5", "--edge-dir", "in",
                "--batch-size", "20", "--with-edge");
        assertThat(messages).hasSize(3);
        int sampled = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] ids = m.get("user.ids").asLongArray();
            long[] pair = m.get("#META.user.batch").asLongArray();
            long[] input = m.get("#META.input_id").asLongArray();
            long[] times = m.get("#META.edge_label_time").asLongArray();
            long[] index = m.get("#META.edge_label_index").asLongArray();
            float[] label = m.get("#META.edge_label").asFloatArray();
            assertThat(m.getString("#META.input_type")).isEqualTo(trusts.toString());
            int p = input.length;
            int n = 2 * p;
            assertThat(times).hasSize(n);
            assertThat(pair).hasSameSizeAs(ids);
            for (int i = 0; i < n; i++) {
                assertThat(index[i]).isEqualTo(i); // PyG's disjoint layout: every endpoint is its own tree's root
                assertThat(index[n + i]).isEqualTo(n + i);
                assertThat(pair[i]).isEqualTo(i % p);
                assertThat(pair[n + i]).isEqualTo(i % p);
                assertThat(times[i]).isEqualTo(seeds.get((int) input[i % p])[2]);
                long src = ids[i];
                long dst = ids[n + i];
                if (i < p) {
                    assertThat(label[i]).isEqualTo(1f);
                    assertThat(new long[] {src, dst, times[i]}).containsExactly(seeds.get((int) input[i]));
                } else {
                    assertThat(label[i]).isEqualTo(0f);
                    assertThat(ref.types.get(trusts).has(src, dst)).as("negative %d -> %d", src, dst).isFalse();
                }
            }
            for (EdgeType type : List.of(trusts, distrusts)) {
                long[] rows = m.get(type + ".rows").asLongArray();
                long[] cols = m.get(type + ".cols").asLongArray();
                long[] eids = m.get(type + ".eids").asLongArray();
                long[] edgeTime = m.get("#META." + type + ".edge_time").asLongArray();
                for (int k = 0; k < rows.length; k++) {
                    long[] edge = files.get(type).get((int) eids[k]);
                    int tree = (int) pair[(int) cols[k]];
                    assertThat(pair[(int) rows[k]]).isEqualTo(tree);
                    // edge-dir in: rows are the sampled sources, cols the nodes expanded
                    assertThat(new long[] {ids[(int) rows[k]], ids[(int) cols[k]]}).containsExactly(edge[0], edge[1]);
                    assertThat(edgeTime[k]).isEqualTo(edge[2]);
                    assertThat(edge[2]).as("%s row %d in pair %d", type, eids[k], tree).isLessThanOrEqualTo(times[tree]);
                    sampled++;
                }
            }
        }
        assertThat(sampled).isGreaterThan(200);
        Path untimed = Files.writeString(tmp.resolve("untimed.tsv"), "1\t2\n");
        assertThatThrownBy(() -> runJob("--graph", graph.toString(), "--link-seeds", untimed.toString(),
                "--link-type", trusts.toString(), "--time-column", "timestamp"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("third column");
        assertThatThrownBy(() -> runJob("--graph", graph.toString(), "--link-seeds", links.toString(),
                "--link-type", trusts.toString(), "--time-column", "timestamp", "--seed-time", "5"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.seed-time");
    }

    /**
     * {@code --disjoint} link seeds across two node types (paper -> word, triplet): pyg-lib numbers the trees across
     * the seed types (papers 0..P-1, words P..), PyG reports tree mod P, so a positive's paper, its word and its
     * negative words are all batch i, and every sampled edge stays within one pair.
     */
    @Test
    void disjointTripletTreesAcrossTwoNodeTypes() throws Exception {
        Path graph = SharedData.graph("cora_hetero");
        TypedReference ref = TypedReference.read(graph);
        EdgeType hasWord = EdgeType.parse("paper__has_word__word");
        Path file = tmp.resolve("links.tsv");
        List<long[]> seeds = seedFile(ref.types.get(hasWord), 211, file);
        TreeMap<Long, byte[]> messages = FanoutJobITCase.runAtParallelismOneAndTwo(tmp,
                "--graph", graph.toString(), "--link-seeds", file.toString(), "--disjoint",
                "--link-type", hasWord.toString(), "--neg-sampling", "triplet", "--neg-amount", "2", "--fanout",
                "paper__cites__paper:3,2;paper__has_word__word:2,2", "--batch-size", "100");
        int positives = 0;
        int edges = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] papers = m.get("paper.ids").asLongArray();
            long[] words = m.get("word.ids").asLongArray();
            long[] paperPair = m.get("#META.paper.batch").asLongArray();
            long[] wordPair = m.get("#META.word.batch").asLongArray();
            long[] src = m.get("#META.src_index").asLongArray();
            long[] pos = m.get("#META.dst_pos_index").asLongArray();
            long[] neg = m.get("#META.dst_neg_index").asLongArray();
            long[] inputIds = m.get("#META.input_id").asLongArray();
            int p = inputIds.length;
            assertThat(m.get("#META.dst_neg_index").shape()).containsExactly(p, 2);
            for (int i = 0; i < p; i++) {
                assertThat(src[i]).isEqualTo(i);
                assertThat(pos[i]).isEqualTo(i);
                assertThat(paperPair[i]).isEqualTo(i);
                assertThat(wordPair[i]).isEqualTo(i);
                long paper = papers[(int) src[i]];
                assertThat(new long[] {paper, words[(int) pos[i]]}).containsExactly(seeds.get((int) inputIds[i]));
                for (int k = 0; k < 2; k++) {
                    assertThat(neg[2 * i + k]).isEqualTo(p + (long) k * p + i); // PyG: negative-major trees
                    assertThat(wordPair[(int) neg[2 * i + k]]).isEqualTo(i);
                    long word = words[(int) neg[2 * i + k]];
                    assertThat(ref.types.get(hasWord).has(paper, word)).as("negative %d -> %d", paper, word).isFalse();
                }
                positives++;
            }
            Map<String, long[]> pairOf = Map.of("paper", paperPair, "word", wordPair);
            for (String key : m.names()) {
                if (key.endsWith(".rows") && !key.startsWith("#")) {
                    EdgeType type = EdgeType.parse(key.substring(0, key.length() - ".rows".length()));
                    long[] r = m.get(key).asLongArray();
                    long[] c = m.get(type + ".cols").asLongArray();
                    for (int k = 0; k < r.length; k++) {
                        assertThat(pairOf.get(type.src())[(int) r[k]]).isEqualTo(pairOf.get(type.dst())[(int) c[k]]);
                        edges++;
                    }
                }
            }
        }
        assertThat(positives).isEqualTo(seeds.size());
        assertThat(edges).isGreaterThan(100);
    }

    /**
     * Typed link seeds with {@code --subgraph-type bidirectional}, as PyG's {@code sample_from_edges} then
     * {@code to_bidirectional()}: on bitcoin_alpha_typed (both edge types within the user type) each type's edges are
     * the directional sample's plus their reverses, the nodes and labels are the directional ones; induced is refused
     * as for typed seed nodes.
     */
    @Test
    void bidirectionalLinkBatchesAreTheDirectionalOnesMadeSymmetric() throws Exception {
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        TypedReference ref = TypedReference.read(graph);
        EdgeType trusts = EdgeType.parse("user__trusts__user");
        Path file = tmp.resolve("links.tsv");
        seedFile(ref.types.get(trusts), 120, file);
        String[] common = {"--graph", graph.toString(), "--link-seeds", file.toString(), "--link-type",
                trusts.toString(), "--neg-sampling", "binary", "--fanout", "4,2", "--batch-size", "100",
                "--parallelism", "1"};
        TreeMap<Long, byte[]> directional = run(tmp.resolve("d"), common);
        TreeMap<Long, byte[]> bidirectional = run(tmp.resolve("b"), common, "--subgraph-type", "bidirectional");
        assertThat(bidirectional.keySet()).isEqualTo(directional.keySet());
        int added = 0;
        for (long key : directional.keySet()) {
            TensorMessage d = SafetensorsCodec.decode(directional.get(key));
            TensorMessage b = SafetensorsCodec.decode(bidirectional.get(key));
            assertThat(b.get("user.ids").asLongArray()).containsExactly(d.get("user.ids").asLongArray());
            assertThat(b.get("#META.edge_label_index").asLongArray())
                    .containsExactly(d.get("#META.edge_label_index").asLongArray());
            for (String type : List.of("user__trusts__user", "user__distrusts__user")) {
                java.util.Set<String> expected = new java.util.TreeSet<>();
                long[] r = d.get(type + ".rows").asLongArray();
                long[] c = d.get(type + ".cols").asLongArray();
                for (int k = 0; k < r.length; k++) {
                    expected.add(r[k] + ">" + c[k]);
                    expected.add(c[k] + ">" + r[k]);
                }
                long[] br = b.get(type + ".rows").asLongArray();
                long[] bc = b.get(type + ".cols").asLongArray();
                java.util.List<String> got = new ArrayList<>();
                for (int k = 0; k < br.length; k++) {
                    got.add(br[k] + ">" + bc[k]);
                }
                assertThat(got).doesNotHaveDuplicates();
                assertThat(new java.util.TreeSet<>(got)).isEqualTo(expected);
                assertThat(b.contains(type + ".num_sampled_edges")).isFalse();
                added += br.length - r.length;
            }
        }
        assertThat(added).isGreaterThan(100);
        assertThatThrownBy(() -> runJob(common[0], common[1], common[2], common[3], common[4], common[5],
                "--subgraph-type", "induced")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("fanout.subgraph-type").hasMessageContaining("typed graph");
    }

    private static TreeMap<Long, byte[]> run(Path out, String[] common, String... more) throws Exception {
        List<String> all = new ArrayList<>(List.of(common));
        all.addAll(List.of(more));
        all.addAll(List.of("--output", out.toString()));
        runJob(all.toArray(new String[0]));
        return FanoutJobITCase.readMessages(out);
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
