package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.config.FanoutOptions;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.sampling.ppr.FetchingPush;
import io.fanout.sampling.ppr.FetchingPushTest;
import io.fanout.sampling.ppr.PprBatchPush;
import io.fanout.sampling.ppr.PprOracle;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code --sampler ppr --store partitioned} (GiGL's distributed PPR: lists fetched from the keyed adjacency in
 * rounds): with enough rounds, byte-identical messages to the memory store; with the default rounds, messages
 * byte-identical at parallelism 1 and 2 and every reported score within the forward-push bound of
 * ../shared/oracles/ppr_oracle.py's exact PPR.
 */
class PartitionedPprITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    private static final double ALPHA = 0.5;
    private static final double EPS = 1e-4;
    private static final double ROUNDING = 1e-12;

    @TempDir
    Path tmp;

    private TreeMap<Long, byte[]> run(String store, int parallelism, Path graph, String... extra) throws Exception {
        Path out = tmp.resolve(store + "-p" + parallelism + "-" + graph.getFileName() + "-" + extra.length);
        String[] base = {"--graph", graph.toString(), "--store", store, "--sampler", "ppr", "--output", out.toString(),
                "--parallelism", String.valueOf(parallelism), "--checkpoint-interval", "1s"};
        String[] args = Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        JobSummary summary = runJob(io.fanout.testing.JobConfigs.forStore(store, args));
        assertThat(summary.batches).isPositive();
        if (!store.equals("memory")) {
            // The fetch rounds' list cache (--partitioned.cache-mb, automatic by default) answers repeated lists.
            boolean off = Arrays.asList(extra).contains("--partitioned.cache-mb");
            assertThat(summary.headCacheHits).as("list cache hits").matches(h -> off ? h == 0 : h > 0);
        }
        return readMessages(out);
    }

    /** cora needs at most 9 rounds (FetchingPushTest); 12 leave every push to finish with every list. */
    @ParameterizedTest(name = "ppr-max-neighbors {0}")
    @CsvSource({"1000", "3"})
    void enoughRoundsGiveTheMemoryStoresMessagesOnCora(String maxNeighbors) throws Exception {
        Path graph = SharedData.graph("cora");
        String[] options = {"--batch-size", "400", "--shuffle", "--ppr-max-neighbors", maxNeighbors,
                "--ppr-max-fetch-iterations", "12"};
        TreeMap<Long, byte[]> memory = run("memory", 2, graph, options);
        assertSameMessages(memory, run("partitioned", 1, graph, options));
        assertSameMessages(memory, run("partitioned", 2, graph, options));
        String[] uncached = Arrays.copyOf(options, options.length + 2);
        uncached[options.length] = "--partitioned.cache-mb";
        uncached[options.length + 1] = "0";
        assertSameMessages(memory, run("partitioned", 2, graph, uncached));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"float32", "uint8"})
    void nodeFeaturesAndLabelsAsTheMemoryStore(String dtype) throws Exception {
        Path graph = SharedData.graph("cora");
        String[] options = {"--batch-size", "500", "--shuffle", "--ppr-max-fetch-iterations", "12",
                "--node-features", graph.resolve("nodes.tsv.gz").toString(), "--feature-dtype", dtype};
        TreeMap<Long, byte[]> memory = run("memory", 2, graph, options);
        assertThat(SafetensorsCodec.decode(memory.firstEntry().getValue()).get(MessageKeys.NLABELS)).isNotNull();
        assertSameMessages(memory, run("partitioned", 2, graph, options));
    }

    @Test
    void defaultRoundsOnCoraAreWithinTheOracleBoundAtParallelismOneAndTwo() throws Exception {
        withinTheOracleBound("cora", "--max-ppr-nodes", "20");
    }

    @Test
    void defaultRoundsOnPubmedAreWithinTheOracleBoundAtParallelismOneAndTwo() throws Exception {
        withinTheOracleBound("pubmed");
    }

    @Test
    void fewRoundsOnPubmedAreWithinTheOracleBound() throws Exception {
        withinTheOracleBound("pubmed", "--ppr-max-fetch-iterations", "2");
    }

    /**
     * 60 seeds in 3 batches: p=1 and p=2 messages byte-identical; each message is the pure-Java rounds' result
     * (PprBatchPush with the same rounds) and each reported value v of node u for seed s satisfies
     * {@code 0 <= pi_s(u) - v <= residualMass / alpha}.
     */
    private void withinTheOracleBound(String dataset, String... extra) throws Exception {
        Path graph = SharedData.graph(dataset);
        CsrGraph csr = GraphLoader.load(graph, EdgeDirection.OUT);
        int[] seeds = IntStream.range(0, 60).map(i -> (int) ((i * 2654435761L) % csr.numNodes())).toArray();
        String[] options = Arrays.copyOf(new String[] {"--batch-size", "20", "--seeds",
                Arrays.stream(seeds).mapToObj(String::valueOf).collect(Collectors.joining(","))}, 4 + extra.length);
        System.arraycopy(extra, 0, options, 4, extra.length);
        TreeMap<Long, byte[]> p1 = run("partitioned", 1, graph, options);
        TreeMap<Long, byte[]> p2 = run("partitioned", 2, graph, options);
        assertSameMessages(p1, p2);
        assertThat(p1).hasSize(3);

        int rounds = FanoutOptions.PPR_MAX_FETCH_ITERATIONS.defaultValue();
        int maxPprNodes = FanoutOptions.MAX_PPR_NODES.defaultValue();
        for (int i = 0; i < extra.length; i += 2) {
            if (extra[i].equals("--ppr-max-fetch-iterations")) {
                rounds = Integer.parseInt(extra[i + 1]);
            } else if (extra[i].equals("--max-ppr-nodes")) {
                maxPprNodes = Integer.parseInt(extra[i + 1]);
            }
        }
        double[][] exact = PprOracle.exact(dataset, ALPHA, seeds, false);
        Map<Integer, Integer> row = new TreeMap<>();
        for (int i = 0; i < seeds.length; i++) {
            row.putIfAbsent(seeds[i], i);
        }
        int checked = 0;
        for (byte[] bytes : p1.values()) {
            TensorMessage m = SafetensorsCodec.decode(bytes);
            long[] batch = m.get(MessageKeys.BATCH).asLongArray();
            long[] ids = m.get(MessageKeys.IDS).asLongArray();
            long[] edgeIndex = m.get(MessageKeys.META_EDGE_INDEX).asLongArray();
            double[] edgeAttr = m.get(MessageKeys.META_EDGE_ATTR).asDoubleArray();
            PprBatchPush expected = new PprBatchPush(batch, ALPHA, EPS);
            FetchingPushTest.run(expected, FetchingPushTest.lists(csr, 1000), rounds);
            PprBatchPush.Result r = expected.select(maxPprNodes, true);
            assertThat(ids).isEqualTo(r.ids);
            assertThat(edgeAttr).isEqualTo(r.edgeAttr);
            int ne = edgeAttr.length / 2;
            for (int e = 0; e < ne; e++) {
                int si = (int) edgeIndex[e];
                FetchingPush push = expected.push(si);
                double bound = push.residualMass() / ALPHA + ROUNDING;
                long node = ids[(int) edgeIndex[ne + e]];
                double gap = exact[row.get((int) ids[si])][(int) node] - edgeAttr[2 * e];
                assertThat(gap).as("%s seed %d node %d: exact - reported", dataset, ids[si], node)
                        .isBetween(-ROUNDING, bound);
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(seeds.length);
    }

    @Test
    void fetchIterationsBelowOneAreRefusedNamingTheOption() {
        Path cora = SharedData.graph("cora");
        assertThatThrownBy(() -> runJob("--graph", cora.toString(), "--store", "partitioned", "--sampler", "ppr",
                "--ppr-max-fetch-iterations", "0"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value '0' for option fanout.ppr-max-fetch-iterations (--ppr-max-fetch-iterations):"
                        + " must be >= 1");
    }
}
