package io.fanout.connectors.channel.sink;

import io.fanout.connectors.channel.options.ChannelSinkOptions;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.testing.Waits;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.Watermark;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Real-socket tests of an endpoint serving data-parallel ranks: each rank gets exactly its share (batch id mod trainers). */
@Timeout(60)
class ChannelRanksTest {
    @TempDir
    Path registryDir;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        Collections.reverse(toClose);
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private ChannelSinkWriter writer(int trainers, int capacity) throws IOException {
        ChannelSinkOptions o = ChannelSinkOptions.builder(registryDir.toString()).linger(Duration.ZERO).token(RawClient.TOKEN)
                .capacity(capacity).sessionTimeout(Duration.ofSeconds(30)).heartbeatInterval(Duration.ofMillis(50)).build()
                .withTrainers(trainers); // frequent heartbeats: one where nothing is expected proves nothing else was to be sent
        ChannelSinkWriter w = new ChannelSinkWriter(o, 0, 1, "test-job");
        toClose.add(w);
        return w;
    }

    private RawClient ranked(ChannelSinkWriter w, int rank, int worldSize) throws IOException {
        RawClient c = RawClient.ranked(w.endpoint().address(), rank, worldSize);
        toClose.add(c);
        return c;
    }

    private static EncodedMessage sample(int epoch, int batchId, int numBatches) {
        TensorMessage m = new TensorMessage().putInt64(MessageKeys.IDS, new long[] {epoch, batchId})
                .putInt64(MessageKeys.META_BATCH_ID, batchId).putInt64(MessageKeys.IS_HETERO, 0);
        return new EncodedMessage(epoch, batchId, numBatches, SafetensorsCodec.encode(m));
    }

    private static Frame welcome(RawClient c) throws IOException {
        Frame f = c.read();
        assertThat(f).isInstanceOf(Frame.Welcome.class);
        return f;
    }

    /** Reads and acknowledges messages one by one until END_OF_STREAM; "epoch:batch" of each, in order. */
    private static List<String> readAll(RawClient c, int maxEpoch) throws IOException {
        List<String> got = new ArrayList<>();
        c.send(new Frame.Fetch(2, 0, maxEpoch));
        while (true) {
            Frame f = c.read();
            if (f instanceof Frame.EndOfStream) {
                return got;
            }
            if (f instanceof Frame.Message m) {
                got.add(m.epoch() + ":" + m.batchId());
                c.send(new Frame.Fetch(1, m.seq(), maxEpoch));
            } else if (f instanceof Frame.EndOfEpoch e && e.epoch() >= maxEpoch && maxEpoch < 1) {
                maxEpoch = e.epoch() + 1; // read epoch by epoch, as ChannelClient.epochs() does
                c.send(new Frame.Fetch(0, 0, maxEpoch));
            }
        }
    }

    @Test
    void twoRanksGetDisjointCompleteSharesAndASlowRankHoldsTheOtherBackOnlyThroughTheBound() throws Exception {
        int capacity = 4;
        ChannelSinkWriter w = writer(2, capacity);
        RawClient r0 = ranked(w, 0, 2);
        RawClient r1 = ranked(w, 1, 2);
        welcome(r0);
        welcome(r1);
        // Rank 1 takes nothing yet: its batches fill the bound and the writer blocks, although rank 0
        // still waits for its share of epoch 0 (the bound does not give way to a rank another one holds back).
        r1.send(new Frame.Fetch(0, 0, 0));
        CompletableFuture<List<String>> got0 = CompletableFuture.supplyAsync(() -> {
            try {
                return readAll(r0, 0);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        int batches = 12;
        Thread writing = new Thread(() -> {
            try {
                for (int epoch = 0; epoch < 2; epoch++) {
                    for (int b = 0; b < batches; b++) {
                        w.write(sample(epoch, b, batches), null);
                    }
                    w.writeWatermark(new Watermark(epoch));
                }
                w.flush(true);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        writing.start();
        Waits.untilState("the writer blocked on the bound while rank 1 takes nothing", Duration.ofSeconds(20), writing,
                Thread.State.WAITING);
        assertThat(w.endpoint().held()).as("held within the bound").isLessThanOrEqualTo(capacity);
        assertThat(got0).isNotDone();

        List<String> got1 = readAll(r1, 0);
        writing.join(TimeUnit.SECONDS.toMillis(20));
        assertThat(writing.isAlive()).isFalse();
        List<String> shares0 = got0.get(20, TimeUnit.SECONDS);

        List<String> want0 = new ArrayList<>();
        List<String> want1 = new ArrayList<>();
        for (int epoch = 0; epoch < 2; epoch++) {
            for (int b = 0; b < batches; b++) {
                (b % 2 == 0 ? want0 : want1).add(epoch + ":" + b);
            }
        }
        assertThat(shares0).as("rank 0: exactly the even batches, in order, each once").isEqualTo(want0);
        assertThat(got1).as("rank 1: exactly the odd batches, in order, each once").isEqualTo(want1);
        Set<String> both = new HashSet<>(shares0);
        both.retainAll(got1);
        assertThat(both).as("no batch went to both ranks").isEmpty();
    }

    @Test
    void aWorldSizeOtherThanTheJobsTrainersOrARankOutsideItIsRefusedAtTheHandshake() throws Exception {
        ChannelSinkWriter w = writer(2, 8);
        Frame wrong = ranked(w, 0, 3).read();
        assertThat(wrong).isInstanceOf(Frame.Error.class);
        assertThat(((Frame.Error) wrong).text()).contains("world size 3").contains("2 trainers");
        Frame outside = ranked(w, 2, 2).read();
        assertThat(outside).isInstanceOf(Frame.Error.class);
        assertThat(((Frame.Error) outside).text()).contains("rank 2 is outside 0..1");
    }

    @Test
    void aRankThatComesBackGetsWhatItHadNotAcknowledgedThenTheRestOfItsShare() throws Exception {
        ChannelSinkWriter w = writer(2, 16);
        for (int b = 0; b < 8; b++) {
            w.write(sample(0, b, 8), null);
        }
        RawClient first = ranked(w, 1, 2);
        welcome(first);
        first.send(new Frame.Fetch(2));
        Frame.Message a = first.message();
        Frame.Message b = first.message();
        assertThat(List.of(a.batchId(), b.batchId())).containsExactly(1, 3);
        first.send(new Frame.Fetch(0, a.seq())); // batch 1 consumed, batch 3 not
        first.close();
        // The crash as the endpoint sees it: only a session without a connection is taken over (a replacement that
        // came before the endpoint saw the close got a new session: this test failed so once in 2 runs).
        Waits.until("the endpoint saw rank 1's connection close", Duration.ofSeconds(20), () -> w.endpoint().connectedClients() == 0);

        // A replacement of rank 1 (new process, no session id) takes over the crashed one's session.
        RawClient again = ranked(w, 1, 2);
        Frame.Welcome welcome = (Frame.Welcome) welcome(again);
        assertThat(welcome.resumed()).isTrue();
        again.send(new Frame.Fetch(10));
        List<Integer> rest = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Frame.Message m = again.message();
            rest.add(m.batchId());
            again.send(new Frame.Fetch(0, m.seq()));
        }
        assertThat(rest).as("the unacknowledged batch 3 again, then the rest of rank 1's share").containsExactly(3, 5, 7);
        Frame f; // up to the endpoint's first HEARTBEAT after batch 7 (an END_OF_EPOCH may come first)
        while (!((f = again.next()) instanceof Frame.Heartbeat)) {
            assertThat(f).as("nothing of rank 0's share").isNotInstanceOf(Frame.Message.class);
        }
    }
}
