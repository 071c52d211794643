package io.fanout.connectors.channel.source;

import static io.fanout.connectors.channel.source.SourceTestSupport.sample;
import static io.fanout.connectors.channel.source.SourceTestSupport.writeFile;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.file.SamplesFile;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.io.InputStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The channel source reader driven by hand with Flink's TestingReaderContext/TestingReaderOutput: checkpoint
 * and restore of file positions; live endpoints acknowledged only on checkpoint completion, resumed after a restore.
 */
@Timeout(60)
class ChannelSourceReaderTest {
    @TempDir
    Path dir;

    private long checkpointId;

    /** Polls until end of input (or {@code max} records), waiting on availability like the task does. */
    static InputStatus drain(ChannelSourceReader reader, TestingReaderOutput<EncodedMessage> out, int max) throws Exception {
        while (out.getEmittedRecords().size() < max) {
            InputStatus status = reader.pollNext(out);
            if (status == InputStatus.END_OF_INPUT) {
                return status;
            }
            if (status == InputStatus.NOTHING_AVAILABLE) {
                reader.isAvailable().get(30, TimeUnit.SECONDS);
            }
        }
        return InputStatus.MORE_AVAILABLE;
    }

    /** Like {@link #drain}, but takes and completes a checkpoint whenever the reader waits (as a job with checkpointing does). */
    InputStatus drainCheckpointing(ChannelSourceReader reader, TestingReaderOutput<EncodedMessage> out, int max) throws Exception {
        while (out.getEmittedRecords().size() < max) {
            InputStatus status = reader.pollNext(out);
            if (status == InputStatus.END_OF_INPUT) {
                return status;
            }
            if (status == InputStatus.NOTHING_AVAILABLE) {
                long id = ++checkpointId;
                reader.snapshotState(id);
                reader.notifyCheckpointComplete(id);
                try {
                    reader.isAvailable().get(200, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // no new message: checkpoint again, so the endpoint gets its acknowledgements
                }
            }
        }
        return InputStatus.MORE_AVAILABLE;
    }

    static List<ChannelSplit> viaSerializer(List<ChannelSplit> splits) throws Exception {
        List<ChannelSplit> out = new ArrayList<>();
        for (ChannelSplit s : splits) {
            out.add(ChannelSplitSerializer.INSTANCE.deserialize(ChannelSplitSerializer.VERSION, ChannelSplitSerializer.INSTANCE.serialize(s)));
        }
        return out;
    }

    @Test
    void fileReaderResumesAtTheCheckpointedRecordAfterRestore() throws Exception {
        List<EncodedMessage> first = new ArrayList<>();
        List<EncodedMessage> second = new ArrayList<>();
        for (int b = 0; b < 10; b++) {
            first.add(sample(0, b, 10));
        }
        for (int b = 0; b < 7; b++) {
            second.add(sample(1, b, 10));
        }
        Path a = writeFile(dir.resolve("part-0.samples"), first);
        Path b = writeFile(dir.resolve("part-1.samples"), second);
        ChannelSource source = ChannelSource.files(List.of(dir.toString()));

        TestingReaderContext ctx = new TestingReaderContext();
        ChannelSourceReader reader = new ChannelSourceReader(ctx, source);
        reader.addSplits(List.of(ChannelSplit.file(a.toString(), 0, 0), ChannelSplit.file(b.toString(), 0, 0)));
        reader.start();
        assertThat(ctx.getNumSplitRequests()).isZero(); // it has splits: no request
        // One output per reader: the reader keeps the per-split output it made from the first one.
        TestingReaderOutput<EncodedMessage> out = new TestingReaderOutput<>();
        drain(reader, out, 6);
        List<EncodedMessage> before = new ArrayList<>(out.getEmittedRecords());
        List<ChannelSplit> snapshot = reader.snapshotState(1);
        // the current file at the byte after record 6, then the untouched second file
        long sixRecords = 0;
        for (int i = 0; i < 6; i++) {
            sixRecords += 8 + first.get(i).payload.length;
        }
        assertThat(snapshot).containsExactlyInAnyOrder(ChannelSplit.file(a.toString(), sixRecords, 6), ChannelSplit.file(b.toString(), 0, 0));
        drain(reader, out, 9); // 3 emitted after the checkpoint, then the task fails
        List<EncodedMessage> lost = out.getEmittedRecords().subList(6, 9);
        reader.close();

        TestingReaderContext ctx2 = new TestingReaderContext();
        ChannelSourceReader again = new ChannelSourceReader(ctx2, source);
        again.addSplits(viaSerializer(snapshot));
        again.start();
        again.notifyNoMoreSplits();
        TestingReaderOutput<EncodedMessage> after = new TestingReaderOutput<>();
        assertThat(drain(again, after, 100)).isEqualTo(InputStatus.END_OF_INPUT);
        again.close();

        List<EncodedMessage> all = new ArrayList<>(first);
        all.addAll(second);
        List<EncodedMessage> replayed = new ArrayList<>(before);
        replayed.addAll(after.getEmittedRecords());
        // keys decoded from #META, payload byte-identical, nothing twice (the framework keeps no order between splits)
        assertThat(replayed).containsExactlyInAnyOrderElementsOf(all);
        assertThat(after.getEmittedRecords()).containsSubsequence(lost); // the post-checkpoint records come again, in file order
    }

    @Test
    void aRecordWithoutKeysNamesTheFileAndByte() throws Exception {
        Path f = dir.resolve("bad.samples");
        try (OutputStream out = Files.newOutputStream(f)) {
            SamplesFile.writeRecord(out, sample(0, 0, 1).payload);
            SamplesFile.writeRecord(out, SafetensorsCodec.encode(new TensorMessage().putInt64("ids", new long[] {1})));
        }
        ChannelSourceReader reader = new ChannelSourceReader(new TestingReaderContext(), ChannelSource.files(List.of(f.toString())));
        reader.addSplits(List.of(ChannelSplit.file(f.toString(), 0, 0)));
        long second = 8 + sample(0, 0, 1).payload.length;
        assertThatThrownBy(() -> drain(reader, new TestingReaderOutput<>(), 10))
                .hasStackTraceContaining(f + ": record at byte " + second).hasStackTraceContaining("#META.epoch");
        reader.close();
    }

    @Test
    void restoredEndpointSplitDropsKeysItAlreadyEmitted() throws Exception {
        ChannelSinkOptions options = ChannelSinkOptions.builder(dir.resolve("registry").toString()).linger(Duration.ofMillis(100)).build();
        try (ChannelEndpoint endpoint = new ChannelEndpoint(options, 0, 1, null)) {
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                try {
                    for (int b = 0; b < 10; b++) { // a restarted producer sends batches 0..9 again
                        endpoint.put(sample(0, b, 10));
                    }
                    endpoint.finishAndDrain();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            BatchKeySet emittedBefore = new BatchKeySet();
            for (int b = 0; b < 5; b++) {
                emittedBefore.add(0, b);
            }
            ChannelSplit restored = viaSerializer(List.of(ChannelSplit.endpoint(0, "127.0.0.1", endpoint.address().getPort(), emittedBefore))).get(0);
            TestingReaderContext ctx = new TestingReaderContext();
            // acknowledged on receipt (a job without checkpoints): the stream ends with no checkpoint taken
            ChannelSourceReader reader = new ChannelSourceReader(ctx, ChannelSource.endpoints(List.of("127.0.0.1:" + endpoint.address().getPort()))
                    .withToken(options.token()).withAcknowledgeOnCheckpoint(false));
            reader.addSplits(List.of(restored));
            assertThat(ctx.getNumSplitRequests()).isZero(); // restored before start: not registered with the enumerator yet
            reader.start();
            assertThat(ctx.getNumSplitRequests()).isEqualTo(1); // live splits run side by side: it asks for the next one at once
            reader.notifyNoMoreSplits();
            TestingReaderOutput<EncodedMessage> out = new TestingReaderOutput<>();
            assertThat(drain(reader, out, 100)).isEqualTo(InputStatus.END_OF_INPUT);
            assertThat(out.getEmittedRecords()).extracting(s -> s.batchId).containsExactly(5, 6, 7, 8, 9);
            assertThat(out.getEmittedRecords().get(0)).isEqualTo(sample(0, 5, 10));
            assertThat(reader.snapshotState(++checkpointId)).isEmpty(); // the endpoint ended: the split is done
            reader.close();
            producer.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void endpointMessagesAreAcknowledgedOnlyOnCheckpointCompletionSoARestoreLosesAndDoublesNothing() throws Exception {
        ChannelSinkOptions options = ChannelSinkOptions.builder(dir.resolve("registry").toString()).capacity(8)
                .linger(Duration.ofMillis(100)).build();
        List<EncodedMessage> all = new ArrayList<>();
        for (int b = 0; b < 40; b++) {
            all.add(sample(b / 20, b % 20, 20));
        }
        try (ChannelEndpoint endpoint = new ChannelEndpoint(options, 0, 1, null)) {
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                try {
                    for (EncodedMessage m : all) {
                        endpoint.put(m); // blocks at 8 held (buffered or unacknowledged)
                    }
                    endpoint.finishAndDrain();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            ChannelSource source = ChannelSource.registry(dir.resolve("registry").toString());
            ChannelSplit split = ChannelSplit.endpoint(0, "127.0.0.1", endpoint.address().getPort(), null);

            ChannelSourceReader first = new ChannelSourceReader(new TestingReaderContext(), source);
            first.addSplits(List.of(split));
            first.notifyNoMoreSplits();
            TestingReaderOutput<EncodedMessage> out = new TestingReaderOutput<>(); // one per reader: it keeps its split outputs
            drainCheckpointing(first, out, 12); // acknowledged on completion: the endpoint lets more through
            List<ChannelSplit> checkpoint = first.snapshotState(++checkpointId);
            first.notifyCheckpointComplete(checkpointId);
            assertThat(checkpoint).hasSize(1);
            assertThat(checkpoint.get(0).session()).isNotZero();
            List<EncodedMessage> committed = new ArrayList<>(out.getEmittedRecords());
            drain(first, out, committed.size() + 5); // emitted after the last checkpoint, never acknowledged
            List<EncodedMessage> rolledBack = new ArrayList<>(out.getEmittedRecords().subList(committed.size(), committed.size() + 5));
            first.snapshotState(++checkpointId); // a checkpoint taken but never completed: its messages stay unacknowledged
            first.close(); // the task fails

            ChannelSourceReader second = new ChannelSourceReader(new TestingReaderContext(), source);
            second.addSplits(viaSerializer(checkpoint)); // restored: resumes the session
            second.notifyNoMoreSplits();
            TestingReaderOutput<EncodedMessage> rest = new TestingReaderOutput<>();
            assertThat(drainCheckpointing(second, rest, 1000)).isEqualTo(InputStatus.END_OF_INPUT);
            second.close();
            producer.get(30, TimeUnit.SECONDS);

            List<EncodedMessage> consumed = new ArrayList<>(committed);
            consumed.addAll(rest.getEmittedRecords());
            assertThat(consumed).containsExactlyElementsOf(all); // each once, in order, byte-identical
            assertThat(rest.getEmittedRecords()).startsWith(rolledBack.toArray(EncodedMessage[]::new));
        }
    }
}
