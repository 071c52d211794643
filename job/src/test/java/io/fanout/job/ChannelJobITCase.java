package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedSet;
import io.fanout.config.FanoutJobConfig;
import io.fanout.connectors.channel.client.ChannelReader;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.channel.tls.TestCertificates;
import io.fanout.connectors.channel.sink.ChannelSink;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.flink.operator.KHopSamplingFunction;
import io.fanout.flink.source.EpochWatermarks;
import io.fanout.flink.source.SeedBatchSource;
import io.fanout.graph.EdgeDirection;
import io.fanout.message.BatchHeader;
import io.fanout.message.HomogeneousSample;
import io.fanout.message.MessageEncoder;
import io.fanout.store.GraphSpec;
import io.fanout.store.SharedGraphs;
import io.fanout.sampling.KHopSampler;
import io.fanout.testing.FailOnceAfterCheckpoint;
import io.fanout.testing.SharedData;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Meter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import io.fanout.testing.ThreadDumpOnTimeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The channel to trainers end to end in a real MiniCluster on cora: epochs ended through watermarks
 * across keyBy and the sampler, sampling errors as messages, a slow trainer against the byte bound,
 * and a job failure mid-epoch with a restart from a checkpoint while a ChannelReader reads.
 */
@Timeout(120)
@ExtendWith(ThreadDumpOnTimeout.class)
class ChannelJobITCase {
    private static final Configuration CLUSTER = new Configuration();

