package io.fanout.connectors.channel.sink;

import io.fanout.connectors.channel.options.ChannelSinkOptions;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.channel.client.ChannelReader;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A real Flink job (MiniCluster, parallelism 2) serving a bounded stream through ChannelSink to a ChannelReader. */
@Timeout(120)
class ChannelSinkMiniClusterTest {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    @TempDir
    Path registryDir;

    @Test
    void everyMessageReachesTheTrainerExactlyOnceAndTheJobFinishes() throws Exception {
        int epochs = 2;
        int batches = 150;
        List<EncodedMessage> samples = new ArrayList<>();
        for (int epoch = 0; epoch < epochs; epoch++) {
            for (int b = 0; b < batches; b++) {
                TensorMessage m = new TensorMessage()
                        .putInt64(MessageKeys.IDS, new int[] {b, b + 1, b + 2})
                        .putInt64(MessageKeys.ROWS, new long[] {0, 0})
                        .putInt64(MessageKeys.COLS, new long[] {1, 2})
                        .putInt64(MessageKeys.BATCH, new int[] {b})
                        .putInt64(MessageKeys.NUM_SAMPLED_NODES, new long[] {1, 2})
                        .putInt64(MessageKeys.NUM_SAMPLED_EDGES, new long[] {2})
                        .putInt64(MessageKeys.IS_HETERO, 0)
                        .putInt64(MessageKeys.META_EPOCH, epoch)
                        .putInt64(MessageKeys.META_BATCH_ID, b)
                        .putInt64(MessageKeys.META_NUM_BATCHES, batches);
                samples.add(new EncodedMessage(epoch, b, batches, SafetensorsCodec.encode(m)));
            }
        }

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        ChannelSinkOptions options = ChannelSinkOptions.builder(registryDir.toString()).capacity(8).linger(Duration.ofMillis(200)).build();
        env.fromData(samples).rebalance().sinkTo(new ChannelSink(options)).name("channel");
        JobClient job = env.executeAsync("channel-sink-it");

        // Two trainers share the work of the two endpoints.
        Map<String, Integer> seen = new java.util.concurrent.ConcurrentHashMap<>();
        List<java.util.concurrent.CompletableFuture<Integer>> trainers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            trainers.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                int n = 0;
                try (ChannelReader reader = ChannelReader.fromRegistry(registryDir, ChannelReader.Options.defaults().withPrefetch(3))) {
                    assertThat(reader.numEndpoints()).isEqualTo(2);
                    while (reader.hasNext()) {
                        EncodedMessage s = reader.next();
                        TensorMessage m = SafetensorsCodec.decode(s.payload);
                        assertThat(m.get(MessageKeys.META_EPOCH).asLongArray()).containsExactly(s.epoch);
                        assertThat(m.get(MessageKeys.META_BATCH_ID).asLongArray()).containsExactly(s.batchId);
                        assertThat(m.get(MessageKeys.IDS).asLongArray()).containsExactly(s.batchId, s.batchId + 1, s.batchId + 2);
                        seen.merge(s.epoch + "/" + s.batchId, 1, Integer::sum);
                        n++;
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return n;
            }));
        }
        int total = 0;
        for (var t : trainers) {
            total += t.get(90, TimeUnit.SECONDS);
        }
        assertThat(total).isEqualTo(epochs * batches);
        JobExecutionResult result = job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        assertThat(result.getJobID()).isEqualTo(job.getJobID());

        assertThat(seen).hasSize(epochs * batches);
        assertThat(seen.values()).allMatch(n -> n == 1);
        List<EndpointInfo> endpoints = new EndpointRegistry(registryDir).readAll();
        assertThat(endpoints).extracting(EndpointInfo::index).containsExactly(0, 1);
        assertThat(endpoints).allMatch(e -> e.state() == EndpointInfo.State.FINISHED && e.numEndpoints() == 2
                && job.getJobID().toString().equals(e.jobId()));
    }
}
