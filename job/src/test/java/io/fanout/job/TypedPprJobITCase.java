package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.runAtParallelismOneAndTwo;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.features.FeatureDType;
import io.fanout.flink.operator.TypedPprSamplingFunction;
import io.fanout.graph.EdgeDirection;
import io.fanout.message.MessageDecoder;
import io.fanout.message.MessageEncoder;
import io.fanout.message.TypedSample;
import io.fanout.sampling.ppr.PprChannels;
import io.fanout.sampling.ppr.TypedPprSubgraph;
import io.fanout.sampling.ppr.TypedPprSampler;
import io.fanout.store.GraphSpec;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Path;
import java.util.TreeMap;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed PPR through the real job (MiniCluster) on cora_hetero and bitcoin_alpha_typed: byte-identical at
 * parallelism 1 and 2, GiGL's heterogeneous keys, and every message equal to {@link TypedPprSampler} run alone on
 * the same seeds.
 */
class TypedPprJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    private static final String CHANNELS = "paper__cites__paper:0.6,paper__has_word__word:0.4";

    @Test
    void coraHeteroChannelsWithSampledEdgesIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graph = SharedData.graph("cora_hetero");
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(), "--seed-type",
                "paper", "--sampler", "ppr", "--ppr-channels", CHANNELS, "--include-sampled-edges",
                "--max-ppr-nodes", "20", "--batch-size", "700", "--shuffle", "--epochs", "2", "--seed", "5");
        assertThat(messages).hasSize(2 * 4);
        TypedGraphStore store = TypedGraphStore.load(new GraphSpec(graph.toString(), EdgeDirection.OUT, null,
                FeatureDType.FLOAT32, false));
        TypedPprSampler reference = new TypedPprSampler(store.adjacency(), store.nodeIds(), "paper",
                PprChannels.parse(CHANNELS, store.adjacency().keySet()), 0.5, 1e-4, 20, 1000, true, true, 5);
        long pprEdges = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            assertThat(m.get("#IS_HETERO").asLongArray()).containsExactly(1L);
            String toWord = TypedPprSamplingFunction.PPR_WEIGHT + "('paper', 'ppr', 'word')";
            assertThat(m.names()).contains("paper.ids", "word.ids", "paper.batch", "paper.nlabels",
                    TypedPprSamplingFunction.PPR_EDGE_INDEX + "('paper', 'ppr', 'paper')",
                    TypedPprSamplingFunction.PPR_EDGE_INDEX + "('paper', 'ppr', 'word')", toWord,
                    "paper__cites__paper.rows", "word__rev_has_word__paper.cols");
            assertThat(m.get(toWord).shape()[1]).isEqualTo(2 + 3 * 2);
            int[] seeds = m.get("paper.batch").asIntArray(); // cora_hetero's paper ids are their indices
            TensorMessage expected = MessageEncoder.message(TypedSample.ppr(reference.sample(seeds), store),
                    MessageDecoder.decode(m).header(), null);
            for (String name : expected.names()) {
                assertThat(m.get(name)).as(name).isEqualTo(expected.get(name));
            }
            pprEdges += m.get(TypedPprSamplingFunction.PPR_EDGE_INDEX + "('paper', 'ppr', 'word')").shape()[1];
        }
        assertThat(pprEdges).isPositive();
    }

    @Test
    void bitcoinAlphaTypedInEdgesWithoutChannelsIdenticalAtParallelismOneAndTwo() throws Exception {
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(), "--sampler", "ppr",
                "--edge-dir", "in", "--alpha", "0.3", "--max-ppr-nodes", "10", "--ppr-max-neighbors", "5",
                "--batch-size", "1000");
        assertThat(messages).hasSize(4);
        TypedGraphStore store = TypedGraphStore.load(new GraphSpec(graph.toString(), EdgeDirection.IN, null,
                FeatureDType.FLOAT32, false));
        TypedPprSampler reference = new TypedPprSampler(store.adjacency(), store.nodeIds(), "user", null, 0.3, 1e-4, 10,
                5, true, false, 42);
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            assertThat(m.names()).noneMatch(n -> n.endsWith(".rows"));
            String weight = TypedPprSamplingFunction.PPR_WEIGHT + TypedPprSubgraph.pprEdgeType("user", "user");
            assertThat(m.get(weight).shape()[1]).isEqualTo(2);
            int[] seeds = store.nodeIds("user").isIdentity() ? m.get("user.batch").asIntArray() : null;
            assertThat(seeds).isNotNull();
            TensorMessage expected = MessageEncoder.message(TypedSample.ppr(reference.sample(seeds), store),
                    MessageDecoder.decode(m).header(), null);
            for (String name : expected.names()) {
                assertThat(m.get(name)).as(name).isEqualTo(expected.get(name));
            }
        }
    }
}
