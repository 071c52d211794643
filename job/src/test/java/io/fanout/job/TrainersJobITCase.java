package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.FanoutJobITCase.runAtParallelismOneAndTwo;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.connectors.channel.client.ChannelReader;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * --trainers and --start-epoch end to end on cora in a real MiniCluster: padded epochs with equal rank shares,
 * identical at parallelism 1 and 2, offline and served, in both stores; a later start epoch is the full run's epochs
 * byte for byte.
 */
class TrainersJobITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    private static final int CORA_NODES = 2708;

    /** Batches of 256: 10 full and one of 148, so 11 real batches per epoch, odd, padded to 12 for 2 trainers. */
    private static final String[] SAMPLING = {"--fanout", "10,5", "--batch-size", "256", "--epochs", "2",
        "--shuffle", "--seed", "7"};

    @TempDir
    Path tmp;

    private static String[] args(String[] base, String... extra) {
        String[] out = Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, out, base.length, extra.length);
        return out;
    }

    private static String[] cora(String... extra) {
        return args(args(new String[] {"--graph", SharedData.graph("cora").toString()}, SAMPLING), extra);
    }

    private static long meta(TensorMessage m, String key) {
        long[] v = m.get(key).asLongArray();
        assertThat(v).as(key).hasSize(1);
        return v[0];
    }

    /** The message without the trainer keys, encoded again: what a one-trainer job writes for the same batch. */
    private static byte[] withoutTrainerKeys(byte[] blob) {
        TensorMessage m = SafetensorsCodec.decode(blob);
        assertThat(m.remove(MessageKeys.META_TRAINERS)).isNotNull();
        assertThat(m.remove(MessageKeys.META_PADDED)).isNotNull();
        return SafetensorsCodec.encode(m);
    }

    @Test
    void twoTrainersGetEqualSharesWithOnePaddingBatchIdenticallyAtParallelismOneAndTwo() throws Exception {
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp, cora("--trainers", "2"));
        assertThat(messages).hasSize(2 * 12);
        for (int epoch = 0; epoch < 2; epoch++) {
            int[] seen = new int[CORA_NODES];
            int[] perRank = new int[2];
            TensorMessage first = null;
            for (int b = 0; b < 12; b++) {
                TensorMessage m = SafetensorsCodec.decode(messages.get(((long) epoch << 32) | b));
                assertThat(meta(m, MessageKeys.META_NUM_BATCHES)).as("the padded count").isEqualTo(12);
                assertThat(meta(m, MessageKeys.META_TRAINERS)).isEqualTo(2);
                assertThat(meta(m, MessageKeys.META_PADDED)).as("epoch %d batch %d", epoch, b).isEqualTo(b == 11 ? 1 : 0);
                perRank[b % 2]++;
                long[] seeds = m.get(MessageKeys.BATCH).asLongArray();
                long[] ids = m.get(MessageKeys.IDS).asLongArray();
                assertThat(Arrays.copyOf(ids, seeds.length)).as("a padding batch is sampled as any other").isEqualTo(seeds);
                if (b == 0) {
                    first = m;
                }
                if (b < 11) {
                    for (long s : seeds) {
                        seen[(int) s]++;
                    }
                    continue;
                }
                // The padding batch takes a full batch again from the start of the epoch's (shuffled) order: batch
                // 0's seeds and input ids, sampled with its own stream (batch 11's).
                assertThat(seeds).hasSize(256).isEqualTo(first.get(MessageKeys.BATCH).asLongArray());
                assertThat(m.get(MessageKeys.META_INPUT_ID).asLongArray())
                        .isEqualTo(first.get(MessageKeys.META_INPUT_ID).asLongArray());
            }
            assertThat(seen).as("the real batches hold every seed once").containsOnly(1);
            assertThat(perRank).containsExactly(6, 6);
        }

        // The real batches are the one-trainer job's, byte for byte, but for the two trainer keys.
        Path single = tmp.resolve("one-trainer");
        runJob(cora("--output", single.toString(), "--parallelism", "2"));
        TreeMap<Long, byte[]> one = readMessages(single);
        assertThat(one).hasSize(2 * 11);
        for (Map.Entry<Long, byte[]> e : one.entrySet()) {
            TensorMessage m = SafetensorsCodec.decode(e.getValue());
            assertThat(m.names()).doesNotContain(MessageKeys.META_TRAINERS, MessageKeys.META_PADDED);
            assertThat(meta(m, MessageKeys.META_NUM_BATCHES)).isEqualTo(11);
            // num_batches differs (11 vs 12): compare with it set to the padded count.
            m.putInt64(MessageKeys.META_NUM_BATCHES, new long[] {12});
            assertThat(withoutTrainerKeys(messages.get(e.getKey()))).as("batch key %x", e.getKey())
                    .isEqualTo(SafetensorsCodec.encode(m));
        }
    }

    @Test
    void startEpochOneServedAndOfflineIsTheFullRunsEpochOneByteForByte() throws Exception {
        Path full = tmp.resolve("full");
        runJob(cora("--trainers", "2", "--output", full.toString(), "--parallelism", "1"));
        TreeMap<Long, byte[]> fullRun = readMessages(full);
        TreeMap<Long, byte[]> epochOne = new TreeMap<>(fullRun.tailMap(1L << 32));
        assertThat(epochOne).hasSize(12);

        Path replay = tmp.resolve("replay");
        Path registry = tmp.resolve("registry");
        FanoutJobConfig config = JobConfigs.parse(cora("--trainers", "2", "--start-epoch", "1", "--output",
                replay.toString(), "--parallelism", "2", "--serve", "--registry", registry.toString()));
        CompletableFuture<JobSummary> job = CompletableFuture.supplyAsync(() -> {
            try {
                return FanoutJob.run(config);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        TreeMap<Long, byte[]> served = new TreeMap<>();
        List<Integer> epochs = new ArrayList<>();
        try (ChannelReader reader = ChannelReader.fromRegistry(registry, ChannelReader.Options.defaults())) {
            ChannelReader.Epoch epoch;
            // The reader counts epochs from 0: epoch 0 comes first, ended and empty (the endpoints' watermark says
            // so as soon as epoch 1 starts), then epoch 1's messages.
            while ((epoch = reader.nextEpoch()) != null) {
                if (epoch.hasNext()) {
                    epochs.add(epoch.epoch());
                }
                while (epoch.hasNext()) {
                    EncodedMessage s = epoch.next();
                    assertThat(served.put(((long) s.epoch << 32) | s.batchId, s.payload)).isNull();
                    assertThat(s.numBatches).isEqualTo(12);
                }
            }
        }
        JobSummary summary = job.get(180, TimeUnit.SECONDS);
        assertThat(summary.batches).as("epoch 1 only").isEqualTo(12);
        assertThat(epochs).as("messages keep their real epoch number; none of epoch 0").containsExactly(1);
        assertSameMessages(epochOne, served);
        assertSameMessages(epochOne, readMessages(replay));
    }

    /**
     * The partitioned store's seed file, read by the TaskManagers and placed seed by seed (a padding batch's seeds
     * come from wherever the epoch's order put them), gives the memory store's padded batches byte for byte, from a
     * later start epoch too.
     */
    @Test
    void aSeedFileReadByTheTaskManagersPadsAsTheMemoryStore() throws Exception {
        StringBuilder text = new StringBuilder();
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < 730; i++) {
            text.append(random.nextInt(CORA_NODES)).append('\n');
        }
        Path seeds = Files.writeString(tmp.resolve("seeds.txt"), text);
        // 730 seeds in batches of 100: 8 real (the last of 30), padded to 9 for 3 trainers.
        String[] options = {"--graph", SharedData.graph("cora").toString(), "--fanout", "5,3", "--batch-size", "100",
            "--epochs", "3", "--start-epoch", "1", "--shuffle", "--trainers", "3", "--seeds", seeds.toString(),
            "--partitioned.seed-chunk", "7", "--checkpoint-interval", "1s"};
        Path memoryOut = tmp.resolve("memory");
        runJob(args(options, "--store", "memory", "--output", memoryOut.toString(), "--parallelism", "1"));
        TreeMap<Long, byte[]> memory = readMessages(memoryOut);
        assertThat(memory).hasSize(2 * 9);
        assertThat(memory.firstKey()).as("from epoch 1").isEqualTo(1L << 32);
        for (byte[] blob : memory.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            assertThat(meta(m, MessageKeys.META_PADDED)).isEqualTo(meta(m, MessageKeys.META_BATCH_ID) == 8 ? 1 : 0);
        }
        Path partitionedOut = tmp.resolve("partitioned");
        runJob(args(options, "--store", "partitioned", "--output", partitionedOut.toString(), "--parallelism", "2"));
        assertSameMessages(memory, readMessages(partitionedOut));
    }

    /** A padding batch whose sampling fails still tells the trainer it is padding (the error message has the keys). */
    @Test
    void aSamplingErrorMessageCarriesTheTrainerKeys() throws Exception {
        Path out = tmp.resolve("errors");
        runJob(cora("--trainers", "2", "--epochs", "1", "--inject-sampling-errors", "0:11,0:3", "--output",
                out.toString()));
        TreeMap<Long, byte[]> messages = readMessages(out);
        assertThat(messages).hasSize(12);
        for (int b : new int[] {3, 11}) {
            TensorMessage m = SafetensorsCodec.decode(messages.get((long) b));
            assertThat(m.names()).contains(MessageKeys.SAMPLING_ERROR);
            assertThat(meta(m, MessageKeys.META_TRAINERS)).isEqualTo(2);
            assertThat(meta(m, MessageKeys.META_PADDED)).as("batch %d", b).isEqualTo(b == 11 ? 1 : 0);
            assertThat(meta(m, MessageKeys.META_NUM_BATCHES)).isEqualTo(12);
        }
    }

    @Test
    void badTrainersOrStartEpochAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> JobConfigs.parse(cora("--trainers", "0")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.trainers (--trainers)")
                .hasMessageContaining("'0'");
        assertThatThrownBy(() -> JobConfigs.parse(cora("--start-epoch", "2")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.start-epoch (--start-epoch)")
                .hasMessageContaining("'2'").hasMessageContaining("fanout.epochs (--epochs) 2");
        assertThatThrownBy(() -> JobConfigs.parse(cora("--start-epoch", "-1")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.start-epoch (--start-epoch)");
        // 2708 seeds make 2 full batches of 1000: drop-last for 3 trainers would leave no batch.
        assertThatThrownBy(() -> runJob("--graph", SharedData.graph("cora").toString(), "--batch-size", "1000",
                "--drop-last", "--trainers", "3"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.trainers (--trainers)")
                .hasMessageContaining("fanout.drop-last (--drop-last)").hasMessageContaining("2 full batches");
    }
}
