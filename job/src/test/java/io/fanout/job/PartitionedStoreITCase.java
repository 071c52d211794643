package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static io.fanout.job.FanoutJobITCase.readMessages;
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

    private TreeMap<Long, byte[]> run(String store, int parallelism, Path graph, String... extra) throws Exception {
        Path out = tmp.resolve(store + "-p" + parallelism + "-" + graph.getFileName());
        String[] base = {"--graph", graph.toString(), "--store", store, "--output", out.toString(),
                "--parallelism", String.valueOf(parallelism), "--checkpoint-interval", "1s"};
        String[] args = java.util.Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        JobSummary summary = runJob(args);
        assertThat(summary.batches).isPositive();
        return readMessages(out);
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
        List<String[]> rows = NodeFileReaderTest.referenceRows(SharedData.graph("cora_cites").resolve("edges.tsv"));
        Path dir = Files.createDirectories(tmp.resolve("parts"));
        int third = rows.size() / 3;
        for (int part = 0; part < 3; part++) {
            StringBuilder text = new StringBuilder(part == 0 ? "# directed=true columns=src,dst\n" : "");
            for (String[] row : rows.subList(part * third, part == 2 ? rows.size() : (part + 1) * third)) {
                text.append(row[0]).append('\t').append(row[1]).append('\n');
            }
            Files.writeString(dir.resolve("edges." + part + ".tsv"), text);
        }
        String[] options = {"--fanout", "6,3", "--batch-size", "256", "--edge-dir", "in", "--replace", "--directed", "true"};
        assertSameMessages(run("memory", 1, dir, options), run("partitioned", 2, dir, options));
    }

    @Test
    void sparseInt64IdsAsTheMemoryStore() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("sparse"));
        StringBuilder text = new StringBuilder("# directed=false columns=src,dst\n");
        for (String[] row : NodeFileReaderTest.referenceRows(SharedData.graph("cora").resolve("edges.tsv"))) {
            text.append(sparse(row[0])).append('\t').append(sparse(row[1])).append('\n');
        }
        Files.writeString(dir.resolve("edges.tsv"), text);
        String[] options = {"--fanout", "10,10", "--batch-size", "500", "--shuffle"};
        assertSameMessages(run("memory", 1, dir, options), run("partitioned", 2, dir, options));
    }

    private static long sparse(String id) {
        return (1L << 61) + Long.parseLong(id) * 1_000_003L;
    }

    @Test
    void optionsThePartitionedStoreDoesNotTakeYetAreRefusedUpFront() {
        Path cora = SharedData.graph("cora");
        assertThatThrownBy(() -> runJob("--graph", cora.toString(), "--store", "partitioned", "--sampler", "ppr"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value 'partitioned' for option fanout.store (--store)")
                .hasMessageContaining("fanout.sampler (--sampler) ppr");
        assertThatThrownBy(() -> runJob("--graph", cora.toString(), "--store", "partitioned", "--node-features",
                cora.resolve("nodes.tsv.gz").toString()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("fanout.node-features (--node-features)");
    }
}
