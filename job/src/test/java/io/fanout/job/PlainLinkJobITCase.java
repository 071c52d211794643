package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.runAtParallelismOneAndTwo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Link prediction on a plain graph (PyG's {@code LinkNeighborLoader} on a {@code Data}) through the real job on
 * citeseer (undirected) and cora_cites (directed): the positives are the batch's seed edges, no negative is an edge,
 * every sampled edge is real, byte-identical at parallelism 1 and 2.
 */
class PlainLinkJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    /** The graph's edges as "a>b" (both ways when undirected), and its rows in file order. */
    private static List<long[]> rows(Path graph, Set<String> edges) throws Exception {
        Path file = Files.exists(graph.resolve("edges.tsv")) ? graph.resolve("edges.tsv") : graph.resolve("edges.tsv.gz");
        List<long[]> out = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(file.toString().endsWith(".gz")
                ? new GZIPInputStream(Files.newInputStream(file)) : Files.newInputStream(file)))) {
            String header = in.readLine();
            boolean undirected = header.contains("directed=false");
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] f = line.split("\t");
                long a = Long.parseLong(f[0]);
                long b = Long.parseLong(f[1]);
                out.add(new long[] {a, b});
                edges.add(a + ">" + b);
                if (undirected) {
                    edges.add(b + ">" + a);
                }
            }
        }
        return out;
    }

    /** 120 of the graph's edges (a held-out set as users give it), as src TAB dst lines. */
    private Path linkSeeds(List<long[]> rows, long seed) throws Exception {
        Random random = new Random(seed);
        StringBuilder text = new StringBuilder("# held-out edges\n");
        for (int i = 0; i < 120; i++) {
            long[] r = rows.get(random.nextInt(rows.size()));
            text.append(r[0]).append('\t').append(r[1]).append('\n');
        }
        Path file = tmp.resolve("links-" + seed + ".tsv");
        Files.writeString(file, text);
        return file;
    }

    private static List<long[]> seedEdges(Path file) throws Exception {
        List<long[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.startsWith("#")) {
                String[] f = line.split("\t");
                out.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])});
            }
        }
        return out;
    }

    /** Every sampled edge (rows expanded along out-edges to cols) is an edge of the graph. */
    private static void sampledEdgesAreReal(TensorMessage m, Set<String> edges) {
        long[] ids = m.get("ids").asLongArray();
        long[] rows = m.get("rows").asLongArray();
        long[] cols = m.get("cols").asLongArray();
        assertThat(rows).isNotEmpty();
        for (int k = 0; k < rows.length; k++) {
            assertThat(edges).contains(ids[(int) rows[k]] + ">" + ids[(int) cols[k]]);
        }
    }

    @Test
    void binaryNegativesOnAnUndirectedGraph() throws Exception {
        Path graph = SharedData.graph("citeseer");
        Set<String> edges = new HashSet<>();
        List<long[]> rows = rows(graph, edges);
        Path links = linkSeeds(rows, 3);
        List<long[]> seeds = seedEdges(links);
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(),
                "--link-seeds", links.toString(), "--neg-sampling", "binary", "--neg-amount", "1.5",
                "--fanout", "5,5", "--batch-size", "50", "--shuffle", "--epochs", "2");
        assertThat(messages).hasSize(2 * 3);
        for (int epoch = 0; epoch < 2; epoch++) {
            Set<Long> inputs = new HashSet<>();
            for (byte[] blob : messages.subMap((long) epoch << 32, (long) (epoch + 1) << 32).values()) {
                TensorMessage m = SafetensorsCodec.decode(blob);
                assertThat(m.get("#IS_HETERO").asLongArray()).containsExactly(0);
                long[] ids = m.get("ids").asLongArray();
                long[] input = m.get("#META.input_id").asLongArray();
                long[] index = m.get("#META.edge_label_index").asLongArray();
                float[] label = m.get("#META.edge_label").asFloatArray();
                int p = input.length;
                int n = p + (int) Math.ceil(p * 1.5);
                assertThat(m.get("#META.edge_label_index").shape()).containsExactly(2, n);
                assertThat(label).hasSize(n);
                for (int i = 0; i < n; i++) {
                    long src = ids[(int) index[i]];
                    long dst = ids[(int) index[n + i]];
                    if (i < p) { // positives: the batch's seed edges, in input order
                        assertThat(label[i]).isEqualTo(1f);
                        assertThat(new long[] {src, dst}).containsExactly(seeds.get((int) input[i]));
                        inputs.add(input[i]);
                    } else { // strict negatives: never an edge
                        assertThat(label[i]).isEqualTo(0f);
                        assertThat(edges).doesNotContain(src + ">" + dst);
                    }
                }
                sampledEdgesAreReal(m, edges);
            }
            assertThat(inputs).hasSize(seeds.size()); // every seed edge once per epoch
        }
    }

    @Test
    void tripletNegativesOnADirectedGraph() throws Exception {
        Path graph = SharedData.graph("cora_cites");
        Set<String> edges = new HashSet<>();
        List<long[]> rows = rows(graph, edges);
        Path links = linkSeeds(rows, 9);
        List<long[]> seeds = seedEdges(links);
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(),
                "--link-seeds", links.toString(), "--neg-sampling", "triplet", "--neg-amount", "3",
                "--fanout", "4,4", "--edge-dir", "out", "--batch-size", "40");
        assertThat(messages).hasSize(3);
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] ids = m.get("ids").asLongArray();
            long[] input = m.get("#META.input_id").asLongArray();
            long[] src = m.get("#META.src_index").asLongArray();
            long[] pos = m.get("#META.dst_pos_index").asLongArray();
            long[] neg = m.get("#META.dst_neg_index").asLongArray();
            assertThat(m.get("#META.dst_neg_index").shape()).containsExactly(input.length, 3);
            assertThat(m.contains("#META.edge_label_index")).isFalse();
            for (int i = 0; i < input.length; i++) {
                assertThat(new long[] {ids[(int) src[i]], ids[(int) pos[i]]}).containsExactly(seeds.get((int) input[i]));
                for (int k = 0; k < 3; k++) {
                    assertThat(edges).doesNotContain(ids[(int) src[i]] + ">" + ids[(int) neg[i * 3 + k]]);
                }
            }
            sampledEdgesAreReal(m, edges);
        }
    }

    @Test
    void temporalLinkPredictionNeverSamplesAfterTheSeedEdgesTime() throws Exception {
        // college_msg: directed messages with times; the seed edges are messages with their own times.
        Path graph = SharedData.graph("college_msg");
        List<long[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(graph.resolve("edges.tsv"))) {
            if (!line.startsWith("#")) {
                String[] f = line.split("\t");
                rows.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[3])});
            }
        }
        Set<String> edges = new HashSet<>();
        rows.forEach(r -> edges.add(r[0] + ">" + r[1]));
        StringBuilder text = new StringBuilder();
        List<long[]> seeds = new ArrayList<>();
        for (int i = 500; i < rows.size() && seeds.size() < 60; i += 997) {
            long[] r = rows.get(i);
            seeds.add(r);
            text.append(r[0]).append('\t').append(r[1]).append('\t').append(r[2]).append('\n');
        }
        Path links = Files.writeString(tmp.resolve("timed-links.tsv"), text);
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(),
                "--link-seeds", links.toString(), "--time-column", "timestamp", "--neg-sampling", "binary",
                "--neg-amount", "1", "--fanout", "5,5", "--edge-dir", "in", "--batch-size", "20", "--with-edge");
        assertThat(messages).hasSize(3);
        int sampled = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] ids = m.get("ids").asLongArray();
            long[] input = m.get("#META.input_id").asLongArray();
            long[] pair = m.get("#META.batch").asLongArray();
            long[] times = m.get("#META.edge_label_time").asLongArray();
            long[] index = m.get("#META.edge_label_index").asLongArray();
            int p = input.length;
            assertThat(times).hasSize(2 * p);
            for (int i = 0; i < 2 * p; i++) {
                assertThat(index[i]).isEqualTo(i); // PyG's disjoint layout: every endpoint is its own tree's root
                assertThat(index[2 * p + i]).isEqualTo(2 * p + i);
                assertThat(times[i]).isEqualTo(seeds.get((int) input[i % p])[2]);
                String pairIds = ids[i] + ">" + ids[2 * p + i];
                if (i < p) {
                    assertThat(new long[] {ids[i], ids[2 * p + i]}).containsExactly(seeds.get((int) input[i])[0],
                            seeds.get((int) input[i])[1]);
                } else {
                    assertThat(edges).doesNotContain(pairIds);
                }
            }
            long[] rowsOf = m.get("rows").asLongArray();
            long[] colsOf = m.get("cols").asLongArray();
            long[] eids = m.get("eids").asLongArray();
            for (int k = 0; k < rowsOf.length; k++) {
                assertThat(pair[(int) rowsOf[k]]).isEqualTo(pair[(int) colsOf[k]]);
                long[] edge = rows.get((int) eids[k]);
                assertThat(edge[2]).isLessThanOrEqualTo(times[(int) pair[(int) colsOf[k]]]);
                sampled++;
            }
        }
        assertThat(sampled).isGreaterThan(100);
        Path untimed = Files.writeString(tmp.resolve("untimed.tsv"), "0\t1\n");
        assertThatThrownBy(() -> FanoutJob.run(JobConfigs.parse("--graph", graph.toString(), "--link-seeds",
                untimed.toString(), "--time-column", "timestamp")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("third column");
        assertThatThrownBy(() -> FanoutJob.run(JobConfigs.parse("--graph", graph.toString(), "--link-seeds",
                links.toString())))
                .isInstanceOf(ConfigException.class).hasMessageContaining("needs fanout.time-column");
    }

    @Test
    void disjointTripletTreesPerPairWithTheirNegatives() throws Exception {
        // Without times: --disjoint alone; triplet negatives (2 per positive) are trees of their positive's pair.
        Path graph = SharedData.graph("cora_cites");
        Set<String> edges = new HashSet<>();
        List<long[]> rows = rows(graph, edges);
        Path links = linkSeeds(rows, 21);
        List<long[]> seeds = seedEdges(links);
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(), "--disjoint",
                "--link-seeds", links.toString(), "--neg-sampling", "triplet", "--neg-amount", "2", "--fanout", "3,3",
                "--batch-size", "60");
        assertThat(messages).hasSize(2);
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] ids = m.get("ids").asLongArray();
            long[] pair = m.get("#META.batch").asLongArray();
            long[] input = m.get("#META.input_id").asLongArray();
            long[] src = m.get("#META.src_index").asLongArray();
            long[] pos = m.get("#META.dst_pos_index").asLongArray();
            long[] neg = m.get("#META.dst_neg_index").asLongArray();
            int p = input.length;
            assertThat(m.get("#META.dst_neg_index").shape()).containsExactly(p, 2);
            assertThat(m.contains("#META.seed_time")).isFalse();
            for (int i = 0; i < p; i++) {
                assertThat(new long[] {ids[(int) src[i]], ids[(int) pos[i]]}).containsExactly(seeds.get((int) input[i]));
                assertThat(pair[(int) src[i]]).isEqualTo(i);
                assertThat(pair[(int) pos[i]]).isEqualTo(i);
                for (int k = 0; k < 2; k++) {
                    assertThat(pair[(int) neg[2 * i + k]]).isEqualTo(i); // PyG: tree mod P is the positive
                    assertThat(edges).doesNotContain(ids[(int) src[i]] + ">" + ids[(int) neg[2 * i + k]]);
                }
            }
            long[] r = m.get("rows").asLongArray();
            long[] c = m.get("cols").asLongArray();
            for (int k = 0; k < r.length; k++) {
                assertThat(pair[(int) r[k]]).isEqualTo(pair[(int) c[k]]);
            }
            sampledEdgesAreReal(m, edges);
        }
    }

    @Test
    void aBadSeedEdgeNamesTheOptionFileAndLine() throws Exception {
        Path graph = SharedData.graph("cora_cites");
        Path links = tmp.resolve("bad.tsv");
        Files.writeString(links, "0\t1\n5\t999999\n");
        assertThatThrownBy(() -> FanoutJob.run(JobConfigs.parse("--graph", graph.toString(), "--link-seeds",
                links.toString(), "--output", tmp.resolve("out").toString())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("fanout.link-seeds").hasMessageContaining("bad.tsv")
                .hasMessageContaining("line 2").hasMessageContaining("999999");
        assertThatThrownBy(() -> JobConfigs.parse("--graph", graph.toString(), "--link-seeds", links.toString(),
                "--disjoint", "--subgraph-type", "induced"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.subgraph-type")
                .hasMessageContaining("fanout.disjoint");
    }

    /**
     * PyG's {@code sample_from_edges} with a subgraph type: the same nodes as the directional sample (so the labels
     * point at the same ids), bidirectional = the directional edges plus their reverses, coalesced; induced = every
     * graph edge among the sampled nodes. cora_cites is directed, so a reverse is generally not a graph edge.
     */
    @Test
    void subgraphTypesOfLinkBatchesAsPyg() throws Exception {
        Path graph = SharedData.graph("cora_cites");
        Set<String> edges = new HashSet<>();
        List<long[]> rows = rows(graph, edges);
        Path links = linkSeeds(rows, 33);
        List<long[]> seeds = seedEdges(links);
        String[] common = {"--graph", graph.toString(), "--link-seeds", links.toString(), "--neg-sampling", "binary",
                "--fanout", "4,3", "--batch-size", "60"};
        TreeMap<Long, byte[]> directional = runJob(tmp.resolve("directional"), common);
        TreeMap<Long, byte[]> bidirectional = runJob(tmp.resolve("bidirectional"), common, "--subgraph-type",
                "bidirectional");
        TreeMap<Long, byte[]> induced = runJob(tmp.resolve("induced"), common, "--subgraph-type", "induced");
        assertThat(directional).hasSize(2);
        int added = 0;
        int inducedExtra = 0;
        for (long key : directional.keySet()) {
            TensorMessage d = SafetensorsCodec.decode(directional.get(key));
            TensorMessage b = SafetensorsCodec.decode(bidirectional.get(key));
            TensorMessage i = SafetensorsCodec.decode(induced.get(key));
            long[] ids = d.get("ids").asLongArray();
            for (TensorMessage m : List.of(b, i)) {
                assertThat(m.get("ids").asLongArray()).containsExactly(ids);
                assertThat(m.get("#META.edge_label_index").asLongArray())
                        .containsExactly(d.get("#META.edge_label_index").asLongArray());
                assertThat(m.get("#META.edge_label").asFloatArray()).containsExactly(d.get("#META.edge_label").asFloatArray());
                assertThat(m.contains("num_sampled_edges")).isFalse(); // PyG: None once the edges are not by hop
            }
            long[] input = d.get("#META.input_id").asLongArray();
            long[] index = d.get("#META.edge_label_index").asLongArray();
            int n = index.length / 2;
            for (int k = 0; k < input.length; k++) {
                assertThat(new long[] {ids[(int) index[k]], ids[(int) index[n + k]]})
                        .containsExactly(seeds.get((int) input[k]));
            }
            Set<String> sampled = pairs(d);
            Set<String> expected = new java.util.TreeSet<>();
            for (String e : sampled) {
                String[] f = e.split(">");
                expected.add(e);
                expected.add(f[1] + ">" + f[0]);
            }
            List<String> both = edgeList(b);
            assertThat(both).doesNotHaveDuplicates();
            assertThat(new java.util.TreeSet<>(both)).isEqualTo(expected);
            added += both.size() - sampled.size();
            // Induced: exactly the graph's edges among the nodes (rows -> cols along out-edges, as sampled).
            Set<Long> nodes = new HashSet<>();
            for (long id : ids) {
                nodes.add(id);
            }
            Set<String> among = new HashSet<>();
            for (long[] r : rows) {
                if (nodes.contains(r[0]) && nodes.contains(r[1])) {
                    among.add(r[0] + ">" + r[1]);
                }
            }
            Set<String> got = pairs(i);
            assertThat(got).containsAll(sampled).isEqualTo(among);
            inducedExtra += got.size() - sampled.size();
        }
        assertThat(added).isGreaterThan(50);
        assertThat(inducedExtra).isGreaterThan(0);
    }

    private TreeMap<Long, byte[]> runJob(Path out, String[] common, String... more) throws Exception {
        List<String> all = new ArrayList<>(List.of(common));
        all.addAll(List.of(more));
        all.addAll(List.of("--output", out.toString(), "--parallelism", "2"));
        FanoutJobITCase.runJob(all.toArray(new String[0]));
        return FanoutJobITCase.readMessages(out);
    }

    /** A message's edges as "row id>col id" in message order. */
    private static List<String> edgeList(TensorMessage m) {
        long[] ids = m.get("ids").asLongArray();
        long[] r = m.get("rows").asLongArray();
        long[] c = m.get("cols").asLongArray();
        List<String> out = new ArrayList<>();
        for (int k = 0; k < r.length; k++) {
            out.add(ids[(int) r[k]] + ">" + ids[(int) c[k]]);
        }
        return out;
    }

    private static Set<String> pairs(TensorMessage m) {
        return new HashSet<>(edgeList(m));
    }
}
