package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.flink.operator.TypedPprSamplingFunction;
import io.fanout.graph.GraphFiles;
import io.fanout.store.SharedGraphs;
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

/**
 * {@code --store partitioned} typed PPR (rows fetched in rounds, {@code PartitionedTypedPpr}) gives byte-identical
 * messages to the memory store's {@code TypedPprSampler} at parallelism 1 and 2, on real typed graphs: channels,
 * sampled edges, capped rows, in-edges, node labels and features.
 */
class PartitionedTypedPprITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    private static final String CHANNELS = "paper__cites__paper:0.6,paper__has_word__word:0.4";

    /** 400 of bitcoin_alpha_typed's 3,783 users (all of them take the partitioned runs ~50 s on two cores). */
    private static final String FIRST_USERS = java.util.stream.IntStream.range(0, 400)
            .mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(","));

    @TempDir
    Path tmp;
    private int runs;

    private TreeMap<Long, byte[]> run(String store, int parallelism, Path graph, String... extra) throws Exception {
        Path out = tmp.resolve(store + "-p" + parallelism + "-" + (++runs));
        String[] base = {"--graph", graph.toString(), "--store", store, "--output", out.toString(),
                "--parallelism", String.valueOf(parallelism), "--checkpoint-interval", "1s", "--sampler", "ppr"};
        String[] args = java.util.Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        JobSummary summary = runJob(args);
        assertThat(summary.batches).isPositive();
        return readMessages(out);
    }

    /** The memory store's messages, and the partitioned store's at each parallelism the same bytes. */
    private TreeMap<Long, byte[]> sameAsMemory(Path graph, int[] parallelisms, String... options) throws Exception {
        TreeMap<Long, byte[]> memory = run("memory", 1, graph, options);
        int loads = SharedGraphs.loadCount();
        for (int p : parallelisms) {
            assertSameMessages(memory, run("partitioned", p, graph, options));
        }
        assertThat(SharedGraphs.loadCount()).as("no process loaded a whole graph store for the partitioned runs")
                .isEqualTo(loads);
        return memory;
    }

    @Test
    void bitcoinAlphaTypedInEdgesAsTheMemoryStore() throws Exception {
        TreeMap<Long, byte[]> memory = sameAsMemory(SharedData.graph("bitcoin_alpha_typed"), new int[] {1, 2},
                "--edge-dir", "in", "--alpha", "0.3", "--max-ppr-nodes", "10", "--batch-size", "200",
                "--seeds", FIRST_USERS, "--seed", "11");
        long pprEdges = 0;
        for (byte[] payload : memory.values()) {
            pprEdges += SafetensorsCodec.decode(payload)
                    .get(TypedPprSamplingFunction.PPR_EDGE_INDEX + "('user', 'ppr', 'user')").shape()[1];
        }
        assertThat(pprEdges).isPositive();
    }

    @Test
    void coraHeteroChannelsSampledEdgesAndFeaturesAsTheMemoryStore() throws Exception {
        // cora_hetero's edge files beside a paper node file with cora's 1,433 features (label, f0..), words by id.
        Path dir = Files.createDirectories(tmp.resolve("cora-hetero-features"));
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
        // Every paper a seed; --ppr-max-neighbors 6 cuts the rows of papers with more words or citations.
        TreeMap<Long, byte[]> memory = sameAsMemory(dir, new int[] {1, 2}, "--seed-type", "paper",
                "--ppr-channels", CHANNELS, "--include-sampled-edges", "--max-ppr-nodes", "20",
                "--ppr-max-neighbors", "6", "--batch-size", "700", "--shuffle", "--seed", "5");
        assertThat(memory).hasSize(4);
        long sampled = 0;
        long toWords = 0;
        for (byte[] payload : memory.values()) {
            TensorMessage m = SafetensorsCodec.decode(payload);
            assertThat(m.names()).contains("paper.nlabels", "word.ids");
            assertThat(m.get("paper.nfeats").shape()).containsExactly(m.get("paper.ids").numElements(), 1433);
            sampled += m.get("word__rev_has_word__paper.rows").numElements();
            toWords += m.get(TypedPprSamplingFunction.PPR_EDGE_INDEX + "('paper', 'ppr', 'word')").shape()[1];
        }
        assertThat(sampled).as("sampled has_word edges").isPositive();
        assertThat(toWords).as("PPR edges to words").isPositive();
    }
}
