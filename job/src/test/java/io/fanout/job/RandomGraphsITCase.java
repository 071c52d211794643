package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.testing.MiniClusters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The k-hop job on generated graphs of shapes the shared graphs lack (ids past 2^32, parallel edges and
 * self-loops, a hub far above the fanout and the bucket size, isolated nodes the header declares, one edge; typed
 * graphs with edge types within and across node types, timed or not): both stores, both state backends and both
 * parallelisms give the same bytes, and every message obeys the graph, a timed tree never an edge after its seed;
 * PPR's messages agree across stores too.
 */
class RandomGraphsITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;
    private StoreRuns runs;

    @BeforeEach
    void runsInto() {
        runs = new StoreRuns(tmp);
    }

    /** One generated edge file: its rows as written, whether they are directed, and the nodes every run seeds. */
    private record Graph(Path file, List<long[]> edges, boolean directed, Set<Long> nodes) {
    }

    @ParameterizedTest(name = "{0}: directed={1} nodes={2} edges={3} idStep={4} fanout={5} edge-dir={6}")
    @CsvSource(delimiter = '|', value = {
        // name        | directed | nodes | edges | id step   | fanout | edge-dir | batch | declare num_nodes
        "sparse-ids    | false    | 300   | 1200  | 4000000007| 3,2    | out      | 64    | false",
        "isolated      | true     | 500   | 400   | 1         | 2,2    | in       | 100   | true",
        "one-edge      | true     | 2     | 1     | 1         | 5      | out      | 1     | true",
        "all-of-a-hop  | true     | 200   | 1500  | 7         | -1,2   | in       | 32    | false",
        "three-hops    | false    | 1000  | 3000  | 1         | 1,1,1  | out      | 256   | true",
    })
    void storesAgreeAndSamplesObeyTheGraph(String name, boolean directed, int nodes, int edges, long idStep,
            String fanout, String edgeDir, int batchSize, boolean declareNodes) throws Exception {
        Graph graph = generate(name, directed, nodes, edges, idStep, declareNodes, new Random(name.hashCode()));
        // Bucket size 3: the hub's list (an eighth of the rows each way) spans many buckets, so bucket reads count.
        String[] options = {"--fanout", fanout, "--edge-dir", edgeDir, "--batch-size", String.valueOf(batchSize),
                "--epochs", "2", "--shuffle", "--seed", "11", "--partitioned.bucket-size", "3"};
        String[] memoryOptions = Arrays.copyOf(options, options.length - 2);
        TreeMap<Long, byte[]> memory1 = runs.run("memory", 1, graph.file(), memoryOptions);
        assertSameMessages(memory1, runs.run("memory", 2, graph.file(), memoryOptions));
        assertSameMessages(memory1, runs.run("partitioned", 2, graph.file(),
                with(options, "--state-backend", "hashmap")));
        assertSameMessages(memory1, runs.run("partitioned", 1, graph.file(),
                with(options, "--state-backend", "rocksdb")));

        int[] fanouts = Arrays.stream(fanout.split(",")).mapToInt(Integer::parseInt).toArray();
        Map<Long, List<long[]>> neighbours = neighbours(graph.edges(), graph.directed(), edgeDir.equals("out"));
        long batchesPerEpoch = (graph.nodes().size() + batchSize - 1) / batchSize;
        assertThat(memory1).hasSize((int) (2 * batchesPerEpoch));
        for (long epoch = 0; epoch < 2; epoch++) {
            List<Long> seeds = new ArrayList<>();
            for (long b = 0; b < batchesPerEpoch; b++) {
                TensorMessage m = SafetensorsCodec.decode(memory1.get((epoch << 32) | b));
                for (long s : m.get(MessageKeys.BATCH).asLongArray()) {
                    seeds.add(s);
                }
                checkMessage(m, fanouts, neighbours);
            }
            assertThat(new TreeSet<>(seeds)).as("every node is a seed once per epoch").isEqualTo(graph.nodes())
                    .hasSize(seeds.size());
        }

        // --with-edge, the edge file read in 1 KB ranges: both stores give each edge the input row it was sampled
        // through, a row joining exactly its two ends in the sampling direction.
        String[] withEdge = with(memoryOptions, "--with-edge");
        TreeMap<Long, byte[]> withEdges = runs.run("memory", 1, graph.file(), withEdge);
        assertSameMessages(withEdges, runs.run("partitioned", 2, graph.file(), with(withEdge, "--state-backend",
                "hashmap", "--partitioned.split-size", "1kb")));
        for (byte[] blob : withEdges.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] rows = m.get("rows").asLongArray();
            long[] cols = m.get("cols").asLongArray();
            long[] eids = m.get("eids").asLongArray();
            assertThat(eids).hasSameSizeAs(rows);
            for (int e = 0; e < eids.length; e++) {
                long[] row = graph.edges().get((int) eids[e]);
                long expanded = ids[(int) rows[e]]; // rows: the node expanded, cols: its sampled neighbour
                long sampled = ids[(int) cols[e]];
                boolean out = edgeDir.equals("out");
                boolean forward = row[0] == (out ? expanded : sampled) && row[1] == (out ? sampled : expanded);
                boolean backward = !graph.directed() && row[1] == (out ? expanded : sampled)
                        && row[0] == (out ? sampled : expanded);
                assertThat(forward || backward).as("edge %d: row %d joins %d and %d", e, eids[e], expanded, sampled)
                        .isTrue();
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"sparse-ids, --disjoint", "sparse-ids, --subgraph-type bidirectional",
        "sparse-ids, --subgraph-type induced", "hub-in, --disjoint --replace", "hub-in, --subgraph-type induced"})
    void disjointTreesAndSubgraphTypesAgreeAcrossStores(String name, String mode) throws Exception {
        boolean sparse = name.equals("sparse-ids");
        Graph graph = generate(name, !sparse, 300, 1200, sparse ? 4000000007L : 1, !sparse,
                new Random(name.hashCode()));
        String edgeDir = sparse ? "out" : "in";
        String[] options = with(new String[] {"--fanout", "3,2", "--edge-dir", edgeDir, "--batch-size", "64",
            "--shuffle", "--seed", "5"}, mode.split(" "));
        TreeMap<Long, byte[]> memory1 = runs.run("memory", 1, graph.file(), options);
        assertSameMessages(memory1, runs.run("partitioned", 2, graph.file(),
                with(options, "--state-backend", "hashmap", "--partitioned.bucket-size", "3")));
        assertSameMessages(memory1, runs.run("partitioned", 1, graph.file(),
                with(options, "--state-backend", "rocksdb", "--partitioned.bucket-size", "3")));
        Map<Long, List<long[]>> neighbours = neighbours(graph.edges(), graph.directed(), edgeDir.equals("out"));
        for (byte[] bytes : memory1.values()) {
            TensorMessage m = SafetensorsCodec.decode(bytes);
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] rows = m.get(MessageKeys.ROWS).asLongArray();
            long[] cols = m.get(MessageKeys.COLS).asLongArray();
            if (mode.contains("induced")) { // every listed edge among the batch's nodes, from the edge list itself
                Set<Long> in = new TreeSet<>();
                Arrays.stream(ids).forEach(in::add);
                long expected = 0;
                for (long v : ids) {
                    expected += neighbours.getOrDefault(v, List.of()).stream().filter(n -> in.contains(n[0])).count();
                }
                assertThat(rows.length).isEqualTo(expected);
            }
            if (mode.contains("--disjoint")) { // each tree holds a node once; seed i roots tree i
                long[] trees = m.get("#META.batch").asLongArray();
                long[] batch = m.get(MessageKeys.BATCH).asLongArray();
                Set<String> perTree = new TreeSet<>();
                for (int i = 0; i < ids.length; i++) {
                    assertThat(perTree.add(trees[i] + ":" + ids[i])).as("node %d twice in tree %d", ids[i], trees[i])
                            .isTrue();
                }
                for (int i = 0; i < batch.length; i++) {
                    assertThat(ids[i]).isEqualTo(batch[i]);
                    assertThat(trees[i]).isEqualTo(i);
                }
                for (int e = 0; e < rows.length; e++) {
                    assertThat(trees[(int) rows[e]]).as("an edge within one tree").isEqualTo(trees[(int) cols[e]]);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource(delimiter = '|', value = {
        // name        | directed | nodes | edges | id step    | negatives and layout
        "sparse-ids    | false    | 300   | 1200  | 4000000007 | --neg-sampling binary --neg-amount 2",
        "sparse-ids    | false    | 300   | 1200  | 4000000007 | --neg-sampling triplet --neg-amount 2 --disjoint",
        "dense         | true     | 40    | 700   | 1          | --neg-sampling binary --edge-dir in",
        "dense         | true     | 40    | 700   | 1          | --neg-sampling triplet --neg-amount 3",
        "dense         | true     | 40    | 700   | 1          | --neg-sampling triplet --edge-dir in --disjoint",
    })
    void linkNegativesAgreeAcrossStoresAndAreNeverEdges(String name, boolean directed, int nodes, int edges,
            long idStep, String mode) throws Exception {
        // A sparse graph with ids past 2^32 (drawn by index through the node-id file), and a dense one: about two
        // in five ordered pairs are edges (the hub's, parallel edges and loops included), so candidates often are.
        Graph graph = generate(name, directed, nodes, edges, idStep, false, new Random(name.hashCode()));
        StringBuilder seedEdges = new StringBuilder();
        for (int r = 0; r < graph.edges().size(); r += 5) {
            seedEdges.append(graph.edges().get(r)[0]).append('\t').append(graph.edges().get(r)[1]).append('\n');
        }
        Path links = Files.writeString(tmp.resolve("links-" + name + ".tsv"), seedEdges);
        String[] options = with(new String[] {"--fanout", "3,2", "--link-seeds", links.toString(), "--batch-size", "16",
            "--shuffle", "--seed", "5", "--partitioned.node-ids-dir", tmp.resolve("node-ids").toString()},
                mode.split(" "));
        TreeMap<Long, byte[]> memory1 = runs.run("memory", 1, graph.file(), options);
        assertSameMessages(memory1, runs.run("partitioned", 2, graph.file(),
                with(options, "--state-backend", "hashmap", "--partitioned.bucket-size", "3")));
        assertSameMessages(memory1, runs.run("partitioned", 1, graph.file(),
                with(options, "--state-backend", "rocksdb")));
        Set<String> edgeSet = new TreeSet<>();
        for (long[] row : graph.edges()) {
            edgeSet.add(row[0] + ">" + row[1]);
            if (!graph.directed()) {
                edgeSet.add(row[1] + ">" + row[0]);
            }
        }
        long negatives = 0;
        for (byte[] bytes : memory1.values()) {
            TensorMessage m = SafetensorsCodec.decode(bytes);
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            int p = m.get("#META.input_id").asLongArray().length;
            if (mode.contains("triplet")) {
                long[] src = m.get("#META.src_index").asLongArray();
                long[] neg = m.get("#META.dst_neg_index").asLongArray();
                int k = neg.length / p;
                for (int j = 0; j < neg.length; j++, negatives++) {
                    String pair = ids[(int) src[j / k]] + ">" + ids[(int) neg[j]];
                    assertThat(edgeSet).as("triplet negative %s", pair).doesNotContain(pair);
                }
            } else {
                long[] index = m.get("#META.edge_label_index").asLongArray();
                int n = index.length / 2;
                for (int j = p; j < n; j++, negatives++) {
                    String pair = ids[(int) index[j]] + ">" + ids[(int) index[n + j]];
                    assertThat(edgeSet).as("binary negative %s", pair).doesNotContain(pair);
                }
            }
        }
        assertThat(negatives).isPositive();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"timed-sparse-ids, uniform, --replace", "timed-hub-in, last, --seed 9", "timed-hub-in, uniform, --seed 3"})
    void temporalTreesAgreeAcrossStoresAndNeverSampleTheFuture(String name, String strategy, String extra)
            throws Exception {
        boolean sparse = name.equals("timed-sparse-ids");
        Graph graph = generate(name, !sparse, 300, 1200, sparse ? 4000000007L : 1, !sparse, true,
                new Random(name.hashCode()));
        String edgeDir = sparse ? "out" : "in";
        // A seed file of id<TAB>time lines (times 0..21 around the edges' 0..19), which the partitioned store's
        // TaskManagers read; a node may be a seed twice, at two times.
        Random random = new Random(name.hashCode() + 1L);
        List<Long> nodes = new ArrayList<>(graph.nodes());
        StringBuilder seedText = new StringBuilder();
        Map<Integer, Long> seedTimeAt = new HashMap<>();
        for (int i = 0; i < 150; i++) {
            long time = random.nextInt(22);
            seedTimeAt.put(i, time);
            seedText.append(nodes.get(random.nextInt(nodes.size()))).append('\t').append(time).append('\n');
        }
        Path seeds = Files.writeString(tmp.resolve(name + "-" + strategy + ".seeds"), seedText);
        String[] options = with(new String[] {"--fanout", "3,2", "--edge-dir", edgeDir, "--batch-size", "32",
            "--shuffle", "--epochs", "2", "--time-column", "timestamp", "--temporal-strategy", strategy,
            "--seeds", seeds.toString()}, extra.split(" "));
        TreeMap<Long, byte[]> memory1 = runs.run("memory", 1, graph.file(), options);
        assertSameMessages(memory1, runs.run("partitioned", 2, graph.file(),
                with(options, "--state-backend", "hashmap", "--partitioned.bucket-size", "3")));
        assertSameMessages(memory1, runs.run("partitioned", 1, graph.file(),
                with(options, "--state-backend", "rocksdb", "--partitioned.bucket-size", "3")));
        // Paced: the seeds read by position from the TaskManager's local copy of the file, times with them.
        assertSameMessages(memory1, runs.run("partitioned", 2, graph.file(),
                with(options, "--state-backend", "hashmap", "--max-batches-per-second", "1000")));
        Map<Long, List<long[]>> neighbours = neighbours(graph.edges(), graph.directed(), edgeDir.equals("out"));
        assertThat(memory1).hasSize(2 * 5);
        int partial = 0;
        for (byte[] bytes : memory1.values()) {
            TensorMessage m = SafetensorsCodec.decode(bytes);
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] rows = m.get(MessageKeys.ROWS).asLongArray();
            long[] cols = m.get(MessageKeys.COLS).asLongArray();
            long[] trees = m.get("#META.batch").asLongArray();
            long[] seedTimes = m.get(MessageKeys.META_SEED_TIME).asLongArray();
            long[] inputIds = m.get(MessageKeys.META_INPUT_ID).asLongArray();
            for (int i = 0; i < inputIds.length; i++) {
                assertThat(seedTimes[i]).as("seed %d's time from the file", i).isEqualTo(seedTimeAt.get((int) inputIds[i]));
            }
            for (int e = 0; e < rows.length; e++) {
                long time = seedTimes[(int) trees[(int) rows[e]]];
                long from = ids[(int) rows[e]];
                long to = ids[(int) cols[e]];
                assertThat(neighbours.getOrDefault(from, List.of()).stream().anyMatch(n -> n[0] == to && n[1] <= time))
                        .as("edge %d -> %d no newer than its tree's time %d", from, to, time).isTrue();
                if (neighbours.get(from).stream().anyMatch(n -> n[1] > time)) {
                    partial++;
                }
            }
        }
        assertThat(partial).as("nodes with edges after their tree's time").isGreaterThan(50);
    }

    /** ids distinct and seeds first; each hop expands exactly its frontier, min(f, degree) distinct positions each. */
    private static void checkMessage(TensorMessage m, int[] fanouts, Map<Long, List<long[]>> neighbours) {
        long[] ids = m.get(MessageKeys.IDS).asLongArray();
        long[] rows = m.get(MessageKeys.ROWS).asLongArray();
        long[] cols = m.get(MessageKeys.COLS).asLongArray();
        long[] nodesPerHop = m.get(MessageKeys.NUM_SAMPLED_NODES).asLongArray();
        long[] edgesPerHop = m.get(MessageKeys.NUM_SAMPLED_EDGES).asLongArray();
        long[] batch = m.get(MessageKeys.BATCH).asLongArray();
        assertThat(Arrays.stream(ids).boxed().distinct().count()).isEqualTo(ids.length);
        assertThat(Arrays.stream(nodesPerHop).sum()).isEqualTo(ids.length);
        assertThat(Arrays.stream(edgesPerHop).sum()).isEqualTo(rows.length).isEqualTo(cols.length);
        assertThat(Arrays.copyOf(ids, (int) nodesPerHop[0]))
                .containsExactly(Arrays.stream(batch).distinct().toArray());
        int edge = 0;
        int frontierStart = 0;
        for (int hop = 0; hop < fanouts.length; hop++) {
            int frontierEnd = frontierStart + (int) nodesPerHop[hop];
            Map<Integer, List<Long>> picked = new HashMap<>();
            for (int e = edge; e < edge + edgesPerHop[hop]; e++) {
                // rows = the node expanded, cols = its sampled neighbour (homogeneous GLT layout).
                assertThat((int) rows[e]).as("hop %d expands only its frontier", hop + 1)
                        .isBetween(frontierStart, frontierEnd - 1);
                picked.computeIfAbsent((int) rows[e], k -> new ArrayList<>()).add(ids[(int) cols[e]]);
            }
            for (int v = frontierStart; v < frontierEnd; v++) {
                List<Long> left = new ArrayList<>();
                neighbours.getOrDefault(ids[v], List.of()).forEach(n -> left.add(n[0]));
                List<Long> got = picked.getOrDefault(v, List.of());
                int want = fanouts[hop] < 0 ? left.size() : Math.min(fanouts[hop], left.size());
                assertThat(got).as("hop %d of node %d", hop + 1, ids[v]).hasSize(want);
                for (Long u : got) {
                    // Each pick is a distinct position of the list: a neighbour at most as often as it is listed.
                    assertThat(left.remove(u)).as("node %d drew %d, not a neighbour left", ids[v], u).isTrue();
                }
            }
            edge += (int) edgesPerHop[hop];
            frontierStart = frontierEnd;
        }
    }

    @ParameterizedTest(name = "ppr {0}: directed={1} edge-dir={2}")
    @CsvSource({"ppr-sparse-ids, false, out, 4000000007", "ppr-dangling, true, in, 1"})
    void pprStoresAgree(String name, boolean directed, String edgeDir, long idStep) throws Exception {
        // Directed: many nodes without out-edges (dangling, their mass back to the seed); a hub in both.
        Graph graph = generate(name, directed, 400, 900, idStep, false, new Random(name.hashCode()));
        String[] options = {"--sampler", "ppr", "--edge-dir", edgeDir, "--batch-size", "50", "--shuffle",
                "--eps", "1e-3", "--max-ppr-nodes", "8", "--ppr-max-fetch-iterations", "12"};
        TreeMap<Long, byte[]> memory1 = runs.run("memory", 1, graph.file(), options);
        assertThat(memory1).hasSize((graph.nodes().size() + 49) / 50);
        assertSameMessages(memory1, runs.run("memory", 2, graph.file(), options));
        assertSameMessages(memory1, runs.run("partitioned", 2, graph.file(),
                with(options, "--state-backend", "hashmap")));
        assertSameMessages(memory1, runs.run("partitioned", 1, graph.file(),
                with(options, "--state-backend", "rocksdb")));
    }

    /** A typed edge file's rows (src, dst, time) and whether they are directed; keyed by src__rel__dst. */
    private record TypedEdges(List<long[]> rows, boolean directed) {
    }

    @ParameterizedTest(name = "typed {0}: edge-dir={1} timed={2}")
    @CsvSource({"a, in, true", "b, out, true", "c, in, false", "d, out, false"})
    void typedGraphsAgreeAndNeverSampleTheFuture(String name, String edgeDir, boolean timed) throws Exception {
        Random random = new Random(name.hashCode() * 31L + edgeDir.hashCode());
        Map<String, Integer> nodes = Map.of("A", 60, "B", 1 + random.nextInt(40));
        // Within A and B, across both ways; one relation already named rev_ (GLT's reverse keeps it from doubling).
        String[][] types = {{"A", "x", "A"}, {"A", "y", "B"}, {"B", "z", "A"}, {"B", "rev_w", "B"}};
        Path dir = Files.createDirectories(tmp.resolve("typed-" + name));
        Map<String, TypedEdges> files = new TreeMap<>();
        for (String[] t : types) {
            boolean directed = !t[0].equals(t[2]) || random.nextBoolean();
            List<long[]> rows = new ArrayList<>();
            StringBuilder text = new StringBuilder("# name=" + name + " directed=" + directed + " columns=src,dst"
                    + (timed ? ",timestamp" : "") + " id_base=0\n");
            for (int i = 0, m = 1 + random.nextInt(4 * nodes.get(t[0])); i < m; i++) {
                long a = random.nextInt(3) == 0 ? 0 : random.nextInt(nodes.get(t[0]));
                long b = random.nextInt(nodes.get(t[2]));
                long time = random.nextInt(20);
                long[] row = directed || a <= b ? new long[] {a, b, time} : new long[] {b, a, time};
                rows.add(row);
                text.append(row[0]).append('\t').append(row[1]).append(timed ? "\t" + row[2] : "").append('\n');
            }
            String key = t[0] + "__" + t[1] + "__" + t[2];
            Files.writeString(dir.resolve("edges." + key + ".tsv"), text);
            files.put(key, new TypedEdges(rows, directed));
        }
        // Seeds: A nodes with edges of type x (every id in an A file is an A node), each with its own time.
        StringBuilder seedText = new StringBuilder();
        List<long[]> seeds = new ArrayList<>();
        for (int i = 0; i < 90; i++) {
            long[] seed = {files.get("A__x__A").rows().get(random.nextInt(files.get("A__x__A").rows().size()))[0],
                    random.nextInt(22)};
            seeds.add(seed);
            seedText.append(seed[0]).append(timed ? "\t" + seed[1] : "").append('\n');
        }
        Path seedFile = Files.writeString(tmp.resolve("typed-" + name + ".seeds"), seedText);
        // -1 (every neighbour) and 0 (skip the type at that hop) included; one fanout list per edge type.
        Map<String, int[]> fanouts = Map.of("A__x__A", new int[] {2, -1}, "A__y__B", new int[] {1, 3},
                "B__z__A", new int[] {0, 2}, "B__rev_w__B", new int[] {5, 0});
        String fanout = fanouts.entrySet().stream().map(e -> e.getKey() + ":" + Arrays.stream(e.getValue())
                .mapToObj(String::valueOf).collect(Collectors.joining(","))).collect(Collectors.joining(";"));
        List<String> options = new ArrayList<>(List.of("--seed-type", "A", "--seeds", seedFile.toString(),
                "--fanout", fanout, "--edge-dir", edgeDir, "--batch-size", "16", "--seed", "5"));
        if (timed) {
            options.addAll(List.of("--time-column", "timestamp"));
        }
        String[] args = options.toArray(new String[0]);
        TreeMap<Long, byte[]> memory1 = runs.run("memory", 1, dir, args);
        assertSameMessages(memory1, runs.run("memory", 2, dir, args));
        assertSameMessages(memory1, runs.run("partitioned", 2, dir, with(args, "--state-backend", "hashmap")));
        assertSameMessages(memory1, runs.run("partitioned", 1, dir, with(args, "--state-backend", "rocksdb")));
        // Edge ids (each type's rows in its own file, read in 1 KB ranges) and, timed, edge times.
        String[] withEdge = with(args, "--with-edge");
        assertSameMessages(runs.run("memory", 1, dir, withEdge), runs.run("partitioned", 2, dir,
                with(withEdge, "--state-backend", "hashmap", "--partitioned.split-size", "1kb")));
        if (!timed) { // temporal sampling is disjoint already
            // Disjoint trees and bidirectional edges through four edge types (a rev_ one, a 0 and a -1 fanout).
            for (String[] mode : new String[][] {{"--disjoint"}, {"--subgraph-type", "bidirectional"},
                {"--disjoint", "--subgraph-type", "bidirectional", "--replace"}}) {
                String[] more = with(args, mode);
                TreeMap<Long, byte[]> expected = runs.run("memory", 1, dir, more);
                assertSameMessages(expected, runs.run("partitioned", 2, dir, with(more, "--state-backend", "hashmap")));
                assertSameMessages(expected, runs.run("partitioned", 1, dir, with(more, "--state-backend", "rocksdb")));
            }
        }
        // Link seeds across the two node types (A -> B, ids with gaps: the ends' id maps go with the job), with
        // negatives, which are never edges of A__y__B.
        StringBuilder linkText = new StringBuilder();
        Set<String> linkEdges = new TreeSet<>();
        List<long[]> yRows = files.get("A__y__B").rows();
        for (int r = 0; r < yRows.size(); r++) {
            linkEdges.add(yRows.get(r)[0] + ">" + yRows.get(r)[1]);
            if (r % 3 == 0) {
                linkText.append(yRows.get(r)[0]).append('\t').append(yRows.get(r)[1])
                        .append(timed ? "\t" + yRows.get(r)[2] : "").append('\n');
            }
        }
        Path linkFile = Files.writeString(tmp.resolve("typed-" + name + ".links"), linkText);
        List<String> linkOptions = new ArrayList<>(options.subList(4, options.size()));
        boolean triplet = name.equals("b") || name.equals("d");
        linkOptions.addAll(List.of("--link-seeds", linkFile.toString(), "--link-type", "A__y__B", "--neg-sampling",
                triplet ? "triplet" : "binary", "--neg-amount", "2"));
        if (name.equals("c")) {
            linkOptions.add("--disjoint");
        }
        String[] linkArgs = linkOptions.toArray(new String[0]);
        TreeMap<Long, byte[]> links = runs.run("memory", 1, dir, linkArgs);
        assertSameMessages(links, runs.run("partitioned", 2, dir, with(linkArgs, "--state-backend", "hashmap")));
        assertSameMessages(links, runs.run("partitioned", 1, dir, with(linkArgs, "--state-backend", "rocksdb")));
        for (byte[] blob : links.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] a = m.get("A.ids").asLongArray();
            long[] b = m.get("B.ids").asLongArray();
            int p = m.get("#META.input_id").asLongArray().length;
            if (triplet) {
                long[] src = m.get("#META.src_index").asLongArray();
                long[] neg = m.get("#META.dst_neg_index").asLongArray();
                for (int j = 0; j < neg.length; j++) {
                    assertThat(linkEdges).doesNotContain(a[(int) src[j / 2]] + ">" + b[(int) neg[j]]);
                }
            } else {
                long[] index = m.get("#META.edge_label_index").asLongArray();
                int n = index.length / 2;
                assertThat(n).isEqualTo(3 * p);
                for (int j = p; j < n; j++) {
                    assertThat(linkEdges).doesNotContain(a[(int) index[j]] + ">" + b[(int) index[n + j]]);
                }
            }
        }
        checkTypedAblp(name, dir, random, fanout, edgeDir);
        assertThat(memory1).hasSize(6);
        for (byte[] blob : memory1.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            for (Map.Entry<String, TypedEdges> file : files.entrySet()) {
                checkTypedEdges(m, file.getKey(), file.getValue(), fanouts.get(file.getKey()), edgeDir.equals("out"),
                        timed);
            }
        }
    }

    /**
     * Typed ABLP on a copy of the graph with label edge types A -> C, C a node type only the label edges name, ids
     * with gaps: both stores give the same messages, and each anchor's label rows are exactly its label edges.
     */
    private void checkTypedAblp(String name, Path graph, Random random, String fanout, String edgeDir)
            throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("typed-ablp-" + name));
        try (var files = Files.list(graph)) {
            for (Path f : files.toList()) {
                Files.copy(f, dir.resolve(f.getFileName()));
            }
        }
        Map<Long, TreeSet<Long>> positives = new TreeMap<>();
        Map<Long, TreeSet<Long>> negatives = new TreeMap<>();
        StringBuilder pos = new StringBuilder("# directed=true columns=src,dst\n");
        StringBuilder neg = new StringBuilder("# directed=true columns=src,dst\n");
        for (long a = 0; a < 60; a++) {
            for (int k = 0, n = random.nextInt(3) == 0 ? 1 + random.nextInt(4) : 0; k < n; k++) {
                long c = 1_000_003L * random.nextInt(25) + 7;
                pos.append(a).append('\t').append(c).append('\n');
                positives.computeIfAbsent(a, x -> new TreeSet<>()).add(c);
            }
        }
        for (Map.Entry<Long, TreeSet<Long>> e : positives.entrySet()) {
            long c = 1_000_003L * random.nextInt(25) + 7;
            if (!e.getValue().contains(c)) {
                neg.append(e.getKey()).append('\t').append(c).append('\n');
                negatives.computeIfAbsent(e.getKey(), x -> new TreeSet<>()).add(c);
            }
        }
        Files.writeString(dir.resolve("edges.A__likes__C.tsv"), pos);
        Files.writeString(dir.resolve("edges.A__dislikes__C.tsv"), neg);
        String[] args = {"--ablp-positive-type", "A__likes__C", "--ablp-negative-type", "A__dislikes__C", "--fanout",
            fanout, "--edge-dir", edgeDir, "--batch-size", "7", "--shuffle", "--seed", "5", "--subgraph-type",
            name.equals("c") ? "bidirectional" : "directional"};
        TreeMap<Long, byte[]> memory = runs.run("memory", 1, dir, args);
        assertSameMessages(memory, runs.run("partitioned", 2, dir, with(args, "--state-backend", "hashmap")));
        assertSameMessages(memory, runs.run("partitioned", 1, dir, with(args, "--state-backend", "rocksdb")));
        Set<Long> anchors = new TreeSet<>();
        for (byte[] blob : memory.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] batch = m.get("A.batch").asLongArray();
            Set<Long> sampledC = Arrays.stream(m.get("C.ids").asLongArray()).boxed().collect(Collectors.toSet());
            for (String[] labels : new String[][] {{"positive", "A__likes__C"}, {"negative", "A__dislikes__C"}}) {
                Map<Long, TreeSet<Long>> expected = labels[0].equals("positive") ? positives : negatives;
                long[] shape = m.get("#META.gigl_" + labels[0] + "_labels." + labels[1]).shape();
                long[] values = m.get("#META.gigl_" + labels[0] + "_labels." + labels[1]).asLongArray();
                for (int i = 0; i < batch.length; i++) {
                    TreeSet<Long> row = new TreeSet<>();
                    for (int k = 0; k < shape[1]; k++) {
                        long v = values[(int) (i * shape[1] + k)];
                        if (v != -1) {
                            row.add(v);
                        }
                    }
                    assertThat(row).as("%s labels of anchor %d", labels[0], batch[i])
                            .isEqualTo(expected.getOrDefault(batch[i], new TreeSet<>()));
                    assertThat(sampledC).as("label nodes are in the sample").containsAll(row);
                }
            }
            anchors.addAll(Arrays.stream(batch).boxed().toList());
        }
        assertThat(anchors).as("every node with a positive label edge, once").isEqualTo(positives.keySet());
    }

    /**
     * One edge type of a typed message: reported under GLT's name, rows = the sampled neighbours, cols = the nodes
     * expanded, which are exactly their type's nodes new at the hop before; min(f, eligible degree) per node, where a
     * timed tree's eligible edges are those no newer than its seed.
     */
    private static void checkTypedEdges(TensorMessage m, String fileType, TypedEdges edges, int[] fanouts,
            boolean out, boolean timed) {
        String[] t = fileType.split("__");
        String reported = !out || t[0].equals(t[2]) ? fileType
                : t[2] + "__" + (t[1].startsWith("rev_") ? t[1].substring(4) : "rev_" + t[1]) + "__" + t[0];
        String expandedType = out ? t[0] : t[2];
        String neighbourType = out ? t[2] : t[0];
        long[] expandedIds = m.get(expandedType + ".ids").asLongArray();
        long[] neighbourIds = m.get(neighbourType + ".ids").asLongArray();
        long[] newPerHop = m.get(expandedType + ".num_sampled_nodes").asLongArray();
        long[] rows = m.get(reported + ".rows").asLongArray();
        long[] cols = m.get(reported + ".cols").asLongArray();
        long[] edgesPerHop = m.get(reported + ".num_sampled_edges").asLongArray();
        long[] seedTimes = timed ? m.get(MessageKeys.META_SEED_TIME).asLongArray() : null;
        long[] expandedTree = timed ? m.get("#META." + expandedType + ".batch").asLongArray() : null;
        long[] neighbourTree = timed ? m.get("#META." + neighbourType + ".batch").asLongArray() : null;
        Map<Long, List<long[]>> lists = neighbours(edges.rows(), edges.directed(), out);
        int edge = 0;
        int frontierStart = 0;
        for (int hop = 0; hop < fanouts.length; hop++) {
            int frontierEnd = frontierStart + (int) newPerHop[hop];
            Map<Integer, Integer> picks = new HashMap<>();
            for (int e = edge; e < edge + edgesPerHop[hop]; e++) {
                int v = (int) cols[e];
                assertThat(v).as("%s hop %d expands only its frontier", reported, hop + 1)
                        .isBetween(frontierStart, frontierEnd - 1);
                long neighbour = neighbourIds[(int) rows[e]];
                long limit = timed ? seedTimes[(int) expandedTree[v]] : Long.MAX_VALUE;
                if (timed) {
                    assertThat(neighbourTree[(int) rows[e]]).as("one tree").isEqualTo(expandedTree[v]);
                }
                assertThat(lists.getOrDefault(expandedIds[v], List.of()))
                        .as("%s: %d -> %d is an edge no newer than %d", reported, expandedIds[v], neighbour, limit)
                        .anyMatch(n -> n[0] == neighbour && n[1] <= limit);
                picks.merge(v, 1, Integer::sum);
            }
            for (int v = frontierStart; v < frontierEnd; v++) {
                long limit = timed ? seedTimes[(int) expandedTree[v]] : Long.MAX_VALUE;
                long eligible = lists.getOrDefault(expandedIds[v], List.of()).stream().filter(n -> n[1] <= limit)
                        .count();
                long want = fanouts[hop] < 0 ? eligible : Math.min(fanouts[hop], eligible);
                assertThat((long) picks.getOrDefault(v, 0)).as("%s hop %d of %d", reported, hop + 1, expandedIds[v])
                        .isEqualTo(want);
            }
            edge += (int) edgesPerHop[hop];
            frontierStart = frontierEnd;
        }
    }

    private Graph generate(String name, boolean directed, int nodes, int edges, long idStep, boolean declareNodes,
            Random random) throws IOException {
        return generate(name, directed, nodes, edges, idStep, declareNodes, false, random);
    }

    /** As above; {@code timed}: each row has a time 0..19 (a timestamp column), so many edges share a time. */
    private Graph generate(String name, boolean directed, int nodes, int edges, long idStep, boolean declareNodes,
            boolean timed, Random random) throws IOException {
        long[] ids = new long[nodes];
        for (int i = 0; i < nodes; i++) {
            ids[i] = i * idStep + (idStep == 1 ? 0 : 3);
        }
        long hub = ids[random.nextInt(nodes)];
        List<long[]> rows = new ArrayList<>();
        while (rows.size() < edges) {
            // A quarter of the rows touch the hub, as source or destination: long in either --edge-dir.
            int hubEnd = random.nextInt(8);
            long a = hubEnd == 0 ? hub : ids[random.nextInt(nodes)];
            long b = hubEnd == 1 ? hub : random.nextInt(10) == 0 ? a : ids[random.nextInt(nodes)];
            long[] row = directed || a <= b ? new long[] {a, b} : new long[] {b, a};
            if (timed) {
                row = new long[] {row[0], row[1], random.nextInt(20)};
            }
            rows.add(row);
            if (random.nextInt(10) == 0 && rows.size() < edges) {
                rows.add(row.clone()); // a parallel edge
            }
        }
        Set<Long> seeded = new TreeSet<>();
        StringBuilder text = new StringBuilder("# name=" + name + " directed=" + directed + " num_edges=" + edges
                + (declareNodes ? " num_nodes=" + nodes : "") + " columns=src,dst" + (timed ? ",timestamp" : "")
                + " id_base=0\n");
        for (long[] row : rows) {
            text.append(row[0]).append('\t').append(row[1]).append(timed ? "\t" + row[2] : "").append('\n');
            seeded.add(row[0]);
            seeded.add(row[1]);
        }
        if (declareNodes) {
            for (long id : ids) {
                seeded.add(id); // ids 0..num_nodes-1 are nodes, with or without edges
            }
        }
        Path dir = Files.createDirectories(tmp.resolve("graph-" + name));
        Path file = Files.writeString(dir.resolve("edges.tsv"), text);
        return new Graph(file, rows, directed, seeded);
    }

    /**
     * Each node's neighbour list in the sampling direction, one {@code {neighbour, time}} per edge (parallel edges and
     * loops kept; time 0 for rows without one).
     */
    private static Map<Long, List<long[]>> neighbours(List<long[]> rows, boolean directed, boolean out) {
        Map<Long, List<long[]>> lists = new HashMap<>();
        for (long[] e : rows) {
            long from = out ? e[0] : e[1];
            long to = out ? e[1] : e[0];
            long time = e.length > 2 ? e[2] : 0;
            lists.computeIfAbsent(from, k -> new ArrayList<>()).add(new long[] {to, time});
            if (!directed && e[0] != e[1]) {
                lists.computeIfAbsent(to, k -> new ArrayList<>()).add(new long[] {from, time});
            }
        }
        return lists;
    }

    private static String[] with(String[] options, String... more) {
        String[] all = Arrays.copyOf(options, options.length + more.length);
        System.arraycopy(more, 0, all, options.length, more.length);
        return all;
    }
}
