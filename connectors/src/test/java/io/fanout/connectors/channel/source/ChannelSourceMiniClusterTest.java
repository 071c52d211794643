package io.fanout.connectors.channel.source;

import static io.fanout.connectors.channel.source.SourceTestSupport.sample;
import static io.fanout.connectors.channel.source.SourceTestSupport.writeFile;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real Flink jobs (MiniCluster, parallelism 2) consuming samples with ChannelSource: from .samples files and from live
 * endpoints, and from live endpoints through a failure mid-stream (exactly once).
 */
@Timeout(180)
class ChannelSourceMiniClusterTest {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    @TempDir
    Path dir;

    private static List<EncodedMessage> collect(DataStream<EncodedMessage> stream) throws Exception {
        List<EncodedMessage> out = new ArrayList<>();
        try (CloseableIterator<EncodedMessage> it = stream.executeAndCollect("channel-source-it")) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    /** Puts {@code messages} into endpoint {@code e} on another thread (blocking while its buffer is full), then finishes it. */
    private static CompletableFuture<Void> produce(ChannelEndpoint e, List<EncodedMessage> messages) {
        return CompletableFuture.runAsync(() -> {
            try {
                for (EncodedMessage m : messages) {
                    e.put(m);
                }
                e.finishAndDrain();
            } catch (Exception ex) {
                throw new RuntimeException(ex);
            }
        });
    }

    private static List<EncodedMessage> sorted(List<EncodedMessage> samples) {
        List<EncodedMessage> s = new ArrayList<>(samples);
        s.sort((x, y) -> x.epoch != y.epoch ? Integer.compare(x.epoch, y.epoch) : Integer.compare(x.batchId, y.batchId));
        return s;
    }

    @Test
    void readsEveryRecordOfEverySamplesFileOnce() throws Exception {
        List<EncodedMessage> all = new ArrayList<>();
        for (int part = 0; part < 3; part++) { // three subtasks' files, in nested bucket directories as FileSink writes them
            List<EncodedMessage> file = new ArrayList<>();
            for (int b = part; b < 60; b += 3) {
                file.add(sample(part % 2, b, 60));
            }
            writeFile(dir.resolve("out/2024-01-01--00/part-" + part + ".samples"), file);
            all.addAll(file);
        }
        writeFile(dir.resolve("out/.part-9.inprogress.samples"), List.of(sample(9, 9, 9))); // skipped
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStream<EncodedMessage> stream = env.fromSource(ChannelSource.files(List.of(dir.resolve("out").toString())),
                WatermarkStrategy.noWatermarks(), "samples");
        assertThat(sorted(collect(stream))).isEqualTo(sorted(all));
    }

    @Test
    void consumesEveryMessageFromLiveEndpointsFoundInTheRegistry() throws Exception {
        Path registry = dir.resolve("registry");
        ChannelSinkOptions options = ChannelSinkOptions.builder(registry.toString()).capacity(4).linger(Duration.ofSeconds(2)).build();
        List<EncodedMessage> all = new ArrayList<>();
        try (ChannelEndpoint e0 = new ChannelEndpoint(options, 0, 2, "producer");
                ChannelEndpoint e1 = new ChannelEndpoint(options, 1, 2, "producer")) {
            List<CompletableFuture<Void>> producers = new ArrayList<>();
            for (ChannelEndpoint e : List.of(e0, e1)) {
                int index = e.info().index();
                List<EncodedMessage> mine = new ArrayList<>();
                for (int b = index; b < 200; b += 2) {
                    mine.add(sample(0, b, 200));
                }
                all.addAll(mine);
                producers.add(produce(e, mine)); // blocks at 4 buffered: the source job must pull
            }
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            env.enableCheckpointing(100); // live messages are acknowledged when a checkpoint completes
            DataStream<EncodedMessage> stream = env.fromSource(ChannelSource.registry(registry.toString()).withPrefetch(2),
                    WatermarkStrategy.noWatermarks(), "channel");
            assertThat(sorted(collect(stream))).isEqualTo(sorted(all));
            for (CompletableFuture<Void> p : producers) {
                p.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void readsATlsChannelTrustingItsCa() throws Exception {
        io.fanout.connectors.channel.tls.TestCertificates certs =
                io.fanout.connectors.channel.tls.TestCertificates.create(dir.resolve("certs"), "Fanout Source Test CA");
        Path registry = dir.resolve("tls-registry");
        ChannelSinkOptions options = ChannelSinkOptions.builder(registry.toString()).capacity(4).linger(Duration.ofSeconds(2))
                .tls(certs.chain.toString(), certs.key.toString()).build();
        List<EncodedMessage> all = new ArrayList<>();
        for (int b = 0; b < 40; b++) {
            all.add(sample(0, b, 40));
        }
        try (ChannelEndpoint e = new ChannelEndpoint(options, 0, 1, "producer")) {
            CompletableFuture<Void> producer = produce(e, all);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            env.enableCheckpointing(100);
            DataStream<EncodedMessage> stream = env.fromSource(
                    ChannelSource.registry(registry.toString()).withTlsCa(certs.ca.toString()),
                    WatermarkStrategy.noWatermarks(), "channel-tls");
            assertThat(sorted(collect(stream))).isEqualTo(sorted(all));
            producer.get(30, TimeUnit.SECONDS);
        }
    }

    /** Counts records and fails the task once, after a checkpoint completed and enough records went past it. */
    static final class FailOnceAfterCheckpoint extends RichMapFunction<EncodedMessage, EncodedMessage> implements CheckpointListener {
        static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();
        static final AtomicBoolean FAILED = new AtomicBoolean();
        static final AtomicInteger SEEN = new AtomicInteger();
        private int seenSinceCheckpoint;

        @Override
        public EncodedMessage map(EncodedMessage m) {
            SEEN.incrementAndGet();
            if (CHECKPOINTED.get() && ++seenSinceCheckpoint > 5 && FAILED.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure mid-stream (test)");
            }
            return m;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (SEEN.get() >= 60) { // a checkpoint that covers a good part of the stream, not the first empty one
                CHECKPOINTED.set(true);
            }
        }
    }

    @Test
    @Timeout(90)
    void aJobFailedMidStreamConsumesEveryLiveMessageExactlyOnce() throws Exception {
        Path registry = dir.resolve("registry");
        // capacity 16: the endpoints hold what the source has not acknowledged, so they can only get ahead by
        // checkpoint completions; the stream is far from its end when the failure comes
        ChannelSinkOptions options = ChannelSinkOptions.builder(registry.toString()).capacity(16).linger(Duration.ofSeconds(2)).build();
        List<EncodedMessage> all = new ArrayList<>();
        try (ChannelEndpoint e0 = new ChannelEndpoint(options, 0, 2, "producer");
                ChannelEndpoint e1 = new ChannelEndpoint(options, 1, 2, "producer")) {
            List<CompletableFuture<Void>> producers = new ArrayList<>();
            for (ChannelEndpoint e : List.of(e0, e1)) {
                int index = e.info().index();
                List<EncodedMessage> mine = new ArrayList<>();
                for (int b = index; b < 400; b += 2) {
                    mine.add(sample(b / 200, b % 200, 200));
                }
                all.addAll(mine);
                producers.add(produce(e, mine));
            }
            Configuration conf = new Configuration();
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(2);
            env.enableCheckpointing(150);
            DataStream<EncodedMessage> stream = env.fromSource(ChannelSource.registry(registry.toString()).withPrefetch(2),
                    WatermarkStrategy.noWatermarks(), "channel").map(new FailOnceAfterCheckpoint()).returns(ChannelSource.TYPE);
            // the collect sink is exactly once with checkpointing: what it returns is what the job committed
            List<EncodedMessage> consumed = collect(stream);
            assertThat(FailOnceAfterCheckpoint.FAILED).isTrue(); // it did fail mid-stream, after a completed checkpoint
            assertThat(FailOnceAfterCheckpoint.SEEN.get()).isGreaterThan(all.size()); // and records after that checkpoint came again
            assertThat(sorted(consumed)).isEqualTo(sorted(all)); // every (epoch, batch) once, byte-identical
            for (CompletableFuture<Void> p : producers) {
                p.get(30, TimeUnit.SECONDS);
            }
        }
    }
}
