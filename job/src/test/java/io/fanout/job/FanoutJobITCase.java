package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.connectors.file.SamplesFile;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.store.SharedGraphs;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The whole k-hop job on real graphs in a real MiniCluster, read back from its offline files. */
class FanoutJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    static JobSummary runJob(String... args) throws Exception {
        return FanoutJob.run(JobConfigs.parse(args));
    }

    /** Messages of an output directory keyed by (epoch, batch id); fails on a duplicate key. */
    static TreeMap<Long, byte[]> readMessages(Path dir) throws Exception {
        TreeMap<Long, byte[]> byKey = new TreeMap<>();
        for (byte[] blob : SamplesFile.readAll(dir)) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long epoch = m.get(MessageKeys.META_EPOCH).asLongArray()[0];
            long batch = m.get(MessageKeys.META_BATCH_ID).asLongArray()[0];
            byte[] previous = byKey.put((epoch << 32) | batch, blob);
            assertThat(previous).as("batch (%d, %d) written twice", epoch, batch).isNull();
        }
        return byKey;
    }

    /** Runs the job at parallelism 1 and 2 into {@code tmp}, asserts byte-identical messages, returns them. */
    static TreeMap<Long, byte[]> runAtParallelismOneAndTwo(Path tmp, String... args) throws Exception {
        List<TreeMap<Long, byte[]>> runs = new ArrayList<>();
        for (int parallelism : new int[] {1, 2}) {
            Path out = tmp.resolve("p" + parallelism);
            List<String> all = new ArrayList<>(List.of(args));
            all.addAll(List.of("--output", out.toString(), "--parallelism", String.valueOf(parallelism)));
            runJob(all.toArray(new String[0]));
            runs.add(readMessages(out));
        }
        assertSameMessages(runs.get(0), runs.get(1));
        return runs.get(0);
    }

    /** The same batches with byte-identical messages (e.g. at parallelism 1 and 2). */
    static void assertSameMessages(TreeMap<Long, byte[]> expected, TreeMap<Long, byte[]> actual) {
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        for (Long key : expected.keySet()) {
            if (!java.util.Arrays.equals(actual.get(key), expected.get(key))) {
                // Name the first tensor that differs: the bytes alone say nothing of where.
                TensorMessage want = SafetensorsCodec.decode(expected.get(key));
                TensorMessage got = SafetensorsCodec.decode(actual.get(key));
                assertThat(got.names()).as("message %d's tensors", key).isEqualTo(want.names());
                for (String name : want.names()) {
                    assertThat(got.get(name)).as("message %d, tensor %s", key, name).isEqualTo(want.get(name));
                }
            }
            assertThat(actual.get(key)).as("message %d", key).isEqualTo(expected.get(key));
        }
    }

    static void assertNoInProgressFiles(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
                    .isNotEmpty()
                    .allMatch(name -> name.startsWith("part") && name.endsWith(".samples"), "finished part file");
        }
    }

    /** Every seed in exactly one batch per epoch, batch counts as GLT's, messages self-consistent. */
    static void assertEpochsCoverSeeds(TreeMap<Long, byte[]> messages, CsrGraph graph, int numSeeds, int batchSize,
            int epochs, int hops) {
        int expectedBatches = (numSeeds + batchSize - 1) / batchSize;
        assertThat(messages).hasSize(expectedBatches * epochs);
        Map<Long, int[]> seenPerEpoch = new HashMap<>();
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long epoch = m.get(MessageKeys.META_EPOCH).asLongArray()[0];
            assertThat(m.get(MessageKeys.META_NUM_BATCHES).asLongArray()).containsExactly(expectedBatches);
            assertThat(m.get(MessageKeys.IS_HETERO).asLongArray()).containsExactly(0L);
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] rows = m.get(MessageKeys.ROWS).asLongArray();
            long[] cols = m.get(MessageKeys.COLS).asLongArray();
            long[] batch = m.get(MessageKeys.BATCH).asLongArray();
            long[] nodesPerHop = m.get(MessageKeys.NUM_SAMPLED_NODES).asLongArray();
            long[] edgesPerHop = m.get(MessageKeys.NUM_SAMPLED_EDGES).asLongArray();
            assertThat(nodesPerHop).hasSize(hops + 1);
            assertThat(edgesPerHop).as("one entry per hop, as GLT and PyG").hasSize(hops);
            assertThat(Arrays.stream(nodesPerHop).sum()).isEqualTo(ids.length);
            assertThat(Arrays.stream(edgesPerHop).sum()).isEqualTo(rows.length).isEqualTo(cols.length);
            // seeds come first in ids
            assertThat(Arrays.copyOf(ids, batch.length)).containsExactly(batch);
            for (int i = 0; i < rows.length; i++) {
                assertThat(graph.hasEdge((int) ids[(int) rows[i]], (int) ids[(int) cols[i]])).isTrue();
            }
            int[] seen = seenPerEpoch.computeIfAbsent(epoch, e -> new int[graph.numNodes()]);
            for (long s : batch) {
                seen[(int) s]++;
            }
        }
        assertThat(seenPerEpoch).hasSize(epochs);
        for (int[] seen : seenPerEpoch.values()) {
            assertThat(Arrays.stream(seen).filter(c -> c == 1).count()).isEqualTo(numSeeds);
            assertThat(Arrays.stream(seen).allMatch(c -> c <= 1)).isTrue();
        }
    }

    @Test
    void coraTwoShuffledEpochsAreIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graphDir = SharedData.graph("cora");
        List<TreeMap<Long, byte[]>> runs = new ArrayList<>();
        for (int parallelism : new int[] {1, 2}) {
            Path out = tmp.resolve("p" + parallelism);
            JobSummary summary = runJob("--graph", graphDir.toString(), "--fanout", "15,10", "--batch-size", "128",
                    "--epochs", "2", "--shuffle", "--seed", "7", "--output", out.toString(),
                    "--parallelism", String.valueOf(parallelism));
            assertNoInProgressFiles(out);
            assertThat(summary.batches).isEqualTo(2 * 22);
            assertThat(summary.seeds).isEqualTo(2 * 2708);
            runs.add(readMessages(out));
        }
        CsrGraph graph = GraphLoader.load(graphDir, EdgeDirection.OUT);
        assertEpochsCoverSeeds(runs.get(0), graph, 2708, 128, 2, 2);
        assertSameMessages(runs.get(0), runs.get(1));
    }

    @Test
    void egoTwitterIsIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graphDir = SharedData.graph("ego_twitter_u");
        List<TreeMap<Long, byte[]>> runs = new ArrayList<>();
        for (int parallelism : new int[] {1, 2}) {
            Path out = tmp.resolve("p" + parallelism);
            int loadsBefore = SharedGraphs.loadCount();
            runJob("--graph", graphDir.toString(), "--fanout", "10,5", "--batch-size", "1024", "--output",
                    out.toString(), "--parallelism", String.valueOf(parallelism));
            // One load for the client's validation and every sampler subtask of this TaskManager JVM.
            assertThat(SharedGraphs.loadCount() - loadsBefore).isEqualTo(1);
            assertNoInProgressFiles(out);
            runs.add(readMessages(out));
        }
        CsrGraph graph = GraphLoader.load(graphDir, EdgeDirection.OUT);
        assertEpochsCoverSeeds(runs.get(0), graph, graph.numNodes(), 1024, 1, 2);
        assertSameMessages(runs.get(0), runs.get(1));
    }

    @Test
    void dropLastAndSeedListAndInEdges() throws Exception {
        Path graphDir = SharedData.graph("cora_cites");
        Path seeds = tmp.resolve("seeds.txt");
        StringBuilder sb = new StringBuilder("# every 7th paper\n");
        int n = 0;
        for (int id = 0; id < 2708; id += 7) {
            sb.append(id).append('\n');
            n++;
        }
        Files.writeString(seeds, sb.toString());
        Path out = tmp.resolve("out");
        JobSummary summary = runJob("--graph", graphDir.toString(), "--seeds", seeds.toString(), "--batch-size", "50",
                "--drop-last", "--edge-dir", "in", "--fanout", "5,-1", "--output", out.toString());
        TreeMap<Long, byte[]> messages = readMessages(out);
        assertThat(messages).hasSize(n / 50);
        assertThat(summary.seeds).isEqualTo((n / 50) * 50L);
        CsrGraph in = GraphLoader.load(graphDir, EdgeDirection.IN);
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] rows = m.get(MessageKeys.ROWS).asLongArray();
            long[] cols = m.get(MessageKeys.COLS).asLongArray();
            for (int i = 0; i < rows.length; i++) {
                // edge-dir in: the graph has ids[cols] -> ids[rows] as a citing -> cited edge
                assertThat(in.hasEdge((int) ids[(int) rows[i]], (int) ids[(int) cols[i]])).isTrue();
            }
        }
    }

    @Test
    void badOptionsFailBeforeTheJobNamingTheOption() {
        String cora = SharedData.graph("cora").toString();
        assertThatThrownBy(() -> runJob("--graph", cora, "--batch-size", "0"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--batch-size").hasMessageContaining("0");
        assertThatThrownBy(() -> runJob("--graph", cora, "--fanout", "15,x"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--fanout").hasMessageContaining("15,x");
        assertThatThrownBy(() -> runJob("--graph", cora, "--edge-dir", "sideways"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--edge-dir").hasMessageContaining("sideways");
        assertThatThrownBy(() -> runJob("--graph", tmp.resolve("missing").toString()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--graph");
        assertThatThrownBy(() -> runJob("--graph", cora, "--seeds", "1,99999"))
                .hasMessageContaining("99999");
        assertThatThrownBy(() -> runJob("--graph", cora, "--bogus", "1"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--bogus");
    }
}
