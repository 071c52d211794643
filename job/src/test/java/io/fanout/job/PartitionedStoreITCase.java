package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.features.NodeFileReaderTest;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code --store partitioned} (adjacency in RocksDB keyed state, one keyed lookup per hop) gives byte-identical
 * k-hop messages to the in-memory store, at parallelism 1 and 2, on real graphs.
 */
class PartitionedStoreITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;
    private StoreRuns runs;

    @org.junit.jupiter.api.BeforeEach
    void runsInto() {
        runs = new StoreRuns(tmp);
    }

    private TreeMap<Long, byte[]> run(String store, int parallelism, Path graph, String... extra) throws Exception {
        return runs.run(store, parallelism, graph, extra);
    }

    private java.util.Map.Entry<JobSummary, TreeMap<Long, byte[]>> runWithSummary(String store, int parallelism,
            Path graph, String... extra) throws Exception {
        return runs.runWithSummary(store, parallelism, graph, extra);
    }

    @Test
    void compactingTheLoadedAdjacencyChangesNoSample() throws Exception {
        Path graph = SharedData.graph("pubmed");
        String[] options = {"--fanout", "10,5", "--batch-size", "1000", "--shuffle", "--partitioned.bucket-size", "7"};
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, options);
        var compacted = runWithSummary("partitioned", 2, graph, options);
        String[] off = java.util.Arrays.copyOf(options, options.length + 2);
        off[options.length] = "--partitioned.compact-after-load";
        off[options.length + 1] = "false";
        var loose = runWithSummary("partitioned", 2, graph, off);
        assertThat(compacted.getKey().loadCompactionMs).as("the default compacts every lookup's load").isPositive();
        assertThat(loose.getKey().loadCompactionMs).isZero();
        assertSameMessages(memory, compacted.getValue());
        assertSameMessages(memory, loose.getValue());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"cora, '15,10', 2", "pubmed, '10,5', 1", "bitcoin_alpha, '8,4,2', 1"})
    void partitionedMessagesAreByteIdenticalToTheMemoryStore(String dataset, String fanouts, int epochs) throws Exception {
        Path graph = SharedData.graph(dataset);
        String[] options = {"--fanout", fanouts, "--batch-size", "400", "--epochs", String.valueOf(epochs), "--shuffle"};
        TreeMap<Long, byte[]> memory = run("memory", 2, graph, options);
        TreeMap<Long, byte[]> partitioned1 = run("partitioned", 1, graph, options);
        TreeMap<Long, byte[]> partitioned2 = run("partitioned", 2, graph, options);
        assertSameMessages(memory, partitioned1);
        assertSameMessages(memory, partitioned2);
    }

    @Test
    void edgePartsAndInEdgesAndReplacementAsTheMemoryStore() throws Exception {
        // cora_cites split into three parts (the second and third without a header): order across parts counts.
        Path dir = citesInParts(Files.createDirectories(tmp.resolve("parts")));
        String[] options = {"--fanout", "6,3", "--batch-size", "256", "--edge-dir", "in", "--replace", "--directed", "true"};
        TreeMap<Long, byte[]> memory = run("memory", 1, dir, options);
        assertSameMessages(memory, run("partitioned", 2, dir, options));
        // Each part (about 23 KB) loaded as 1 KB ranges, most lines cut by a range's end: the same messages.
        String[] split = java.util.Arrays.copyOf(options, options.length + 2);
        split[options.length] = "--partitioned.split-size";
        split[options.length + 1] = "1kb";
        assertSameMessages(memory, run("partitioned", 2, dir, split));
    }

    @ParameterizedTest(name = "{0} {1} p={2} {3}")
    @CsvSource({"cora, rocksdb, 2, --fanout 5;3 --partitioned.split-size 1kb",
        "cora, hashmap, 1, --fanout 4;4 --subgraph-type bidirectional --edge-dir in --replace",
        "cora, hashmap, 2, --fanout 6;2 --subgraph-type induced --node-features NODES --partitioned.bucket-size 3",
        "cora, rocksdb, 1, --fanout 3;3 --disjoint --partitioned.cache-mb 0",
        "parts, hashmap, 2, --fanout 5;-1 --directed true --partitioned.split-size 1kb",
        "weighted, rocksdb, 2, --fanout 5;5 --weight-column weight",
        "weighted, hashmap, 2, --fanout 40;2 --weight-column weight --subgraph-type induced --edge-dir in",
        "weighted, hashmap, 1, --fanout 3;3 --weight-column weight --time-column timestamp --seed-time 1345435200"
            + " --partitioned.split-size 1kb",
        "college_msg, rocksdb, 2, --fanout 3;-1 --time-column timestamp --temporal-strategy last"
            + " --seed-time 1085119706 --subgraph-type bidirectional",
        "bitcoin_alpha, hashmap, 1, --fanout 6;2 --edge-dir in",
        "cora, rocksdb, 2, --fanout 4;2 --link-seeds LINKS"})
    void edgeIdsWeightsAndTimesAsTheMemoryStore(String dataset, String backend, int parallelism, String extra)
            throws Exception {
        // --with-edge: each sampled edge's input row over all parts (cora undirected: both directions of a row share
        // it; three parts of cora_cites, read in 1 KB ranges, count rows across parts), its weight (bitcoin_alpha's
        // shifted ratings) and, temporal, its time; directional, bidirectional and induced edges, disjoint trees and
        // link batches.
        Path graph = switch (dataset) {
            case "weighted" -> io.fanout.testing.ShiftedWeights.bitcoinAlpha(
                    Files.createDirectories(tmp.resolve("weighted")));
            case "parts" -> citesInParts(Files.createDirectories(tmp.resolve("parts")));
            default -> SharedData.graph(dataset);
        };
        List<String> options = new java.util.ArrayList<>(List.of("--with-edge", "--batch-size", "300", "--shuffle",
                "--epochs", "2"));
        TreeMap<Long, byte[]> memory = sameAsMemory(graph, backend, parallelism, options,
                extra.contains("LINKS") ? extra.replace("LINKS", linkSeeds(graph, false).toString()) : extra);
        io.fanout.connectors.message.TensorMessage first =
                io.fanout.connectors.message.SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).contains("eids");
        assertThat(first.get("eids").numElements()).isEqualTo(first.get("rows").numElements()).isPositive();
        // The memory store sends a weight column's values with or without --weight-column (bitcoin_alpha's ratings
        // are -10..10: never drawn by here), and cora has none.
        if (dataset.equals("cora") || dataset.equals("parts")) {
            assertThat(first.names()).doesNotContain("efeats");
        } else {
            assertThat(first.names()).contains("efeats");
        }
        if (extra.contains("--time-column")) {
            assertThat(first.names()).contains("#META.edge_time");
        }
    }

    /** cora_cites in three parts, the second and third without a header. */
    private static Path citesInParts(Path dir) throws Exception {
        List<String[]> rows = NodeFileReaderTest.referenceRows(SharedData.graph("cora_cites").resolve("edges.tsv"));
        int third = rows.size() / 3;
        for (int part = 0; part < 3; part++) {
            StringBuilder text = new StringBuilder(part == 0 ? "# directed=true columns=src,dst\n" : "");
            for (String[] row : rows.subList(part * third, part == 2 ? rows.size() : (part + 1) * third)) {
                text.append(row[0]).append('\t').append(row[1]).append('\n');
            }
            Files.writeString(dir.resolve("edges." + part + ".tsv"), text);
        }
        return dir;
    }

    @ParameterizedTest(name = "{0} edge-dir {1} p={2}")
    @CsvSource({"rocksdb, out, 2", "hashmap, in, 1"})
    void bidirectionalSubgraphsAsTheMemoryStore(String backend, String edgeDir, int parallelism) throws Exception {
        Path graph = SharedData.graph("cora");
        String[] options = {"--fanout", "10,5", "--batch-size", "300", "--shuffle", "--edge-dir", edgeDir,
            "--subgraph-type", "bidirectional"};
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, options);
        String[] partitioned = java.util.Arrays.copyOf(options, options.length + 2);
        partitioned[options.length] = "--state-backend";
        partitioned[options.length + 1] = backend;
        assertSameMessages(memory, run("partitioned", parallelism, graph, partitioned));
        io.fanout.connectors.message.TensorMessage first =
                io.fanout.connectors.message.SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).as("PyG: bidirectional edges carry no per-hop counts")
                .contains("rows").doesNotContain("num_sampled_edges");
    }

    @ParameterizedTest(name = "{0} p={1} {2}")
    @CsvSource({"rocksdb, 2, --fanout 5;3", "hashmap, 1, --fanout 40;2 --edge-dir in",
        "rocksdb, 1, --fanout 4;4 --replace --partitioned.bucket-size 3",
        "hashmap, 2, --fanout 6;-1 --disjoint --partitioned.bucket-size 5 --partitioned.cache-mb 0"})
    void weightedDrawsAsTheMemoryStore(String backend, int parallelism, String extra) throws Exception {
        // bitcoin_alpha's ratings shifted to 1..21; hubs over buckets of 3 and 5; fanout 40: the exponential races;
        // cached weighted nodes (two epochs) and none (cache-mb 0).
        Path graph = io.fanout.testing.ShiftedWeights.bitcoinAlpha(Files.createDirectories(tmp.resolve("weighted")));
        List<String> options = new java.util.ArrayList<>(List.of("--weight-column", "weight", "--batch-size", "300",
                "--shuffle", "--epochs", "2"));
        for (String word : extra.split(" ")) {
            options.add(word.replace(';', ','));
        }
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, options.toArray(String[]::new));
        options.addAll(List.of("--state-backend", backend));
        assertSameMessages(memory, run("partitioned", parallelism, graph, options.toArray(String[]::new)));
        List<String> uniform = new java.util.ArrayList<>(options);
        uniform.subList(0, 2).clear();
        TreeMap<Long, byte[]> unweighted = run("partitioned", parallelism, graph, uniform.toArray(String[]::new));
        assertThat(java.util.Arrays.equals(unweighted.firstEntry().getValue(), memory.firstEntry().getValue()))
                .as("the weights change the draws").isFalse();
    }

    @ParameterizedTest(name = "{0} {1} p={2} {3}")
    @CsvSource({"cora, rocksdb, 2, --fanout 10;5", "cora, hashmap, 1, --fanout 6;3 --edge-dir in --replace",
        "college_msg, hashmap, 2, --fanout 5;5 --node-features NODES --partitioned.bucket-size 3",
        "cora, rocksdb, 1, --fanout 4;4 --node-features NODES --feature-dtype uint8"})
    void inducedSubgraphsAsTheMemoryStore(String dataset, String backend, int parallelism, String extra)
            throws Exception {
        Path graph = SharedData.graph(dataset);
        List<String> options = new java.util.ArrayList<>(List.of("--subgraph-type", "induced", "--batch-size", "150",
                "--shuffle"));
        TreeMap<Long, byte[]> memory = sameAsMemory(graph, backend, parallelism, options, extra);
        io.fanout.connectors.message.TensorMessage first =
                io.fanout.connectors.message.SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).as("PyG: induced edges carry no per-hop counts").doesNotContain("num_sampled_edges");
        assertThat(first.get("rows").numElements()).as("more edges than were sampled")
                .isGreaterThan(java.util.Arrays.stream(first.get("num_sampled_nodes").asLongArray()).sum() - 1
                        - first.get("num_sampled_nodes").asLongArray()[0]);
    }

    /**
     * The memory store's messages for {@code options} and {@code extra} (words apart by spaces, ';' for ',', NODES for
     * {@link #nodeFile}), and the partitioned store's on {@code backend} at {@code parallelism} the same bytes.
     */
    private TreeMap<Long, byte[]> sameAsMemory(Path graph, String backend, int parallelism, List<String> options,
            String extra) throws Exception {
        List<String> all = new java.util.ArrayList<>(options);
        for (String word : extra.split(" ")) {
            all.add(word.equals("NODES") ? nodeFile(graph, tmp.resolve("nodes.tsv")).toString() : word.replace(';', ','));
        }
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, all.toArray(String[]::new));
        all.addAll(List.of("--state-backend", backend));
        assertSameMessages(memory, run("partitioned", parallelism, graph, all.toArray(String[]::new)));
        return memory;
    }

    /** The graph's node file (cora's own), or one of a label and two features per node 0..num_nodes-1 (header). */
    private static Path nodeFile(Path graph, Path fallback) throws Exception {
        Path own = graph.resolve("nodes.tsv.gz");
        if (Files.exists(own)) {
            return own;
        }
        String header = Files.readAllLines(graph.resolve("edges.tsv")).get(0);
        int n = Integer.parseInt(header.replaceAll(".*num_nodes=(\\d+).*", "$1"));
        StringBuilder text = new StringBuilder();
        for (int id = 0; id < n; id++) {
            text.append(id).append('\t').append(id % 3).append('\t').append(id % 7).append("\t0.5\n");
        }
        Files.writeString(fallback, text);
        return fallback;
    }

    @ParameterizedTest(name = "{0} p={1} {2}")
    @CsvSource({"rocksdb, 2, --fanout 10;5", "hashmap, 1, --fanout 6;-1 --replace --edge-dir in",
        "rocksdb, 1, --fanout 8;4 --subgraph-type bidirectional --node-features NODES --feature-dtype float16",
        "hashmap, 2, --fanout 5;5;3 --partitioned.bucket-size 3"})
    void disjointTreesAsTheMemoryStore(String backend, int parallelism, String extra) throws Exception {
        Path graph = SharedData.graph("cora");
        List<String> options = new java.util.ArrayList<>(List.of("--disjoint", "--batch-size", "200", "--shuffle",
                "--epochs", "2"));
        for (String word : extra.split(" ")) {
            options.add(word.equals("NODES") ? graph.resolve("nodes.tsv.gz").toString() : word.replace(';', ','));
        }
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, options.toArray(String[]::new));
        options.addAll(List.of("--state-backend", backend));
        assertSameMessages(memory, run("partitioned", parallelism, graph, options.toArray(String[]::new)));
        io.fanout.connectors.message.TensorMessage first =
                io.fanout.connectors.message.SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).as("disjoint messages carry each node's tree").contains("#META.batch");
    }

    @ParameterizedTest(name = "{0} {1} p={2} {3}")
    @CsvSource({"college_msg, rocksdb, 2, --fanout 5;3",
        "college_msg, hashmap, 1, --fanout 4;4 --temporal-strategy last --edge-dir in",
        "college_msg, rocksdb, 1, --fanout 6;-1 --replace --partitioned.bucket-size 3 --partitioned.cache-mb 0",
        "bitcoin_alpha, hashmap, 2, --fanout 5;5 --weight-column weight --seed-time 1345435200",
        "bitcoin_alpha, rocksdb, 1, --fanout 3;3 --weight-column weight --temporal-strategy last --replace"
                + " --seed-time 1345435200"})
    void temporalTreesAsTheMemoryStore(String dataset, String backend, int parallelism, String extra) throws Exception {
        // Every seed at a time inside the graph's span (college_msg's median), so most nodes have edges on both sides;
        // college_msg: parallel edges and many equal times; bitcoin_alpha: weights (shifted to 1..21) over a prefix.
        Path graph = dataset.equals("bitcoin_alpha")
                ? io.fanout.testing.ShiftedWeights.bitcoinAlpha(Files.createDirectories(tmp.resolve("weighted")))
                : SharedData.graph(dataset);
        List<String> options = new java.util.ArrayList<>(List.of("--time-column", "timestamp", "--batch-size", "200",
                "--shuffle", "--epochs", "2"));
        if (!extra.contains("--seed-time")) {
            options.addAll(List.of("--seed-time", "1085119706"));
        }
        for (String word : extra.split(" ")) {
            options.add(word.replace(';', ','));
        }
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, options.toArray(String[]::new));
        options.addAll(List.of("--state-backend", backend));
        assertSameMessages(memory, run("partitioned", parallelism, graph, options.toArray(String[]::new)));
        io.fanout.connectors.message.TensorMessage first =
                io.fanout.connectors.message.SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).as("temporal messages carry the seeds' times and trees")
                .contains("#META.seed_time", "#META.batch");
        List<String> timeless = new java.util.ArrayList<>(options);
        timeless.subList(0, 2).clear();
        timeless.remove("--temporal-strategy");
        timeless.remove("last");
        int at = timeless.indexOf("--seed-time");
        timeless.subList(at, at + 2).clear();
        timeless.add("--disjoint");
        TreeMap<Long, byte[]> untimed = run("partitioned", parallelism, graph, timeless.toArray(String[]::new));
        assertThat(java.util.Arrays.equals(untimed.firstEntry().getValue(), memory.firstEntry().getValue()))
                .as("the seed time changes the sample").isFalse();
    }

    @ParameterizedTest(name = "{0} {1} p={2} {3}")
    @CsvSource({"cora, rocksdb, 2, --fanout 5;3",
        "cora, hashmap, 1, --fanout 4;4 --disjoint --subgraph-type bidirectional --edge-dir in",
        "cora, hashmap, 2, --fanout 6;2 --subgraph-type induced --node-features NODES --partitioned.bucket-size 3",
        "college_msg, rocksdb, 2, --fanout 5;3 --time-column timestamp",
        "college_msg, hashmap, 1, --fanout 3;-1 --time-column timestamp --temporal-strategy last --replace"})
    void linkBatchesAsTheMemoryStore(String dataset, String backend, int parallelism, String extra) throws Exception {
        // Seed edges from the graph's own rows (with their times for college_msg, PyG's edge_label_time), a pair given
        // twice; no negatives.
        Path graph = SharedData.graph(dataset);
        boolean timed = extra.contains("--time-column");
        List<String> options = new java.util.ArrayList<>(List.of("--link-seeds", linkSeeds(graph, timed).toString(),
                "--batch-size", "40", "--shuffle", "--epochs", "2"));
        TreeMap<Long, byte[]> memory = sameAsMemory(graph, backend, parallelism, options, extra);
        io.fanout.connectors.message.TensorMessage first =
                io.fanout.connectors.message.SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).as("a link batch's labels").contains("#META.edge_label_index");
        if (timed) {
            assertThat(first.names()).contains("#META.edge_label_time", "#META.batch");
        }
    }

    @ParameterizedTest(name = "{0} {1} p={2} {3}")
    @CsvSource({"cora, rocksdb, 2, --fanout 5;3 --neg-sampling binary",
        "cora, hashmap, 1, --fanout 4;4 --disjoint --neg-sampling binary --neg-amount 1.5 --edge-dir in",
        "cora, hashmap, 2, --fanout 6;2 --subgraph-type induced --neg-sampling binary --neg-amount 0.3"
            + " --node-features NODES",
        "sparse-cora, rocksdb, 2, --fanout 6;2 --subgraph-type bidirectional --neg-sampling binary --neg-amount 2"
            + " --partitioned.bucket-size 3",
        "college_msg, hashmap, 2, --fanout 5;3 --time-column timestamp --neg-sampling binary --neg-amount 0.5",
        "college_msg, rocksdb, 1, --fanout 3;2 --time-column timestamp --neg-sampling binary --partitioned.cache-mb 0",
        "cora, rocksdb, 2, --fanout 5;3 --neg-sampling triplet",
        "cora, hashmap, 1, --fanout 4;4 --disjoint --neg-sampling triplet --neg-amount 3 --edge-dir in",
        "sparse-cora, hashmap, 2, --fanout 6;2 --neg-sampling triplet --neg-amount 2 --subgraph-type induced",
        "college_msg, rocksdb, 2, --fanout 5;3 --time-column timestamp --neg-sampling triplet --neg-amount 2",
        "college_msg, hashmap, 1, --fanout 3;2 --time-column timestamp --neg-sampling triplet --edge-dir in"})
    void linkBatchesWithNegativesAsTheMemoryStore(String dataset, String backend, int parallelism, String extra)
            throws Exception {
        // Binary and triplet negatives, drawn ahead and checked against their own adjacency copy, are the memory store's; a
        // graph with sparse 64-bit ids draws them by index through the client's node-id file.
        Path graph = dataset.equals("sparse-cora") ? sparseCora() : SharedData.graph(dataset);
        boolean timed = extra.contains("--time-column");
        List<String> options = new java.util.ArrayList<>(List.of("--link-seeds", linkSeeds(graph, timed).toString(),
                "--batch-size", "40", "--shuffle", "--epochs", "2", "--partitioned.node-ids-dir",
                tmp.resolve("node-ids").toString()));
        TreeMap<Long, byte[]> memory = sameAsMemory(graph, backend, parallelism, options, extra);
        io.fanout.connectors.message.TensorMessage first =
                io.fanout.connectors.message.SafetensorsCodec.decode(memory.firstEntry().getValue());
        long positives = first.require("#META.input_id").shape()[0];
        double amount = extra.contains("--neg-amount")
                ? Double.parseDouble(extra.replaceAll(".*--neg-amount (\\S+).*", "$1")) : 1.0;
        if (extra.contains("triplet")) {
            assertThat(first.require("#META.dst_neg_index").shape()).as("[P] or [P, k], as PyG squeezes it")
                    .containsExactly(amount == 1 ? new long[] {positives} : new long[] {positives, (long) amount});
            assertThat(first.names()).contains("#META.src_index", "#META.dst_pos_index");
            if (timed) {
                assertThat(first.names()).contains("#META.seed_time");
            }
        } else {
            assertThat(first.require("#META.edge_label_index").shape()).as("positives, then ceil(P x amount) negatives")
                    .containsExactly(2, positives + (long) Math.ceil(positives * amount));
            assertThat(first.names()).contains("#META.edge_label");
        }
    }

    @Test
    void negativesOfAGraphNearlyAsDenseAsAllItsPairsFailNamingTheOptionWithoutRestarts() throws Exception {
        // 12 nodes, 138 of the 144 ordered pairs edges: the memory store draws such negatives exactly; the partitioned
        // store's candidates run out, and the job fails at once saying so (a restart would fail the same way).
        Path graph = Files.createDirectories(tmp.resolve("dense"));
        StringBuilder text = new StringBuilder("# directed=true columns=src,dst\n");
        for (int s = 0; s < 12; s++) {
            for (int d = 0; d < 12; d++) {
                if ((s * 12 + d) % 24 != 5) {
                    text.append(s).append('\t').append(d).append('\n');
                }
            }
        }
        Files.writeString(graph.resolve("edges.tsv"), text);
        Path links = Files.writeString(tmp.resolve("dense-links.tsv"), "0\t1\n1\t2\n2\t3\n");
        String[] options = {"--graph", graph.toString(), "--link-seeds", links.toString(), "--neg-sampling", "binary",
            "--neg-amount", "20", "--fanout", "2,2"};
        assertThat(runJob(options).batches).as("the memory store's exact draws").isEqualTo(1);
        String[] partitioned = java.util.Arrays.copyOf(options, options.length + 2);
        partitioned[options.length] = "--store";
        partitioned[options.length + 1] = "partitioned";
        assertThatThrownBy(() -> runJob(partitioned))
                .hasStackTraceContaining("fanout.neg-sampling binary with fanout.store partitioned")
                .hasStackTraceContaining("use fanout.store memory")
                .hasStackTraceContaining(SuppressRestartsException.class.getName());
    }

    @ParameterizedTest(name = "{0} {1} p={2} {3}")
    @CsvSource({"cora, rocksdb, 2, --fanout 5;3",
        "cora, hashmap, 1, --fanout 4;-1 --subgraph-type bidirectional --node-features NODES --edge-dir in",
        "cora, hashmap, 2, --fanout 6;2 --subgraph-type induced --seeds SEEDS",
        "sparse-cora, rocksdb, 1, --fanout 3;3 --replace --partitioned.bucket-size 3",
        "sparse-cora, hashmap, 2, --fanout 5;3 --seeds SEEDS"})
    void plainAblpAsTheMemoryStore(String dataset, String backend, int parallelism, String extra) throws Exception {
        // GiGL's ABLP on a plain graph: a fifth of the rows held out as positive label edges, a negative label for every
        // third anchor; anchors and label nodes are sampled together, the batch is the anchors.
        Path source = dataset.equals("sparse-cora") ? sparseCora() : SharedData.graph(dataset);
        List<String> lines = Files.readAllLines(source.resolve("edges.tsv"));
        Path graph = Files.createDirectories(tmp.resolve("held-out-" + dataset));
        StringBuilder kept = new StringBuilder(lines.get(0)).append('\n');
        java.util.Set<String> nodes = new java.util.HashSet<>();
        List<String[]> heldOut = new java.util.ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String[] f = lines.get(i).split("\t");
            if (i % 5 == 0) {
                heldOut.add(f);
            } else {
                kept.append(lines.get(i)).append('\n');
                nodes.add(f[0]);
                nodes.add(f[1]);
            }
        }
        // Label edges join nodes of the graph (a node whose every row was held out is none, without num_nodes).
        TreeMap<String, java.util.Set<String>> labelled = new TreeMap<>();
        StringBuilder positives = new StringBuilder();
        for (String[] f : heldOut) {
            if (nodes.contains(f[0]) && nodes.contains(f[1])) {
                positives.append(f[0]).append('\t').append(f[1]).append('\n');
                labelled.computeIfAbsent(f[0], a -> new java.util.HashSet<>()).add(f[1]);
            }
        }
        StringBuilder negatives = new StringBuilder();
        List<String> someNodes = new java.util.ArrayList<>(new java.util.TreeSet<>(nodes));
        int k = 0;
        for (java.util.Map.Entry<String, java.util.Set<String>> e : labelled.entrySet()) {
            String negative = someNodes.get(k * 7 % someNodes.size());
            if (k++ % 3 == 0 && !e.getValue().contains(negative)) {
                negatives.append(e.getKey()).append('\t').append(negative).append('\n');
            }
        }
        java.util.Set<String> anchors = labelled.keySet();
        Files.writeString(graph.resolve("edges.tsv"), kept.toString().replaceAll(" num_edges=[0-9]+", ""));
        Path positiveFile = Files.writeString(tmp.resolve("positive-" + dataset + ".tsv"), positives);
        Path negativeFile = Files.writeString(tmp.resolve("negative-" + dataset + ".tsv"), negatives);
        Path seeds = Files.writeString(tmp.resolve("anchors-" + dataset + ".txt"),
                String.join("\n", anchors.stream().limit(300).toList()) + "\n");
        List<String> options = new java.util.ArrayList<>(List.of("--ablp-positive-edges", positiveFile.toString(),
                "--ablp-negative-edges", negativeFile.toString(), "--batch-size", "64", "--shuffle", "--epochs", "2"));
        TreeMap<Long, byte[]> memory = sameAsMemory(graph, backend, parallelism, options,
                extra.replace("SEEDS", seeds.toString()));
        io.fanout.connectors.message.TensorMessage first =
                io.fanout.connectors.message.SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).anyMatch(n -> n.startsWith("#META.gigl_positive_labels."))
                .anyMatch(n -> n.startsWith("#META.gigl_negative_labels."));
    }

    /** Every 97th row of the graph's edge file (with its time) as seed edges, the first one given twice. */
    private Path linkSeeds(Path graph, boolean timed) throws Exception {
        StringBuilder links = new StringBuilder("# seed edges\n");
        int row = 0;
        for (String line : Files.readAllLines(graph.resolve("edges.tsv"))) {
            if (!line.startsWith("#") && row++ % 97 == 0) {
                String[] f = line.split("\t");
                links.append(f[0]).append('\t').append(f[1]).append(timed ? "\t" + f[3] : "").append('\n');
            }
        }
        links.append(links.substring(links.indexOf("\n") + 1, links.indexOf("\n", links.indexOf("\n") + 1) + 1));
        return Files.writeString(Files.createTempFile(tmp, "links", ".tsv"), links);
    }

    /** cora with its ids spread over 64 bits ({@link #sparse}). */
    private Path sparseCora() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("sparse-cora"));
        StringBuilder text = new StringBuilder("# directed=false columns=src,dst\n");
        for (String[] row : NodeFileReaderTest.referenceRows(SharedData.graph("cora").resolve("edges.tsv"))) {
            text.append(sparse(row[0])).append('\t').append(sparse(row[1])).append('\n');
        }
        Files.writeString(dir.resolve("edges.tsv"), text);
        return dir;
    }

    @Test
    void sparseInt64IdsAsTheMemoryStore() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("sparse"));
        StringBuilder text = new StringBuilder("# directed=false columns=src,dst\n");
        for (String[] row : NodeFileReaderTest.referenceRows(SharedData.graph("cora").resolve("edges.tsv"))) {
            text.append(sparse(row[0])).append('\t').append(sparse(row[1])).append('\n');
        }
        Files.writeString(dir.resolve("edges.tsv"), text);
        // Every node a seed: the client writes the sparse ids in id order to a file the TaskManagers read in chunks.
        Path ids = tmp.resolve("node-ids");
        String[] options = {"--fanout", "10,10", "--batch-size", "500", "--shuffle", "--partitioned.split-size", "4kb",
                "--epochs", "2", "--partitioned.seed-chunk", "300", "--partitioned.node-ids-dir", ids.toString()};
        TreeMap<Long, byte[]> memory = run("memory", 1, dir, options);
        assertSameMessages(memory, run("partitioned", 1, dir, options));
        assertSameMessages(memory, run("partitioned", 2, dir, options));
        // Paced, the same node-id file, each batch's seeds read from it by position.
        String[] paced = java.util.Arrays.copyOf(options, options.length + 2);
        paced[options.length] = "--max-batches-per-second";
        paced[options.length + 1] = "20";
        assertSameMessages(memory, run("partitioned", 2, dir, paced));
        List<Path> written;
        try (java.util.stream.Stream<Path> files = Files.list(ids)) {
            written = files.toList();
        }
        assertThat(written).as("one file, reused by the later runs").hasSize(1);
        List<Long> expected = NodeFileReaderTest.referenceRows(SharedData.graph("cora").resolve("edges.tsv")).stream()
                .flatMap(row -> java.util.stream.Stream.of(row[0], row[1])).map(PartitionedStoreITCase::sparse)
                .distinct().sorted().toList();
        assertThat(Files.readAllLines(written.get(0)).stream().map(Long::parseLong).toList())
                .containsExactlyElementsOf(expected);
    }

    private static long sparse(String id) {
        return (1L << 61) + Long.parseLong(id) * 1_000_003L;
    }

    @ParameterizedTest(name = "{0} {1} bucket size {2}")
    @CsvSource({"cora, '15,10', 2", "cora, '-1,3', 7", "pubmed, '10,5', 7", "ego_twitter_u, '10,5', 7"})
    void tinyBucketsSampleAsTheMemoryStore(String dataset, String fanouts, int bucketSize) throws Exception {
        Path graph = SharedData.graph(dataset);
        Path seeds = hubsAndSome(dataset, graph);
        String[] options = {"--fanout", fanouts, "--batch-size", "100", "--seeds", seeds.toString(), "--shuffle"};
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, options);
        String[] bucketed = java.util.Arrays.copyOf(options, options.length + 2);
        bucketed[options.length] = "--partitioned.bucket-size";
        bucketed[options.length + 1] = String.valueOf(bucketSize);
        // Parallelism 1 with the head cache (hubs' heads and later buckets answered from it once read), 2 without.
        assertSameMessages(memory, run("partitioned", 1, graph, bucketed));
        String[] uncached = java.util.Arrays.copyOf(bucketed, bucketed.length + 2);
        uncached[bucketed.length] = "--partitioned.cache-mb";
        uncached[bucketed.length + 1] = "0";
        assertSameMessages(memory, run("partitioned", 2, graph, uncached));
    }

    /**
     * ego_twitter_u (1,342,310 undirected rows, 2.7 M stored edges) with the default
     * buckets: 3,000 seeds (its 20 hubs and random others) in 6 batches, partitioned at parallelism 1 and 2
     * against the memory store, every message byte for byte.
     */
    @Test
    void egoTwitterThousandsOfSeedsAsTheMemoryStoreAtParallelismOneAndTwo() throws Exception {
        Path graph = SharedData.graph("ego_twitter_u");
        Path seeds = hubsAndSome("ego_twitter_u", graph, 3000);
        String[] options = {"--fanout", "10,5", "--batch-size", "512", "--seeds", seeds.toString(), "--shuffle"};
        TreeMap<Long, byte[]> memory = run("memory", 2, graph, options);
        assertThat(memory).hasSize(6);
        assertSameMessages(memory, run("partitioned", 1, graph, options));
        assertSameMessages(memory, run("partitioned", 2, graph, options));
    }

    /**
     * The seed file read by the TaskManagers in chunks (7 seeds each, so 315 chunks over the readers): 2,200 seed lines
     * of cora with duplicates, comments and blank lines, plain and gzipped (one sequential split per epoch), batches of
     * 100 with drop-last, 2 shuffled epochs, partitioned at parallelism 2 against the memory store (which reads the
     * same file on the client), every message byte for byte, its input ids included; k-hop, and PPR; and paced
     * ({@code --max-batches-per-second}), where each reader copies the file and reads each batch's seeds by position.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"seeds.txt, khop, 0", "seeds.txt.gz, khop, 0", "seeds.txt, ppr, 0", "seeds.txt.gz, khop, 50"})
    void aSeedFileReadInChunksByTheTaskManagersBatchesAsTheMemoryStore(String name, String sampler, int pace)
            throws Exception {
        Path graph = SharedData.graph("cora");
        StringBuilder text = new StringBuilder("# cora seeds\n");
        java.util.Random random = new java.util.Random(5);
        for (int i = 0; i < 2200; i++) {
            text.append(random.nextInt(2708)).append(i % 9 == 0 ? "\n\n# again\n" : "\n");
        }
        Path seeds = tmp.resolve(name);
        try (java.io.OutputStream out = name.endsWith(".gz")
                ? new java.util.zip.GZIPOutputStream(Files.newOutputStream(seeds)) : Files.newOutputStream(seeds)) {
            out.write(text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        // PPR with rounds enough for every list is the memory store's push byte for byte (see PartitionedPprITCase).
        String[] sampling = sampler.equals("ppr") ? new String[] {"--sampler", "ppr", "--ppr-max-fetch-iterations", "12"}
                : new String[] {"--fanout", "5,3"};
        String[] options = java.util.stream.Stream.concat(java.util.Arrays.stream(sampling), java.util.stream.Stream.of(
                "--batch-size", "100", "--drop-last", "--epochs", "2", "--shuffle", "--seeds", seeds.toString(),
                "--partitioned.seed-chunk", "7")).toArray(String[]::new);
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, options);
        assertThat(memory).hasSize(44);
        // Paced, the readers read each batch's seeds by position from a local copy of the file instead.
        String[] partitioned = pace == 0 ? options : java.util.stream.Stream.concat(java.util.Arrays.stream(options),
                java.util.stream.Stream.of("--max-batches-per-second", String.valueOf(pace))).toArray(String[]::new);
        assertSameMessages(memory, run("partitioned", 2, graph, partitioned));
    }

    /**
     * A seed file of the graph's 20 highest-degree nodes (hot nodes, many buckets each) and 280 others: enough
     * batches to cross bucket boundaries everywhere, few enough for a test.
     */
    private Path hubsAndSome(String dataset, Path graph) throws Exception {
        return hubsAndSome(dataset, graph, 300);
    }

    /** As above, with {@code count} seeds in all. */
    private Path hubsAndSome(String dataset, Path graph, int count) throws Exception {
        io.fanout.graph.CsrGraph csr = io.fanout.graph.GraphLoader.load(graph, io.fanout.graph.EdgeDirection.OUT);
        Integer[] byDegree = new Integer[csr.numNodes()];
        for (int v = 0; v < byDegree.length; v++) {
            byDegree[v] = v;
        }
        java.util.Arrays.sort(byDegree, (a, b) -> Integer.compare(csr.degree(b), csr.degree(a)));
        java.util.Set<Integer> picked = new java.util.LinkedHashSet<>(java.util.Arrays.asList(byDegree).subList(0, 20));
        java.util.Random random = new java.util.Random(7);
        while (picked.size() < count) {
            picked.add(random.nextInt(csr.numNodes()));
        }
        StringBuilder text = new StringBuilder();
        picked.forEach(v -> text.append(v).append('\n'));
        // The graphs here have ids 0..n-1, so node indices are node ids.
        return Files.writeString(tmp.resolve(dataset + "-seeds.txt"), text);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"cora, float32", "cora, float16", "cora, uint8", "pubmed, float32", "citeseer, float16"})
    void nodeFeaturesAndLabelsAsTheMemoryStore(String dataset, String dtype) throws Exception {
        Path graph = SharedData.graph(dataset);
        Path nodes = Files.exists(graph.resolve("nodes.tsv")) ? graph.resolve("nodes.tsv") : graph.resolve("nodes.tsv.gz");
        String[] options = {"--fanout", "10,5", "--batch-size", "500", "--shuffle", "--node-features", nodes.toString(),
                "--feature-dtype", dtype, "--partitioned.bucket-size", "3"};
        TreeMap<Long, byte[]> memory = run("memory", 2, graph, options);
        io.fanout.connectors.message.TensorMessage first = io.fanout.connectors.message.SafetensorsCodec.decode(
                memory.firstEntry().getValue());
        assertThat(first.get(io.fanout.connectors.message.MessageKeys.NLABELS)).isNotNull(); // node data compared
        assertSameMessages(memory, run("partitioned", 1, graph, options));
        assertSameMessages(memory, run("partitioned", 2, graph, options));
    }

    @Test
    void aBadNodeFileIsRefusedNamingFileAndLineAsByTheMemoryStore() throws Exception {
        Path cora = SharedData.graph("cora");
        Path nodes = tmp.resolve("nodes.tsv");
        Files.writeString(nodes, "0\t1\t0.5\n1\t2\t0.25\n2\tx\t1\n");
        Throwable partitioned = org.assertj.core.api.Assertions.catchThrowable(() -> runJob("--graph", cora.toString(),
                "--store", "partitioned", "--node-features", nodes.toString()));
        Throwable memory = org.assertj.core.api.Assertions.catchThrowable(() -> runJob("--graph", cora.toString(),
                "--node-features", nodes.toString()));
        assertThat(partitioned).isInstanceOf(io.fanout.graph.GraphFormatException.class)
                .hasMessageContaining(nodes.toString()).hasMessageContaining("line 3")
                .hasMessage(memory.getMessage());
    }

    /**
     * Given its seeds, a partitioned job's client reads no edge file: a bad line in the last part is met by the
     * TaskManagers' load, which fails the job at once (no restart loop) naming the file and line, as the memory
     * store's up-front read does.
     */
    @Test
    void givenSeedsABadEdgeLineFailsTheLoadNamingFileAndLineWithoutRestarts() throws Exception {
        Path graph = Files.createDirectories(tmp.resolve("bad-graph"));
        Files.writeString(graph.resolve("edges.00000.tsv"), "# directed=false\n0\t1\n1\t2\n");
        Files.writeString(graph.resolve("edges.00001.tsv"), "# directed=false\n2\t3\n3\tfour\n");
        long started = System.nanoTime();
        Throwable partitioned = org.assertj.core.api.Assertions.catchThrowable(() -> runJob("--graph",
                graph.toString(), "--store", "partitioned", "--seeds", "0,1", "--output", tmp.resolve("o").toString(),
                "--checkpoint-interval", "1s", "-D", "restart-strategy.type=fixed-delay",
                "-D", "restart-strategy.fixed-delay.attempts=1000", "-D", "restart-strategy.fixed-delay.delay=1s"));
        Throwable memory = org.assertj.core.api.Assertions.catchThrowable(() -> runJob("--graph", graph.toString(),
                "--seeds", "0,1"));
        assertThat(memory).isInstanceOf(io.fanout.graph.GraphFormatException.class);
        assertThat(org.apache.flink.util.ExceptionUtils.findThrowable(partitioned,
                io.fanout.graph.GraphFormatException.class)).get()
                .extracting(Throwable::getMessage).isEqualTo(memory.getMessage());
        assertThat(memory.getMessage()).contains(graph.resolve("edges.00001.tsv").toString()).contains("line 3");
        // 1,000 restarts 1 s apart were allowed: the failure suppressed them.
        assertThat(org.apache.flink.util.ExceptionUtils.findThrowable(partitioned,
                org.apache.flink.runtime.execution.SuppressRestartsException.class)).isPresent();
        assertThat((System.nanoTime() - started) / 1e9).isLessThan(60);
    }

    /** Given seeds (no client scan), a node file lacking a sampled node fails the job at once, naming the node. */
    @Test
    void givenSeedsANodeFileLackingASampledNodeFailsNamingItWithoutRestarts() throws Exception {
        Path graph = Files.createDirectories(tmp.resolve("path-graph"));
        Files.writeString(graph.resolve("edges.tsv"), "# directed=false\n0\t1\n1\t2\n2\t3\n");
        Path nodes = Files.writeString(tmp.resolve("nodes.tsv"), "0\t1\t0.5\n1\t0\t0.25\n3\t1\t1.0\n");
        assertFailsWithoutRestarts("node 2 is in the graph but has no row in the node file", "--graph",
                graph.toString(), "--node-features", nodes.toString(), "--seeds", "1", "--fanout", "5");
    }

    /** A partitioned job allowed 1,000 restarts fails at once, with {@code message} somewhere in its cause chain. */
    private void assertFailsWithoutRestarts(String message, String... args) {
        java.util.List<String> all = new java.util.ArrayList<>(List.of(args));
        all.addAll(List.of("--store", "partitioned", "--output", tmp.resolve("o").toString(), "--checkpoint-interval",
                "1s", "-D", "restart-strategy.type=fixed-delay", "-D", "restart-strategy.fixed-delay.attempts=1000",
                "-D", "restart-strategy.fixed-delay.delay=1s"));
        Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> runJob(all.toArray(String[]::new)));
        assertThat(org.apache.flink.util.ExceptionUtils.findThrowable(failure,
                org.apache.flink.runtime.execution.SuppressRestartsException.class)).isPresent();
        assertThat(org.apache.flink.util.ExceptionUtils.findThrowableWithMessage(failure, message)).isPresent();
    }

    @Test
    void aNodeWhoseWeightsAreAllZeroFailsWhenDrawnFromNamingItWithoutRestarts() throws Exception {
        Path graph = Files.createDirectories(tmp.resolve("zero-weights"));
        Files.writeString(graph.resolve("edges.tsv"), "# directed=true columns=src,dst,weight\n0\t1\t2.5\n1\t2\t0\n"
                + "1\t3\t0\n1\t0\t0\n");
        assertFailsWithoutRestarts("node 1: every weight of its 3 edges is 0", "--graph", graph.toString(),
                "--weight-column", "weight", "--seeds", "0", "--fanout", "1,1");
    }

    /** A bad line deep in a large part, loaded as many ranges: the error names the line as the memory store does. */
    @Test
    void aBadLineInALaterRangeIsNamedByItsLine() throws Exception {
        Path graph = Files.createDirectories(tmp.resolve("ranged-bad-graph"));
        StringBuilder text = new StringBuilder("# directed=false\n");
        for (int i = 0; i < 2000; i++) {
            text.append(i).append('\t').append(i == 1500 ? "x" : String.valueOf(i + 1)).append('\n');
        }
        Files.writeString(graph.resolve("edges.tsv"), text);
        Throwable memory = org.assertj.core.api.Assertions.catchThrowable(() -> runJob("--graph", graph.toString(),
                "--seeds", "0,1"));
        Throwable partitioned = org.assertj.core.api.Assertions.catchThrowable(() -> runJob("--graph",
                graph.toString(), "--store", "partitioned", "--seeds", "0,1", "--partitioned.split-size", "1kb",
                "--parallelism", "2", "--output", tmp.resolve("o").toString(), "--checkpoint-interval", "1s"));
        assertThat(memory.getMessage()).endsWith("line 1502: non-numeric dst id 'x'");
        assertThat(org.apache.flink.util.ExceptionUtils.findThrowable(partitioned,
                io.fanout.graph.GraphFormatException.class)).get()
                .extracting(Throwable::getMessage).isEqualTo(memory.getMessage());
    }

    @ParameterizedTest(name = "--partitioned.{0} {1}")
    @CsvSource({"split-size, 100b, >= 1kb", "bucket-size, 0, >= 1"})
    void aPartitionedSizeBelowItsMinimumIsRefusedNamingTheOption(String option, String value, String minimum) {
        Path cora = SharedData.graph("cora");
        assertThatThrownBy(() -> runJob("--graph", cora.toString(), "--store", "partitioned",
                "--partitioned." + option, value))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value '" + value + "' for option fanout.partitioned." + option
                        + " (--partitioned." + option + "): must be " + minimum);
    }

    @Test
    void optionsThePartitionedStoreDoesNotTakeYetAreRefusedUpFront() throws Exception {
        Path cora = SharedData.graph("cora");
        Path college = SharedData.graph("college_msg");
        assertThatThrownBy(() -> runJob("--graph", college.toString(), "--store", "partitioned", "--time-column",
                "timestamp", "--seed-time", "1", "--graph-updates-socket", "localhost:1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Not implemented with fanout.graph-updates-socket (--graph-updates-socket):"
                        + " fanout.time-column (--time-column) (they keep no edge times)");
        assertThatThrownBy(() -> runJob("--graph", college.toString(), "--store", "partitioned", "--weight-column",
                "weight", "--graph-updates-socket", "localhost:1"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Not implemented with fanout.graph-updates-socket (--graph-updates-socket):"
                        + " fanout.weight-column (--weight-column) (the versioned lookups draw uniformly). Drop them or"
                        + " the graph updates");
        assertThatThrownBy(() -> runJob("--graph", cora.toString(), "--store", "partitioned", "--disjoint",
                "--graph-updates-socket", "localhost:1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Not implemented with fanout.graph-updates-socket (--graph-updates-socket):"
                        + " fanout.disjoint (--disjoint)");
        Path typed = SharedData.graph("cora_hetero");
        assertThatThrownBy(() -> runJob("--graph", typed.toString(), "--store", "partitioned", "--sampler", "ppr",
                "--seed-type", "paper", "--partitioned.load-only"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("fanout.partitioned.load-only (--partitioned.load-only)")
                .hasMessageContaining("not implemented yet for a typed graph");
        assertThatThrownBy(() -> runJob("--graph", cora.toString(), "--store", "partitioned", "--subgraph-type",
                "induced", "--graph-updates-socket", "localhost:1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Not implemented with fanout.graph-updates-socket (--graph-updates-socket):"
                        + " fanout.subgraph-type (--subgraph-type) induced");
        Path links = tmp.resolve("refused-links.tsv");
        Files.writeString(links, "0\t1\n");
        assertThatThrownBy(() -> runJob("--graph", cora.toString(), "--store", "partitioned", "--ablp-positive-edges",
                links.toString(), "--graph-updates-socket", "localhost:1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Not implemented with fanout.graph-updates-socket (--graph-updates-socket):"
                        + " fanout.ablp-positive-edges (--ablp-positive-edges)");
        assertThatThrownBy(() -> runJob("--graph", cora.toString(), "--store", "partitioned", "--link-seeds",
                links.toString(), "--graph-updates-socket", "localhost:1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Not implemented with fanout.graph-updates-socket (--graph-updates-socket):"
                        + " fanout.link-seeds (--link-seeds)");
        assertThatThrownBy(() -> runJob("--graph", cora.toString(), "--store", "partitioned", "--with-edge",
                "--graph-updates-socket", "localhost:1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Not implemented with fanout.graph-updates-socket (--graph-updates-socket):"
                        + " fanout.with-edge (--with-edge) (an updated edge has no input row)");
    }
}
