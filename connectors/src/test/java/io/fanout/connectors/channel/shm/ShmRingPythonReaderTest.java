package io.fanout.connectors.channel.shm;

import io.fanout.connectors.channel.options.ShmSinkOptions;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.testing.Waits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Java writes, a real python3 process reads: the ring format, wrap-around and back-pressure across
 * processes ({@code fanout_client.shm}), the abort path, and {@link ShmChannelSink} in a MiniCluster job
 * read by {@code ShmClient}.
 */
@Timeout(180)
class ShmRingPythonReaderTest {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = new MiniClusterExtension(
            new MiniClusterResourceConfiguration.Builder().setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

    private static final Path PYTHON_DIR = Path.of("python").toAbsolutePath();

    @TempDir
    Path dir;

    static byte[] message(int epoch, int batch, int numBatches, int numIds) {
        long[] ids = new long[numIds];
        for (int i = 0; i < numIds; i++) {
            ids[i] = batch + i;
        }
        return SafetensorsCodec.encode(new TensorMessage().putInt64(MessageKeys.IDS, ids).putInt64(MessageKeys.META_EPOCH, epoch)
                .putInt64(MessageKeys.META_BATCH_ID, batch).putInt64(MessageKeys.META_NUM_BATCHES, numBatches));
    }

    private Process python(String script, String... args) throws IOException {
        Path file = dir.resolve("reader.py");
        Files.writeString(file, script);
        List<String> cmd = new ArrayList<>(List.of("python3", file.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PYTHONPATH", PYTHON_DIR.toString());
        return pb.start();
    }

    private static String finish(Process p) throws Exception {
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return e.toString();
            }
        });
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("python reader finished").isTrue();
        String text = out.get(10, TimeUnit.SECONDS);
        assertThat(p.exitValue()).as(text).isZero();
        return text;
    }

    @Test
    void pythonReadsEveryMessageInPlaceWhileTheWriterWrapsAndBlocks() throws Exception {
        Path file = dir.resolve("t-0.ring");
        int n = 600;
        Process reader = python(String.join("\n",
                "import sys, time, numpy as np",
                "from fanout_client import ShmRingReader",
                "ring = ShmRingReader(sys.argv[1], timeout=60)",
                "count = total = 0",
                "for msg in ring:",
                "    ids = msg['ids']",
                "    assert not ids.flags.owndata and not ids.flags.writeable, 'zero copy'",
                "    assert msg.batch_id == count and msg.epoch == count // 100 and msg.num_batches == 100, (msg.batch_id, count)",
                "    assert int(msg['#META.batch_id'][0]) == count",
                "    k = 1 + (count * 37) % 2000",
                "    assert np.array_equal(ids, np.arange(count, count + k)), count",
                "    count += 1; total += int(ids.sum())",
                "    if count % 50 == 0: time.sleep(0.02)  # a slow trainer: the writer must wait",
                "assert ring.qsize() == 0 and ring.ended",
                "print('ok', count, total)"), file.toString());
        long expectedTotal = 0;
        long maxUsed = 0;
        try (ShmRing ring = ShmRing.create(file, 64 << 10, 0, 1)) {
            for (int i = 0; i < n; i++) {
                int k = 1 + (i * 37) % 2000;
                ring.write(new EncodedMessage(i / 100, i, 100, message(i / 100, i, 100, k)));
                expectedTotal += (long) k * i + (long) k * (k - 1) / 2;
                maxUsed = Math.max(maxUsed, ring.bytesUsed());
            }
            ring.finish();
            assertThat(ring.awaitDrained(TimeUnit.SECONDS.toNanos(60))).isTrue();
            assertThat(ring.qsize()).isZero();
            assertThat(ring.read()).isEqualTo(n);
        }
        assertThat(finish(reader)).contains("ok " + n + " " + expectedTotal);
        assertThat(maxUsed).isLessThanOrEqualTo(64 << 10);
        assertThat(file).doesNotExist();
    }

    @Test
    void pythonReaderFailsWhenTheWriterAborts() throws Exception {
        Path file = dir.resolve("t-0.ring");
        Process reader = python(String.join("\n",
                "import sys",
                "from fanout_client import ShmRingReader, ShmRingError",
                "ring = ShmRingReader(sys.argv[1], timeout=60)",
                "got = 0",
                "try:",
                "    for msg in ring:",
                "        got += 1",
                "except ShmRingError as e:",
                "    print('aborted after', got, '|', e)",
                "else:",
                "    print('ended normally?', got)"), file.toString());
        try (ShmRing ring = ShmRing.create(file, 64 << 10, 0, 1)) {
            ring.write(new EncodedMessage(0, 0, 2, message(0, 0, 2, 3)));
            ring.write(new EncodedMessage(0, 1, 2, message(0, 1, 2, 3)));
            // The reader released message 1: it counted both and waits for a third.
            Waits.until("the reader moved past message 1", Duration.ofSeconds(60), () -> ring.read() == 2);
        } // close without finish(): a cancelled job
        String out = finish(reader);
        assertThat(out).contains("aborted after 2").contains("t-0.ring: the writer aborted");
    }

    @Test
    void flinkJobServesEveryMessageThroughShmChannelSinkToShmClient() throws Exception {
        int batches = 300;
        List<EncodedMessage> samples = new ArrayList<>();
        for (int b = 0; b < batches; b++) {
            samples.add(new EncodedMessage(0, b, batches, message(0, b, batches, 1 + b % 64)));
        }
        Process reader = python(String.join("\n",
                "import sys",
                "from fanout_client import ShmClient",
                "seen = {}",
                "with ShmClient(sys.argv[1], 'it', timeout=60) as client:",
                "    assert len(client.rings) == 2",
                "    for msg in client:",
                "        assert int(msg['ids'][0]) == msg.batch_id and len(msg['ids']) == 1 + msg.batch_id % 64",
                "        seen[msg.batch_id] = seen.get(msg.batch_id, 0) + 1",
                "        assert msg.endpoint in (0, 1)",
                "assert sorted(seen) == list(range(300)) and set(seen.values()) == {1}, seen",
                "print('ok', len(seen))"), dir.toString());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.fromData(samples).rebalance().sinkTo(new ShmChannelSink(new ShmSinkOptions(dir.toString(), "it", 64 << 10))).name("shm");
        JobClient job = env.executeAsync("shm-sink-it");
        assertThat(finish(reader)).contains("ok 300");
        job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        assertThat(dir.resolve("it-0.ring")).doesNotExist();
        assertThat(dir.resolve("it-1.ring")).doesNotExist();
    }
}
