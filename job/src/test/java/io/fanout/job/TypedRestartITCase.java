package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.batch.BatchPlan;
import io.fanout.config.FanoutJobConfig;
import io.fanout.connectors.file.SamplesFile;
import io.fanout.connectors.file.SamplesFileSink;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.flink.source.EpochWatermarks;
import io.fanout.flink.source.SeedBatchSource;
import io.fanout.graph.NodeIdMap;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.AblpGraphs;
import io.fanout.testing.FailOnceAfterCheckpoint;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed graphs across a job failure (MiniCluster): ABLP on bitcoin_alpha_typed and typed PPR with channels on
 * cora_hetero fail once mid-epoch after a completed checkpoint, restart from it, and write every (epoch, batch) with
 * the bytes of an uninterrupted run of the real job.
 */
@Timeout(120)
class TypedRestartITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    @Test
    void ablpOnBitcoinAlphaTypedRestartsWithTheBytesOfAnUninterruptedRun() throws Exception {
        Path graph = AblpGraphs.bitcoin(tmp.resolve("g"));
        failAndCompare("--graph", graph.toString(), "--ablp-positive-type", AblpGraphs.POSITIVE,
                "--ablp-negative-type", AblpGraphs.NEGATIVE, "--fanout", "5,2", "--batch-size", "25", "--shuffle",
                "--epochs", "2", "--parallelism", "2");
    }

    @Test
    void typedPprWithChannelsOnCoraHeteroRestartsWithTheBytesOfAnUninterruptedRun() throws Exception {
        Path graph = SharedData.graph("cora_hetero");
        failAndCompare("--graph", graph.toString(), "--seed-type", "paper", "--sampler", "ppr", "--ppr-channels",
                "paper__cites__paper:0.6,paper__has_word__word:0.4", "--include-sampled-edges", "--max-ppr-nodes",
                "20", "--batch-size", "25", "--shuffle", "--epochs", "2", "--seed", "5", "--parallelism", "2");
    }

    /**
     * Runs the real job once uninterrupted, then the same source, sampler and file sink with a throttled source,
     * checkpoints every 100 ms and a map that fails once after a completed checkpoint; compares the two.
     */
    private void failAndCompare(String... args) throws Exception {
        Path expectedDir = tmp.resolve("expected");
        List<String> plain = new ArrayList<>(List.of(args));
        plain.addAll(List.of("--output", expectedDir.toString()));
        FanoutJobITCase.runJob(plain.toArray(new String[0]));
        TreeMap<Long, byte[]> expected = FanoutJobITCase.readMessages(expectedDir);
        assertThat(expected).isNotEmpty();

        // Checkpoints every 100 ms, given as a user gives them (FlinkSettings derives the pause between them).
        List<String> restarted = new ArrayList<>(List.of(args));
        restarted.addAll(List.of("--checkpoint-interval", "100ms"));
        FanoutJobConfig config = JobConfigs.parse(restarted.toArray(new String[0]));
        TypedGraphStore typed = TypedGraphStore.load(config.graphSpec());
        NodeIdMap anchors = typed.nodeIds(config.typed.seedType);
        BatchPlan plan = config.typed.ablpPositive != null
                ? SeedPlanning.anchorPlan(config, anchors,
                        SeedPlanning.typedLabelEdges(config, typed.nodeIds()).positive())
                : SeedPlanning.batchPlan(config, anchors);
        assertThat((long) plan.epochs() * plan.numBatches()).isEqualTo(expected.size());

        Configuration conf = FlinkSettings.flinkConfiguration(config);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        FailOnceAfterCheckpoint.reset();
        Path out = tmp.resolve("restarted");
        env.fromSource(new SeedBatchSource(plan), EpochWatermarks.strategy(), "seeds")
                .map(new ChannelJobITCase.Throttle()).returns(SeedBatchSource.TYPE) // checkpoints fall mid-epoch
                .keyBy(new FanoutJob.BatchKey(), Types.LONG)
                .process(FanoutJob.samplingFunction(config))
                .returns(TypeInformation.of(EncodedMessage.class))
                .map(FailOnceAfterCheckpoint.<EncodedMessage>afterRecords(expected.size() / 2))
                .returns(TypeInformation.of(EncodedMessage.class))
                .sinkTo(SamplesFileSink.create(out.toAbsolutePath().toString()));
        env.execute("typed-restart-it");
        assertThat(FailOnceAfterCheckpoint.FAILED).as("the failure was injected").isTrue();

        // De-duplicate by (epoch, batch): a copy must carry the same bytes.
        TreeMap<Long, byte[]> got = new TreeMap<>();
        int copies = 0;
        for (byte[] blob : SamplesFile.readAll(out)) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long key = (m.get(MessageKeys.META_EPOCH).asLongArray()[0] << 32)
                    | m.get(MessageKeys.META_BATCH_ID).asLongArray()[0];
            byte[] previous = got.put(key, blob);
            if (previous != null) {
                copies++;
                assertThat(blob).as("copy of batch key %x", key).isEqualTo(previous);
            }
        }
        FanoutJobITCase.assertSameMessages(expected, got);
        System.out.println("typed restart: " + got.size() + " batches, " + copies + " duplicate copies in the files");
    }
}
