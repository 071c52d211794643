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
import org.apache.flink.core.io.InputStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The channel source reader driven by hand: checkpoint and restore of file positions, and de-duplication of live keys. */
@Timeout(60)
class ChannelSourceReaderTest {
    @TempDir
    Path dir;

    /** Polls until end of input (or {@code max} records), waiting on availability like the task does. */
    static InputStatus drain(ChannelSourceReader reader, SourceTestSupport.Output out, int max) throws Exception {
        while (out.records.size() < max) {
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

    static List<byte[]> payloads(List<EncodedMessage> samples) {
        return samples.stream().map(s -> s.payload).toList();
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

        SourceTestSupport.Context ctx = new SourceTestSupport.Context();
        ChannelSourceReader reader = new ChannelSourceReader(ctx, source);
        reader.addSplits(List.of(ChannelSplit.file(a.toString(), 0, 0), ChannelSplit.file(b.toString(), 0, 0)));
        reader.start();
        assertThat(ctx.splitRequests).isZero(); // it has splits: no request
        SourceTestSupport.Output before = new SourceTestSupport.Output();
        drain(reader, before, 6);
        List<ChannelSplit> snapshot = reader.snapshotState(1);
        // the current file at the byte after record 6, then the untouched second file
        long sixRecords = 0;
        for (int i = 0; i < 6; i++) {
            sixRecords += 8 + first.get(i).payload.length;
        }
        assertThat(snapshot).containsExactly(ChannelSplit.file(a.toString(), sixRecords, 6), ChannelSplit.file(b.toString(), 0, 0));
        SourceTestSupport.Output lost = new SourceTestSupport.Output();
        drain(reader, lost, 3); // emitted after the checkpoint, then the task fails
        reader.close();

        List<ChannelSplit> restored = new ArrayList<>();
        for (ChannelSplit s : snapshot) {
            restored.add(ChannelSplitSerializer.INSTANCE.deserialize(ChannelSplitSerializer.VERSION, ChannelSplitSerializer.INSTANCE.serialize(s)));
        }
        SourceTestSupport.Context ctx2 = new SourceTestSupport.Context();
        ChannelSourceReader again = new ChannelSourceReader(ctx2, source);
        again.addSplits(restored);
        again.start();
        again.notifyNoMoreSplits();
        SourceTestSupport.Output after = new SourceTestSupport.Output();
        assertThat(drain(again, after, 100)).isEqualTo(InputStatus.END_OF_INPUT);
        again.close();

        List<EncodedMessage> all = new ArrayList<>(first);
        all.addAll(second);
        List<EncodedMessage> replayed = new ArrayList<>(before.records);
        replayed.addAll(after.records);
        assertThat(replayed).isEqualTo(all); // keys decoded from #META, payload byte-identical, nothing twice
        assertThat(after.records.get(0)).isEqualTo(lost.records.get(0)); // the post-checkpoint records come again
    }

    @Test
    void aRecordWithoutKeysNamesTheFileAndByte() throws Exception {
        Path f = dir.resolve("bad.samples");
        try (OutputStream out = Files.newOutputStream(f)) {
            SamplesFile.writeRecord(out, sample(0, 0, 1).payload);
            SamplesFile.writeRecord(out, SafetensorsCodec.encode(new TensorMessage().putInt64("ids", new long[] {1})));
        }
        ChannelSourceReader reader = new ChannelSourceReader(new SourceTestSupport.Context(), ChannelSource.files(List.of(f.toString())));
        reader.addSplits(List.of(ChannelSplit.file(f.toString(), 0, 0)));
        long second = 8 + sample(0, 0, 1).payload.length;
        assertThatThrownBy(() -> drain(reader, new SourceTestSupport.Output(), 10))
                .hasMessageContaining(f + ": record at byte " + second).hasMessageContaining("#META.epoch");
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
            ChannelSplit restored = ChannelSplit.endpoint(0, "127.0.0.1", endpoint.address().getPort(), emittedBefore);
            restored = ChannelSplitSerializer.INSTANCE.deserialize(1, ChannelSplitSerializer.INSTANCE.serialize(restored));
            SourceTestSupport.Context ctx = new SourceTestSupport.Context();
            ChannelSourceReader reader = new ChannelSourceReader(ctx, ChannelSource.endpoints(List.of("127.0.0.1:" + endpoint.address().getPort())).withToken(options.token()));
            reader.addSplits(List.of(restored));
            assertThat(ctx.splitRequests).isEqualTo(1); // live splits run side by side: it asks for the next one at once
            reader.notifyNoMoreSplits();
            SourceTestSupport.Output out = new SourceTestSupport.Output();
            assertThat(drain(reader, out, 100)).isEqualTo(InputStatus.END_OF_INPUT);
            assertThat(out.records).extracting(s -> s.batchId).containsExactly(5, 6, 7, 8, 9);
            assertThat(out.records.get(0)).isEqualTo(sample(0, 5, 10));
            assertThat(reader.snapshotState(2)).isEmpty(); // the endpoint ended: the split is done
            reader.close();
            producer.get(30, TimeUnit.SECONDS);
        }
    }
}