    static {
        CLUSTER.setString("metrics.reporter.probe.factory.class", ChannelMetricsProbe.Factory.class.getName());
    }

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).setConfiguration(CLUSTER).build());

    private static final int[] FANOUTS = {10, 5};
    private static final long SEED = 7;

    @TempDir
    Path tmp;

    /** Every node of {@code graph} a seed, batches of 64, shuffled, 2 epochs: {@code --batch-size 64 --shuffle --epochs 2}. */
    private static BatchPlan everyNodeTwice(Path graph) throws Exception {
        try (SharedGraphs.Lease lease = SharedGraphs.acquire(graph, EdgeDirection.OUT)) {
            return new BatchPlan(SeedSet.allNodes(lease.graph().numNodes()), 64, true, false, 2, SEED);
        }
    }

    /** The bytes an uninterrupted run produces for every (epoch, batch), computed without Flink. */
    private static Map<Long, byte[]> expectedMessages(Path graph, BatchPlan plan) throws Exception {
        Map<Long, byte[]> out = new HashMap<>();
        try (SharedGraphs.Lease lease = SharedGraphs.acquire(graph, EdgeDirection.OUT)) {
            KHopSampler sampler = new KHopSampler(lease.graph().adjacency(), FANOUTS, false);
            for (int e = 0; e < plan.epochs(); e++) {
                for (int b = 0; b < plan.numBatches(); b++) {
                    SeedBatch batch = plan.batch(e, b);
                    out.put(batch.key(), MessageEncoder.encode(HomogeneousSample.kHop(
                            sampler.sampleShared(batch.seeds, SEED, e, b), lease.graph(), true),
                            BatchHeader.of(batch, lease.graph().ids()), null));
                }
            }
        }
        return out;
    }

    /** Slows the seed batches down to a trainer-like pace. */
    static final class Throttle implements org.apache.flink.api.common.functions.MapFunction<SeedBatch, SeedBatch> {
        @Override
        public SeedBatch map(SeedBatch b) throws InterruptedException {
            Thread.sleep(20); // a trainer's pace
            return b;
        }
    }

    @Test
    void aJobFailureMidEpochDeliversEveryBatchExactlyOnceWithTheBytesOfAnUninterruptedRun() throws Exception {
        Path graph = SharedData.graph("cora");
        Path registry = tmp.resolve("registry");
        BatchPlan plan = everyNodeTwice(graph);
        Map<Long, byte[]> expected = expectedMessages(graph, plan);

        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        FailOnceAfterCheckpoint.reset();
        ChannelSinkOptions options = ChannelSinkOptions.builder(registry.toString()).capacity(8).linger(Duration.ofMillis(500)).build();
        env.fromSource(new SeedBatchSource(plan), EpochWatermarks.strategy(), "seeds")
                .map(new Throttle()).returns(SeedBatchSource.TYPE) // checkpoints fall mid-epoch, not after the last batch
                .keyBy(new FanoutJob.BatchKey(), Types.LONG)
                .process(new KHopSamplingFunction(GraphSpec.edges(graph, EdgeDirection.OUT), FANOUTS, false, SEED))
                .returns(TypeInformation.of(EncodedMessage.class))
                .map(FailOnceAfterCheckpoint.<EncodedMessage>afterRecords(30)).returns(TypeInformation.of(EncodedMessage.class))
                .sinkTo(new ChannelSink(options));
        JobClient job = env.executeAsync("channel-failover-it");

        Map<Long, byte[]> got = new HashMap<>();
        List<Integer> epochs = new ArrayList<>();
        long copies;
        try (ChannelReader reader = ChannelReader.fromRegistry(registry, ChannelReader.Options.defaults().withPrefetch(2)
                .withReconnectTimeout(Duration.ofSeconds(60)))) {
            ChannelReader.Epoch epoch;
            while ((epoch = reader.nextEpoch()) != null) {
                epochs.add(epoch.epoch());
                int n = 0;
                while (epoch.hasNext()) {
                    EncodedMessage s = epoch.next();
                    assertThat(s.epoch).isEqualTo(epoch.epoch());
                    byte[] previous = got.put(((long) s.epoch << 32) | s.batchId, s.payload);
                    assertThat(previous).as("epoch %d batch %d handed out twice", s.epoch, s.batchId).isNull();
                    n++;
                    Thread.sleep(5); // a trainer step
                }
                assertThat(n).as("epoch %d complete when it ended", epoch.epoch()).isEqualTo(plan.numBatches());
            }
            copies = reader.duplicates();
        }
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        assertThat(FailOnceAfterCheckpoint.FAILED).as("the failure was injected").isTrue();
        assertThat(epochs).containsExactly(0, 1);
        assertThat(got.keySet()).isEqualTo(expected.keySet());
        for (Map.Entry<Long, byte[]> e : expected.entrySet()) {
            assertThat(got.get(e.getKey())).as("bytes of batch key %x", e.getKey()).isEqualTo(e.getValue());
        }
        System.out.println("failover: " + copies + " re-sent copies dropped by the reader");
    }

    /**
     * The job runs with Flink object reuse (no copy of each message per chained sink); the files and
     * the channel are chained to the same sampler, which hands both the same borrowed message (the channel copies
     * it to hold it, the file sink writes it out), and must both hold the exact bytes of every batch.
     */
    @Test
    void filesAndChannelFedByOneSamplerGetTheExactBytesOfEveryBatch() throws Exception {
        Path graph = SharedData.graph("cora");
        Path registry = tmp.resolve("registry");
        Path output = tmp.resolve("out");
        BatchPlan plan = everyNodeTwice(graph);
        Map<Long, byte[]> expected = expectedMessages(graph, plan);
        FanoutJobConfig config = FanoutJobConfig.from(FanoutJob.commandLine().parse(new String[] {"--graph", graph.toString(),
                "--fanout", "10,5", "--seed", String.valueOf(SEED), "--batch-size", "64", "--shuffle", "--epochs", "2",
                "--parallelism", "2", "--output", output.toString(), "--serve", "--registry", registry.toString()}).configuration);
        assertThat(FlinkSettings.flinkConfiguration(config).get(PipelineOptions.OBJECT_REUSE)).isTrue();
        CompletableFuture<JobSummary> job = runInBackground(config);
        Map<Long, byte[]> served = new HashMap<>();
        try (ChannelReader reader = ChannelReader.fromRegistry(registry, ChannelReader.Options.defaults())) {
            ChannelReader.Epoch epoch;
            while ((epoch = reader.nextEpoch()) != null) {
                while (epoch.hasNext()) {
                    EncodedMessage s = epoch.next();
                    assertThat(served.put(((long) s.epoch << 32) | s.batchId, s.payload)).isNull();
                }
            }
        }
        job.get(120, TimeUnit.SECONDS);
        Map<Long, byte[]> files = FanoutJobITCase.readMessages(output);
        assertThat(served.keySet()).isEqualTo(expected.keySet());
        assertThat(files.keySet()).isEqualTo(expected.keySet());
        for (Map.Entry<Long, byte[]> e : expected.entrySet()) {
            assertThat(served.get(e.getKey())).as("served bytes of batch key %x", e.getKey()).isEqualTo(e.getValue());
            assertThat(files.get(e.getKey())).as("file bytes of batch key %x", e.getKey()).isEqualTo(e.getValue());
        }

        FanoutJobConfig copying = FanoutJobConfig.from(FanoutJob.commandLine().parse(new String[] {"--graph", graph.toString(),
                "-Dpipeline.object-reuse=false"}).configuration);
        assertThat(FlinkSettings.flinkConfiguration(copying).get(PipelineOptions.OBJECT_REUSE))
                .as("a user's pipeline.object-reuse wins").isFalse();
    }

    /**
     * The sampler emits borrowed messages (its reused buffer, {@code GraphSamplingFunction#emit}); where Flink copies
     * each record between chained operators (object reuse off) or serializes it (chaining off), the stream's
     * serializer must copy or write the borrowed bytes, not the unset payload field: the files hold the exact bytes.
     * The partitioned store's message stage ({@code MessageStageFunction}) borrows the same way.
     */
    @ParameterizedTest
    @ValueSource(strings = {"memory", "partitioned"})
    void borrowedMessagesKeepTheirBytesWhereFlinkCopiesOrSerializesThem(String store) throws Exception {
        Path graph = SharedData.graph("cora");
        BatchPlan plan = everyNodeTwice(graph);
        Map<Long, byte[]> expected = expectedMessages(graph, plan);
        for (String setting : new String[] {"pipeline.object-reuse=false", "pipeline.operator-chaining.enabled=false"}) {
            Path output = tmp.resolve(store + "-" + setting.substring(0, setting.indexOf('=')));
            FanoutJob.run(FanoutJobConfig.from(FanoutJob.commandLine().parse(new String[] {"--graph", graph.toString(),
                    "--store", store, "--fanout", "10,5", "--seed", String.valueOf(SEED), "--batch-size", "64",
                    "--shuffle", "--epochs", "2", "--parallelism", "2", "--output", output.toString(), "-D" + setting})
                    .configuration));
            Map<Long, byte[]> files = FanoutJobITCase.readMessages(output);
            assertThat(files.keySet()).as("%s, %s", store, setting).isEqualTo(expected.keySet());
            for (Map.Entry<Long, byte[]> e : expected.entrySet()) {
                assertThat(files.get(e.getKey())).as("%s, %s: file bytes of batch key %x", store, setting, e.getKey())
                        .isEqualTo(e.getValue());
            }
        }
    }

    /** Runs the real job ({@link FanoutJob#run}) in the MiniCluster while the test reads the channel. */
    private static CompletableFuture<JobSummary> runInBackground(FanoutJobConfig config) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return FanoutJob.run(config);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    /** The value of the one gauge whose identifier ends with {@code .name}. */
    private static long gauge(String name) {
        List<Long> values = new ArrayList<>();
        for (Map.Entry<String, Metric> m : ChannelMetricsProbe.METRICS.entrySet()) {
            if (m.getKey().endsWith("." + name)) {
                values.add(((Number) ((Gauge<?>) m.getValue()).getValue()).longValue());
            }
        }
        assertThat(values).as(name).hasSize(1);
        return values.get(0);
    }

    @Test
    void theRealJobServesTlsAndATrustingReaderGetsEveryBatchOnce() throws Exception {
        Path graph = SharedData.graph("cora");
        Path registry = tmp.resolve("registry");
        TestCertificates certs = TestCertificates.create(tmp.resolve("certs"), "Fanout Test CA");
        FanoutJobConfig config = FanoutJobConfig.from(FanoutJob.commandLine().parse(new String[] {"--graph", graph.toString(),
                "--fanout", "10,5", "--batch-size", "64", "--epochs", "2", "--parallelism", "2", "--serve", "--registry",
                registry.toString(), "--channel-tls-cert", certs.chain.toString(), "--channel-tls-key", certs.key.toString(),
                "-Dfanout.channel.linger=500ms"}).configuration);
        assertThat(config.channel.tls()).isTrue();
        CompletableFuture<JobSummary> job = runInBackground(config);
        int numBatches = (2708 + 63) / 64;
        Map<Integer, List<Integer>> batchesPerEpoch = new HashMap<>();
        try (ChannelReader reader = ChannelReader.fromRegistry(registry, ChannelReader.Options.defaults().withPrefetch(2)
                .tlsCa(certs.ca))) {
            ChannelReader.Epoch epoch;
            while ((epoch = reader.nextEpoch()) != null) {
                List<Integer> ids = batchesPerEpoch.computeIfAbsent(epoch.epoch(), k -> new ArrayList<>());
                while (epoch.hasNext()) {
                    EncodedMessage s = epoch.next();
                    assertThat(SafetensorsCodec.decode(s.payload).names()).isNotEmpty();
                    ids.add(s.batchId);
                }
            }
        }
        job.get(120, TimeUnit.SECONDS);
        assertThat(new EndpointRegistry(registry).readAll()).hasSize(2).allMatch(EndpointInfo::servesTls);
        assertThat(batchesPerEpoch.keySet()).containsExactly(0, 1);
        for (int e = 0; e < 2; e++) {
            assertThat(batchesPerEpoch.get(e)).as("epoch %d: every batch once over TLS", e).doesNotHaveDuplicates()
                    .hasSize(numBatches);
        }
    }

    @Test
    void aTrainerPausedLongerThanTheCheckpointTimeoutDoesNotMakeTheJobFailOver() throws Exception {
        Path graph = SharedData.graph("cora");
        Path registry = tmp.resolve("registry");
        // Endpoints of 2 messages: a paused trainer blocks the sinks at once, and the checkpoint
        // barriers behind them, for 3.5 checkpoint intervals, 3.5 checkpoint timeouts.
        FanoutJobConfig config = FanoutJobConfig.from(FanoutJob.commandLine().parse(new String[] {"--graph", graph.toString(),
                "--fanout", "10,5", "--batch-size", "64", "--epochs", "2", "--parallelism", "2", "--serve", "--registry",
                registry.toString(), "--checkpoint-interval", "1s", "-Dexecution.checkpointing.timeout=1s",
                "-Dfanout.channel.capacity=2", "-Drestart-strategy.type=fixed-delay",
                "-Drestart-strategy.fixed-delay.attempts=3", "-Drestart-strategy.fixed-delay.delay=200ms"}).configuration);
        ChannelMetricsProbe.METRICS.clear();
        CompletableFuture<JobSummary> job = runInBackground(config);
        int numBatches = (2708 + 63) / 64;
        Map<Integer, List<Integer>> batchesPerEpoch = new HashMap<>();
        long largest = 0;
        try (ChannelReader reader = ChannelReader.fromRegistry(registry, ChannelReader.Options.defaults().withPrefetch(2))) {
            ChannelReader.Epoch epoch;
            while ((epoch = reader.nextEpoch()) != null) {
                List<Integer> ids = batchesPerEpoch.computeIfAbsent(epoch.epoch(), k -> new ArrayList<>());
                while (epoch.hasNext()) {
                    EncodedMessage m = epoch.next();
                    ids.add(m.batchId);
                    largest = Math.max(largest, m.payload.length);
                    if (epoch.epoch() == 0 && ids.size() == 10) {
                        Thread.sleep(3_500); // the trainer pauses
                    }
                }
            }
        }
        job.get(120, TimeUnit.SECONDS);
        for (int e = 0; e < 2; e++) {
            assertThat(batchesPerEpoch.get(e)).as("epoch %d: every batch once", e).doesNotHaveDuplicates().hasSize(numBatches);
        }
        assertThat(gauge("numberOfFailedCheckpoints")).as("the pause made checkpoints time out").isPositive();
        assertThat(gauge("numRestarts")).as("no failover, so no checkpoint restored").isZero();
        // The samplers emit in epoch order, so an endpoint ends an epoch at the next one's first message and never
        // has to go past its bound of 2 messages for a reader whose epoch it holds nothing of.
        List<Long> peaks = new ArrayList<>();
        for (Map.Entry<String, Metric> m : ChannelMetricsProbe.METRICS.entrySet()) {
            if (m.getKey().endsWith(".channel.peakQueueBytes")) {
                peaks.add(((Number) ((Gauge<?>) m.getValue()).getValue()).longValue());
            }
        }
        long bound = 2 * largest;
        assertThat(peaks).hasSize(2).allSatisfy(p -> assertThat(p).isLessThanOrEqualTo(bound));
        System.out.println("paused trainer: " + gauge("numberOfFailedCheckpoints") + " checkpoints timed out, "
                + gauge("numberOfCompletedCheckpoints") + " completed, no restart");
    }

    @Test
    void theRealJobEndsEpochsReportsSamplingErrorsAndStaysUnderTheByteBoundWithASlowTrainer() throws Exception {
        Path graph = SharedData.graph("cora");
        Path registry = tmp.resolve("registry");
        long bufferBytes = 512 << 10;
        FanoutJobConfig config = FanoutJobConfig.from(FanoutJob.commandLine().parse(new String[] {"--graph", graph.toString(), "--fanout", "10,5",
                "--batch-size", "64", "--epochs", "2", "--parallelism", "2", "--serve", "--registry", registry.toString(),
                "-Dfanout.channel.buffer-bytes=512kb", "-Dfanout.channel.capacity=1000", "-Dfanout.channel.linger=500ms",
                "-Dfanout.inject-sampling-errors=0:5,1:7"}).configuration);
        ChannelMetricsProbe.METRICS.clear();
        CompletableFuture<JobSummary> job = runInBackground(config);
        int numBatches = (2708 + 63) / 64;
        List<Integer> epochs = new ArrayList<>();
        Map<Integer, List<Integer>> batchesPerEpoch = new HashMap<>();
        List<String> errors = new ArrayList<>();
        try (ChannelReader reader = ChannelReader.fromRegistry(registry, ChannelReader.Options.defaults().withPrefetch(2))) {
            ChannelReader.Epoch epoch;
            while ((epoch = reader.nextEpoch()) != null) {
                epochs.add(epoch.epoch());
                List<Integer> ids = batchesPerEpoch.computeIfAbsent(epoch.epoch(), k -> new ArrayList<>());
                while (epoch.hasNext()) {
                    try {
                        ids.add(epoch.next().batchId);
                    } catch (ChannelReader.SamplingErrorException e) {
                        errors.add(e.epoch() + ":" + e.batchId());
                        assertThat(e).hasMessageContaining("injected sampling error");
                    }
                    Thread.sleep(10); // a trainer far slower than the sampler
                }
            }
        }
        job.get(120, TimeUnit.SECONDS);
        assertThat(epochs).containsExactly(0, 1);
        assertThat(errors).containsExactly("0:5", "1:7");
        for (int e = 0; e < 2; e++) {
            int failed = e == 0 ? 5 : 7;
            assertThat(batchesPerEpoch.get(e)).doesNotHaveDuplicates().hasSize(numBatches - 1).doesNotContain(failed);
        }
        List<Long> peaks = new ArrayList<>();
        for (Map.Entry<String, Metric> m : ChannelMetricsProbe.METRICS.entrySet()) {
            if (m.getKey().endsWith(".channel.peakQueueBytes")) {
                peaks.add(((Number) ((Gauge<?>) m.getValue()).getValue()).longValue());
            }
        }
        assertThat(peaks).as("one gauge per endpoint").hasSize(2);
        assertThat(peaks).as("memory of every endpoint within fanout.channel.buffer-bytes").allMatch(p -> p <= bufferBytes);
        assertThat(peaks).as("the slow trainer filled the buffer").anyMatch(p -> p > bufferBytes / 4);
        assertThat(ChannelMetricsProbe.METRICS.keySet()).anyMatch(k -> k.endsWith(".channel.messagesSent"))
                .anyMatch(k -> k.endsWith(".channel.connectedClients")).anyMatch(k -> k.endsWith(".channel.fetchLatencyMs"));
        long sent = ChannelMetricsProbe.METRICS.entrySet().stream().filter(m -> m.getKey().endsWith(".channel.messagesSent"))
                .mapToLong(m -> ((Meter) m.getValue()).getCount()).sum();
        assertThat(sent).isEqualTo(2L * numBatches);
        System.out.println("slow trainer: peak bytes held per endpoint " + peaks + " of a " + bufferBytes + "-byte bound");
    }
}
