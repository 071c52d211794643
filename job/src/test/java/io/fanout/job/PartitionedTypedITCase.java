package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.graph.GraphFiles;
import io.fanout.store.SharedGraphs;
import io.fanout.testing.AblpGraphs;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeMap;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code --store partitioned} on typed graphs (one keyed lookup per (edge type, hop)) gives byte-identical k-hop
 * messages to the in-memory store's typed sampler, at parallelism 1 and 2, in both edge directions, on real typed
 * graphs, node labels and features included.
 */
class PartitionedTypedITCase {
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

    /** The memory store's messages, and the partitioned store's at p=1 and p=2 the same bytes. */
    private TreeMap<Long, byte[]> sameAsMemory(Path graph, String... options) throws Exception {
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, options);
        int loads = SharedGraphs.loadCount();
        assertSameMessages(memory, run("partitioned", 1, graph, options));
        assertSameMessages(memory, run("partitioned", 2, graph, options));
        assertThat(SharedGraphs.loadCount()).as("no process loaded a whole graph store for the partitioned runs")
                .isEqualTo(loads);
        return memory;
    }

    @ParameterizedTest(name = "cora_hetero edge-dir {0}")
    @CsvSource({"out", "in"})
    void coraHeteroAsTheMemoryStoreWithLabels(String edgeDir) throws Exception {
        TreeMap<Long, byte[]> memory = sameAsMemory(SharedData.graph("cora_hetero"), "--seed-type", "paper",
                "--fanout", "paper__cites__paper:8,4;paper__has_word__word:3,2", "--edge-dir", edgeDir,
                "--batch-size", "300", "--shuffle", "--epochs", "2", "--partitioned.bucket-size", "7");
        TensorMessage first = SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).contains("paper.nlabels", "word.ids",
                edgeDir.equals("out") ? "word__rev_has_word__paper.rows" : "paper__has_word__word.rows");
        assertThat(first.get(edgeDir.equals("out") ? "word__rev_has_word__paper.rows"
                : "paper__cites__paper.rows").numElements()).isPositive();
    }

    @ParameterizedTest(name = "cora_hetero bidirectional edge-dir {0}")
    @CsvSource({"out", "in"})
    void bidirectionalTypedSubgraphsAsTheMemoryStore(String edgeDir) throws Exception {
        // Within paper (made symmetric), paper->word with its GLT-reported rev_ partner (each the union reversed).
        TreeMap<Long, byte[]> memory = sameAsMemory(SharedData.graph("cora_hetero"), "--seed-type", "paper",
                "--fanout", "paper__cites__paper:6,3;paper__has_word__word:2,2", "--edge-dir", edgeDir,
                "--batch-size", "500", "--shuffle", "--subgraph-type", "bidirectional");
        TensorMessage first = SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).as("PyG: no per-hop edge counts for the types it made bidirectional")
                .doesNotContain("paper__cites__paper.num_sampled_edges").contains("paper__cites__paper.rows");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "cora_hetero | --seed-type paper --fanout paper__cites__paper:4,3;paper__has_word__word:2,2 --edge-dir in",
        "cora_hetero | --seed-type paper --fanout paper__cites__paper:5,2;paper__has_word__word:3,1"
            + " --subgraph-type bidirectional --state-backend hashmap",
        "bitcoin_alpha_typed | --fanout user__distrusts__user:3,0,2;user__trusts__user:4,2,-1 --replace --seed-type user"
            + " --partitioned.bucket-size 3"})
    void disjointTypedTreesAsTheMemoryStore(String dataset, String options) throws Exception {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(options.split(" ")));
        args.addAll(java.util.List.of("--disjoint", "--batch-size", "300", "--shuffle"));
        TreeMap<Long, byte[]> memory = sameAsMemory(SharedData.graph(dataset), args.toArray(String[]::new));
        TensorMessage first = SafetensorsCodec.decode(memory.firstEntry().getValue());
        String seedType = args.get(args.indexOf("--seed-type") + 1);
        assertThat(first.names()).as("each node type's trees").contains("#META." + seedType + ".batch");
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource(delimiter = '|', value = {
        "cora_hetero | paper__cites__paper | --fanout paper__cites__paper:4,3;paper__has_word__word:2,2",
        "cora_hetero | paper__has_word__word | --fanout paper__cites__paper:3,2;paper__has_word__word:2,2 --disjoint"
            + " --edge-dir in --state-backend hashmap",
        "cora_hetero | paper__has_word__word | --fanout paper__cites__paper:5,2;paper__has_word__word:3,1"
            + " --subgraph-type bidirectional --partitioned.bucket-size 3",
        "bitcoin_alpha_typed | user__trusts__user | --fanout user__distrusts__user:3,2;user__trusts__user:4,2"
            + " --time-column timestamp",
        "bitcoin_alpha_typed | user__distrusts__user | --fanout user__distrusts__user:2,2;user__trusts__user:3,-1"
            + " --time-column timestamp --temporal-strategy last --edge-dir in --state-backend hashmap",
        "cora_hetero | paper__has_word__word | --fanout paper__cites__paper:3,2;paper__has_word__word:2,2"
            + " --neg-sampling binary --neg-amount 1.5",
        "cora_hetero | paper__has_word__word | --fanout paper__cites__paper:3,2;paper__has_word__word:2,2"
            + " --neg-sampling triplet --neg-amount 2 --disjoint --edge-dir in",
        "cora_hetero | paper__cites__paper | --fanout paper__cites__paper:4,2;paper__has_word__word:1,1"
            + " --neg-sampling triplet --state-backend hashmap --subgraph-type bidirectional",
        "cora_hetero | paper__cites__paper | --fanout paper__cites__paper:4,2;paper__has_word__word:1,1"
            + " --neg-sampling binary --disjoint --partitioned.cache-mb 0",
        "bitcoin_alpha_typed | user__trusts__user | --fanout user__distrusts__user:3,2;user__trusts__user:4,2"
            + " --time-column timestamp --neg-sampling binary --neg-amount 2 --state-backend hashmap",
        "bitcoin_alpha_typed | user__trusts__user | --fanout user__distrusts__user:3,2;user__trusts__user:4,2"
            + " --time-column timestamp --neg-sampling triplet --neg-amount 3 --edge-dir in"})
    void typedLinkBatchesAsTheMemoryStore(String dataset, String linkType, String options) throws Exception {
        // Seed edges from the link type's own rows (with their times when temporal), within one node type or across
        // two (paper -> word), the ends' labels and features gathered as the memory store gathers them.
        Path graph = SharedData.graph(dataset);
        boolean timed = options.contains("--time-column");
        StringBuilder links = new StringBuilder();
        int row = 0;
        for (String line : java.nio.file.Files.readAllLines(graph.resolve("edges." + linkType + ".tsv"))) {
            if (!line.startsWith("#") && row++ % 37 == 0) {
                String[] f = line.split("\t");
                links.append(f[0]).append('\t').append(f[1]).append(timed ? "\t" + f[3] : "").append('\n');
            }
        }
        Path seedEdges = java.nio.file.Files.writeString(tmp.resolve("links.tsv"), links);
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(options.split(" ")));
        args.addAll(java.util.List.of("--link-seeds", seedEdges.toString(), "--link-type", linkType, "--batch-size",
                "50", "--shuffle", "--epochs", "2"));
        TreeMap<Long, byte[]> memory = sameAsMemory(graph, args.toArray(String[]::new));
        TensorMessage first = SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).contains(options.contains("triplet") ? "#META.dst_neg_index"
                : options.contains("binary") ? "#META.edge_label" : "#META.edge_label_index");
        if (timed || options.contains("--disjoint")) {
            String dst = linkType.substring(linkType.lastIndexOf("__") + 2);
            assertThat(first.names()).contains("#META." + dst + ".batch");
        }
        if (timed) {
            assertThat(first.names()).contains(options.contains("triplet") ? "#META.seed_time" : "#META.edge_label_time");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "cora_hetero | --seed-type paper --fanout paper__cites__paper:4,2;paper__has_word__word:2,1"
            + " --partitioned.split-size 1kb",
        "cora_hetero | --seed-type paper --fanout paper__cites__paper:5,2;paper__has_word__word:3,1 --edge-dir in"
            + " --subgraph-type bidirectional --state-backend hashmap",
        "bitcoin_alpha_typed | --seed-type user --fanout user__distrusts__user:3,2;user__trusts__user:4,-1"
            + " --time-column timestamp --seed-time 1345435200 --partitioned.split-size 1kb",
        "bitcoin_alpha_typed | --seed-type user --fanout user__distrusts__user:2,2;user__trusts__user:4,2"
            + " --weight-column weight --disjoint --replace --state-backend hashmap",
        "cora_hetero | --link-seeds LINKS --link-type paper__has_word__word --neg-sampling binary"
            + " --fanout paper__cites__paper:3,2;paper__has_word__word:2,2"})
    void typedEdgeIdsAsTheMemoryStore(String dataset, String options) throws Exception {
        // --with-edge on typed graphs: each edge type's rows in its own file (cora_hetero's in 1 KB ranges), the
        // weight column's values as efeats (bitcoin_alpha_typed's |rating|, with or without --weight-column), edge
        // times per timed type; a bidirectional sample keeps the edge ids of the types it left as sampled only.
        Path graph = SharedData.graph(dataset);
        String resolved = options;
        if (options.contains("LINKS")) {
            StringBuilder links = new StringBuilder();
            int row = 0;
            for (String line : Files.readAllLines(graph.resolve("edges.paper__has_word__word.tsv"))) {
                if (!line.startsWith("#") && row++ % 41 == 0) {
                    String[] f = line.split("\t");
                    links.append(f[0]).append('\t').append(f[1]).append('\n');
                }
            }
            resolved = options.replace("LINKS", Files.writeString(tmp.resolve("links.tsv"), links).toString());
        }
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(resolved.split(" ")));
        args.addAll(java.util.List.of("--with-edge", "--batch-size", "200", "--shuffle", "--epochs", "2"));
        TreeMap<Long, byte[]> memory = sameAsMemory(graph, args.toArray(String[]::new));
        TensorMessage first = SafetensorsCodec.decode(memory.firstEntry().getValue());
        String type = dataset.equals("cora_hetero") ? "paper__cites__paper" : "user__trusts__user";
        if (options.contains("bidirectional")) { // made symmetric: PyG drops its edge ids
            assertThat(first.names()).contains(type + ".rows").doesNotContain(type + ".eids");
            return;
        }
        assertThat(first.names()).contains(type + ".eids");
        assertThat(first.get(type + ".eids").numElements()).isEqualTo(first.get(type + ".rows").numElements())
                .isPositive();
        if (dataset.equals("bitcoin_alpha_typed")) {
            assertThat(first.names()).contains(type + ".efeats");
        }
        if (options.contains("--time-column")) {
            assertThat(first.names()).contains("#META." + type + ".edge_time");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        "bitcoin | --ablp-negative-type " + AblpGraphs.NEGATIVE
            + " --fanout user__distrusts__user:3,2;user__trusts__user:4,2",
        "bitcoin | --ablp-negative-type " + AblpGraphs.NEGATIVE + " --fanout 5,3 --edge-dir in --state-backend hashmap"
            + " --seeds SEEDS --partitioned.bucket-size 3",
        "bitcoin | --ablp-negative-type " + AblpGraphs.NEGATIVE
            + " --fanout user__distrusts__user:2,0;user__trusts__user:-1,2"
            + " --replace --subgraph-type bidirectional",
        "cora_hetero | --fanout 4,2",
        "cora_hetero | --fanout 3,3 --edge-dir in --subgraph-type bidirectional --state-backend hashmap"
            + " --partitioned.cache-mb 0"})
    void typedAblpAsTheMemoryStore(String dataset, String options) throws Exception {
        // Anchors and label nodes of one node type (bitcoin_alpha_typed with a fifth of its trust edges as positive
        // labels, two negatives per anchor) or of two (cora_hetero's paper -> word edges as labels, papers' labels
        // and features gathered); the label types are never loaded into the store nor walked.
        boolean bitcoin = dataset.equals("bitcoin");
        Path graph = bitcoin ? AblpGraphs.bitcoin(tmp.resolve("ablp")) : SharedData.graph("cora_hetero");
        String positive = bitcoin ? AblpGraphs.POSITIVE : "paper__has_word__word";
        Path seeds = Files.writeString(tmp.resolve("anchors.txt"), "1\n7\n2\n404\n13\n25\n");
        java.util.List<String> args = new java.util.ArrayList<>(
                java.util.List.of(options.replace("SEEDS", seeds.toString()).split(" ")));
        args.addAll(java.util.List.of("--ablp-positive-type", positive, "--batch-size", "40", "--shuffle", "--epochs",
                "2"));
        TreeMap<Long, byte[]> memory = sameAsMemory(graph, args.toArray(String[]::new));
        TensorMessage first = SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).contains("#META.gigl_positive_labels." + positive);
        assertThat(first.names()).as("label edge types are never walked").filteredOn(name -> !name.startsWith("#"))
                .noneMatch(name -> name.contains("gigl_") || name.contains("has_word"));
        if (options.contains("--ablp-negative-type")) {
            assertThat(first.names()).contains("#META.gigl_negative_labels." + AblpGraphs.NEGATIVE);
        }
        if (!bitcoin) {
            assertThat(first.names()).contains("word.ids", "paper.nlabels");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--fanout user__distrusts__user:3,2;user__trusts__user:5,3",
        "--fanout user__distrusts__user:2,0;user__trusts__user:40,-1 --edge-dir in --partitioned.bucket-size 3",
        "--fanout user__distrusts__user:2,2;user__trusts__user:4,2 --replace --disjoint --state-backend hashmap"})
    void weightedTypedDrawsAsTheMemoryStore(String options) throws Exception {
        // bitcoin_alpha_typed's weights are |rating|, 1..10; fanout 40: the exponential races.
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(options.split(" ")));
        args.addAll(java.util.List.of("--seed-type", "user", "--weight-column", "weight", "--batch-size", "400",
                "--shuffle"));
        sameAsMemory(SharedData.graph("bitcoin_alpha_typed"), args.toArray(String[]::new));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "--fanout user__distrusts__user:3,2;user__trusts__user:5,3 --seed-time 1345435200",
        "--fanout user__distrusts__user:2,0;user__trusts__user:4,-1 --edge-dir in --temporal-strategy last"
            + " --seed-time 1345435200 --partitioned.bucket-size 3",
        "--fanout user__distrusts__user:2,2;user__trusts__user:4,2 --replace --weight-column weight --seeds SEEDS"
            + " --state-backend hashmap --partitioned.cache-mb 0"})
    void temporalTypedTreesAsTheMemoryStore(String options) throws Exception {
        // Seeds at a time inside the graph's span, or each at its own time (a seed file of id<TAB>time lines, which
        // the client reads for a typed graph); the weights |rating| drawn over each tree's time prefix.
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        java.util.Random random = new java.util.Random(options.length());
        StringBuilder seeds = new StringBuilder();
        for (int i = 0; i < 250; i++) {
            seeds.append(random.nextInt(3783)).append('\t').append(1289192400L + random.nextInt(164246400))
                    .append('\n');
        }
        Path seedFile = java.nio.file.Files.writeString(tmp.resolve("timed.seeds"), seeds);
        java.util.List<String> args = new java.util.ArrayList<>();
        for (String word : options.split(" ")) {
            args.add(word.equals("SEEDS") ? seedFile.toString() : word);
        }
        args.addAll(java.util.List.of("--seed-type", "user", "--time-column", "timestamp", "--batch-size", "200",
                "--shuffle"));
        TreeMap<Long, byte[]> memory = sameAsMemory(graph, args.toArray(String[]::new));
        TensorMessage first = SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).as("temporal typed messages carry the seeds' times and trees")
                .contains("#META.seed_time", "#META.user.batch");
    }

    @Test
    void bitcoinAlphaTypedWithReplacementAndInEdges() throws Exception {
        sameAsMemory(SharedData.graph("bitcoin_alpha_typed"), "--fanout",
                "user__distrusts__user:4,0,2;user__trusts__user:6,3,-1", "--edge-dir", "in", "--replace",
                "--batch-size", "500", "--seed", "11");
    }

    @ParameterizedTest(name = "node features {0}")
    @CsvSource({"float16", "uint8"})
    void typedNodeFeaturesAsTheMemoryStore(String dtype) throws Exception {
        // cora_hetero's edge files beside a paper node file with cora's 1,433 features (label, f0..), words by id.
        Path dir = Files.createDirectories(tmp.resolve("cora-hetero-features-" + dtype));
        Path hetero = SharedData.graph("cora_hetero");
        for (String file : new String[] {"edges.paper__cites__paper.tsv", "edges.paper__has_word__word.tsv",
                "nodes.word.tsv"}) {
            Files.createSymbolicLink(dir.resolve(file), hetero.resolve(file));
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                GraphFiles.open(SharedData.graph("cora").resolve("nodes.tsv.gz")), StandardCharsets.UTF_8));
                Writer out = Files.newBufferedWriter(dir.resolve("nodes.paper.tsv"))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                out.write(line);
                out.write('\n');
            }
        }
        // Given seeds (checked against the paper ids the client scanned); p=1 and p=2 are covered above.
        String[] options = {"--seed-type", "paper", "--feature-dtype", dtype,
                "--fanout", "paper__cites__paper:5,3;paper__has_word__word:0,2", "--batch-size", "3",
                "--seeds", "0,1,2,3,633,1862,2582"};
        TreeMap<Long, byte[]> memory = run("memory", 1, dir, options);
        assertSameMessages(memory, run("partitioned", 2, dir, options));
        TensorMessage first = SafetensorsCodec.decode(memory.firstEntry().getValue());
        assertThat(first.names()).contains("paper.nfeats", "paper.nlabels");
        assertThat(first.get("paper.nfeats").shape()[1]).isEqualTo(1433);
    }

    @Test
    void whatTheTypedPartitionedStoreDoesNotDoIsRefusedByName() throws Exception {
        String graph = SharedData.graph("cora_hetero").toString();
        assertThatThrownBy(() -> JobConfigs.parse("--graph", graph, "--store", "partitioned", "--seed-type", "paper",
                "--sampler", "ppr", "--graph-updates", tmp.toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("graph-updates")
                .hasMessageContaining("typed graph");
        assertThatThrownBy(() -> JobConfigs.parse("--graph", graph, "--store", "partitioned", "--seed-type", "paper",
                "--fanout", "3,2", "--partitioned.load-only"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("partitioned.load-only")
                .hasMessageContaining("typed graph");
        // The client checks given seeds against the seed type's ids it scanned (as for the memory store): word
        // ids go up to 1432, papers to 2707.
        assertThatThrownBy(() -> runJob("--graph", graph, "--store", "partitioned", "--seed-type", "word",
                "--fanout", "3,2", "--seeds", "5,2000", "--output", tmp.resolve("never").toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.seeds (--seeds)")
                .hasMessageContaining("2000");
    }
}
