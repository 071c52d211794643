package io.fanout.connectors.channel.sink;

import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameWriter;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.testing.Waits;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Real-socket tests of one channel endpoint driven through ChannelSinkWriter, without Flink. */
@Timeout(60)
class ChannelSinkWriterTest {
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

    private ChannelSinkWriter writer(ChannelSinkOptions.Builder b) throws IOException {
        ChannelSinkWriter w = new ChannelSinkWriter(b.build(), 0, 1, "test-job");
        toClose.add(w);
        return w;
    }

    private ChannelSinkOptions.Builder options() {
        // Frequent heartbeats: a HEARTBEAT where a test expects nothing proves nothing else was to be sent.
        return ChannelSinkOptions.builder(registryDir.toString()).linger(Duration.ZERO).token(RawClient.TOKEN)
                .heartbeatInterval(Duration.ofMillis(50));
    }

    private RawClient client(ChannelSinkWriter w) throws IOException {
        RawClient c = RawClient.handshake(w.endpoint().address());
        toClose.add(c);
        return c;
    }

    static EncodedMessage sample(int batchId) {
        TensorMessage m = new TensorMessage().putInt64(MessageKeys.IDS, new long[] {batchId, batchId + 1L})
                .putInt64(MessageKeys.META_BATCH_ID, batchId).putInt64(MessageKeys.IS_HETERO, 0);
        return new EncodedMessage(0, batchId, 1000, SafetensorsCodec.encode(m));
    }

    static int batchIdOf(Frame f) {
        Frame.Message m = (Frame.Message) f;
        int inBlob = (int) SafetensorsCodec.decode(m.payload()).get(MessageKeys.META_BATCH_ID).asLongArray()[0];
        assertThat(inBlob).isEqualTo(m.batchId());
        return m.batchId();
    }

    /** Writes {@code samples} in order in a new (started) thread, which may block on the bound. */
    private static Thread writeInBackground(ChannelSinkWriter w, EncodedMessage... samples) {
        Thread t = new Thread(() -> {
            try {
                for (EncodedMessage s : samples) {
                    w.write(s, null);
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        t.start();
        return t;
    }

    private static void awaitBlocked(Thread t) throws Exception {
        Waits.untilState("the writer blocked on the bound", Duration.ofSeconds(20), t, Thread.State.WAITING);
    }

    @Test
    void registersServingThenFinished() throws Exception {
        ChannelSinkWriter w = writer(options());
        EndpointRegistry registry = new EndpointRegistry(registryDir);
        EndpointInfo info = registry.read(0).orElseThrow();
        assertThat(info.state()).isEqualTo(EndpointInfo.State.SERVING);
        assertThat(info.port()).isEqualTo(w.endpoint().address().getPort()).isPositive();
        assertThat(info.host()).isEqualTo("127.0.0.1");
        assertThat(info.numEndpoints()).isEqualTo(1);
        assertThat(info.jobId()).isEqualTo("test-job");
        w.flush(true); // nothing buffered: drains at once
        assertThat(registry.read(0).orElseThrow().state()).isEqualTo(EndpointInfo.State.FINISHED);
    }

    @Test
    void creditsBoundWhatTheServerSends() throws Exception {
        ChannelSinkWriter w = writer(options().capacity(20));
        for (int i = 0; i < 10; i++) {
            w.write(sample(i), null);
        }
        RawClient c = client(w);
        assertThat(c.next()).as("no credits, no messages").isInstanceOf(Frame.Heartbeat.class);
        c.send(new Frame.Fetch(3));
        List<Integer> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            got.add(batchIdOf(c.read()));
        }
        assertThat(c.next()).as("a 4th message without a 4th credit").isInstanceOf(Frame.Heartbeat.class);
        assertThat(w.endpoint().buffered()).isEqualTo(7);
        c.send(new Frame.Fetch(2));
        got.add(batchIdOf(c.read()));
        got.add(batchIdOf(c.read()));
        assertThat(got).containsExactly(0, 1, 2, 3, 4);
        assertThat(c.next()).as("a 6th message without a 6th credit").isInstanceOf(Frame.Heartbeat.class);
        assertThat(w.endpoint().buffered()).isEqualTo(5);
    }

    @Test
    void clientsOfOneEndpointShareTheWork() throws Exception {
        ChannelSinkWriter w = writer(options().capacity(20));
        for (int i = 0; i < 6; i++) {
            w.write(sample(i), null);
        }
        RawClient a = client(w);
        RawClient b = client(w);
        a.send(new Frame.Fetch(1));
        assertThat(batchIdOf(a.read())).isEqualTo(0);
        b.send(new Frame.Fetch(100));
        List<Integer> toB = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            toB.add(batchIdOf(b.read()));
        }
        assertThat(toB).containsExactly(1, 2, 3, 4, 5);
        assertThat(a.next()).as("a has no credit left, b took the rest").isInstanceOf(Frame.Heartbeat.class);
    }

    @Test
    void everyMessageReachesExactlyOneOfSeveralConcurrentClientsThenEndOfStream() throws Exception {
        int total = 500;
        ChannelSinkWriter w = writer(options().capacity(8));
        ConcurrentHashMap<Integer, Integer> seen = new ConcurrentHashMap<>();
        AtomicInteger duplicates = new AtomicInteger();
        List<CompletableFuture<Integer>> clients = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            RawClient c = client(w);
            int prefetch = 1 + 2 * k;
            clients.add(CompletableFuture.supplyAsync(() -> {
                try {
                    c.send(new Frame.Fetch(prefetch));
                    int n = 0;
                    while (true) {
                        Frame f = c.read();
                        if (f instanceof Frame.EndOfStream) {
                            assertThat(c.read()).as("connection closes after END_OF_STREAM").isNull();
                            return n;
                        }
                        if (f instanceof Frame.EndOfEpoch) {
                            continue;
                        }
                        if (seen.put(batchIdOf(f), 1) != null) {
                            duplicates.incrementAndGet();
                        }
                        n++;
                        c.send(new Frame.Fetch(1, ((Frame.Message) f).seq()));
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        for (int i = 0; i < total; i++) {
            w.write(sample(i), null);
        }
        w.flush(true);
        assertThat(new EndpointRegistry(registryDir).read(0).orElseThrow().state()).isEqualTo(EndpointInfo.State.FINISHED);
        int sum = 0;
        for (CompletableFuture<Integer> c : clients) {
            sum += c.get(30, TimeUnit.SECONDS);
        }
        assertThat(duplicates.get()).isZero();
        assertThat(sum).isEqualTo(total);
        assertThat(seen.keySet()).hasSize(total).allMatch(id -> id >= 0 && id < total);
        assertThat(w.endpoint().delivered()).isEqualTo(total);
    }

    @Test
    void flushAtEndOfInputBlocksUntilDeliveredThenSendsEndOfStream() throws Exception {
        ChannelSinkWriter w = writer(options());
        for (int i = 0; i < 3; i++) {
            w.write(sample(i), null);
        }
        Future<?> flush = CompletableFuture.runAsync(() -> {
            try {
                w.flush(true);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        RawClient c = client(w);
        c.send(new Frame.Fetch(2));
        Frame.Message m0 = c.message();
        Frame.Message m1 = c.message();
        assertThat(c.next()).as("no credit left").isInstanceOf(Frame.Heartbeat.class);
        assertThat(flush.isDone()).as("one message still buffered").isFalse();
        assertThat(new EndpointRegistry(registryDir).read(0).orElseThrow().state()).isEqualTo(EndpointInfo.State.SERVING);
        c.send(new Frame.Fetch(5, m0.seq()));
        c.send(new Frame.Fetch(0, m1.seq()));
        Frame.Message m2 = c.message();
        assertThat(batchIdOf(m2)).isEqualTo(2);
        assertThat(c.next()).as("no END_OF_STREAM while a message is unacknowledged").isInstanceOf(Frame.Heartbeat.class);
        assertThat(flush.isDone()).isFalse();
        c.send(new Frame.Fetch(0, m2.seq()));
        assertThat(c.read()).isInstanceOf(Frame.EndOfStream.class);
        flush.get(10, TimeUnit.SECONDS);
        assertThat(new EndpointRegistry(registryDir).read(0).orElseThrow().state()).isEqualTo(EndpointInfo.State.FINISHED);
        assertThatThrownBy(() -> w.write(sample(9), null)).isInstanceOf(IllegalStateException.class).hasMessageContaining("end of input");
    }

    @Test
    void aFullBufferOfALaterEpochGivesWayWhileAClientWaitsForTheEpochStillBeingProduced() throws Exception {
        ChannelSinkWriter w = writer(options().capacity(2));
        RawClient c = client(w);
        c.send(new Frame.Fetch(5, 0, 0)); // reads epoch 0, which the watermark has not passed yet
        w.write(later(10), null);
        w.write(later(11), null);
        // Blocking here would hold back epoch 0's stragglers (they come through the same input);
        // sample(3) is the straggler of epoch 0.
        Thread producer = writeInBackground(w, later(12), sample(3));
        producer.join(10_000);
        assertThat(producer.isAlive()).as("the bound gave way").isFalse();
        Frame.Message m = c.message();
        assertThat(m.epoch()).as("the straggler passes the later epoch").isZero();
        assertThat(batchIdOf(m)).isEqualTo(3);
        // Once the watermark passed the client's epoch, the bound holds again.
        w.writeWatermark(new org.apache.flink.api.common.eventtime.Watermark(0));
        c.send(new Frame.Fetch(0, m.seq(), 0));
        Thread blocked = writeInBackground(w, largerLater(13));
        awaitBlocked(blocked);
        assertThat(w.endpoint().held()).isEqualTo(3);
        c.send(new Frame.Fetch(5, 0, 1)); // the client moves on to epoch 1 and takes the rest
        List<Frame.Message> taken = new ArrayList<>();
        for (int i = 10; i < 13; i++) {
            taken.add(c.message());
        }
        assertThat(blocked.isAlive()).as("a client with messages of its epoch to consume is not starved").isTrue();
        for (Frame.Message next : taken) {
            c.send(new Frame.Fetch(1, next.seq(), 1));
        }
        blocked.join(10_000);
        assertThat(blocked.isAlive()).isFalse();
        assertThat(batchIdOf(c.message())).isEqualTo(13);
        assertThat(taken).extracting(Frame.Message::epoch).containsOnly(1);
        // 13 is larger than the others (but smaller than three): let in while 10, 11 and 12 were unacknowledged, it
        // would have pushed the peak past 4 of them (the straggler's moment), whenever that happened.
        assertThat(w.endpoint().peakHeldBytes()).as("a client with messages of its epoch to consume is not starved")
                .isLessThanOrEqualTo(4L * later(10).payload.length);
    }

    /** A sample of epoch 1 larger than one of {@link #later}'s but smaller than three. */
    private static EncodedMessage largerLater(int batchId) {
        TensorMessage m = new TensorMessage().putInt64(MessageKeys.IDS, new long[32]).putInt64(MessageKeys.META_BATCH_ID, batchId)
                .putInt64(MessageKeys.IS_HETERO, 0);
        return new EncodedMessage(1, batchId, 1000, SafetensorsCodec.encode(m));
    }

    /** A sample of epoch 1. */
    private static EncodedMessage later(int batchId) {
        EncodedMessage s = sample(batchId);
        return new EncodedMessage(1, batchId, s.numBatches, s.payload);
    }

    @Test
    void fullBufferBlocksTheWriterUntilAClientPulls() throws Exception {
        ChannelSinkWriter w = writer(options().capacity(2));
        w.write(sample(0), null);
        w.write(sample(1), null);
        Thread producer = writeInBackground(w, sample(2));
        awaitBlocked(producer);
        assertThat(w.endpoint().buffered()).isEqualTo(2);
        RawClient c = client(w);
        c.send(new Frame.Fetch(1));
        Frame.Message m = c.message();
        assertThat(batchIdOf(m)).isEqualTo(0);
        assertThat(producer.isAlive()).as("sent but unacknowledged still counts against the bound").isTrue();
        c.send(new Frame.Fetch(0, m.seq()));
        producer.join(10_000);
        assertThat(producer.isAlive()).isFalse();
        assertThat(w.endpoint().buffered()).isEqualTo(2);
        // Had sample 2 been let in while sample 0 was unacknowledged, 3 would have been held at once.
        assertThat(w.endpoint().peakHeldBytes()).as("sent but unacknowledged still counts against the bound")
                .isEqualTo(2L * sample(0).payload.length);
    }

    @Test
    void byteBoundBlocksButAcceptsOneOversizedMessageIntoAnEmptyBuffer() throws Exception {
        EncodedMessage small = sample(0);
        ChannelSinkWriter w = writer(options().capacity(100).bufferBytes(small.payload.length + 10));
        EncodedMessage big = new EncodedMessage(0, 7, 8, new byte[small.payload.length * 3]);
        w.write(big, null); // larger than the bound, buffer empty: accepted
        Thread producer = writeInBackground(w, small);
        awaitBlocked(producer);
        RawClient c = client(w);
        c.send(new Frame.Fetch(1));
        Frame.Message m = c.message();
        assertThat(m.payload()).hasSize(big.payload.length);
        c.send(new Frame.Fetch(0, m.seq()));
        producer.join(10_000);
        assertThat(producer.isAlive()).isFalse();
        assertThat(w.endpoint().bufferedBytes()).isEqualTo(small.payload.length);
    }

    @Test
    void messageLargerThanTheFrameLimitFailsClearly() throws Exception {
        ChannelSinkWriter w = writer(options().maxFrameBytes(1000));
        assertThatThrownBy(() -> w.write(new EncodedMessage(1, 2, 3, new byte[2000]), null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fanout.channel.max-frame-bytes").hasMessageContaining("2000 bytes");
    }

    @Test
    void anIdleVersion3ConnectionGetsHeartbeatsAndAVersion2ClientIsServedWithout() throws Exception {
        ChannelSinkWriter w = writer(options().heartbeatInterval(Duration.ofMillis(100)));
        try (RawClient v3 = RawClient.handshake(w.endpoint().address());
                RawClient v2 = new RawClient(w.endpoint().address())) {
            v2.send(new Frame.Hello(2, RawClient.TOKEN));
            assertThat(v2.read()).isInstanceOfSatisfying(Frame.Welcome.class, x -> assertThat(x.version()).isEqualTo(2));
            // Nothing to send: the version 3 client hears a HEARTBEAT about every 100 ms, the version 2 one nothing.
            long start = System.nanoTime();
            for (int i = 0; i < 3; i++) {
                assertThat(v3.next()).isInstanceOf(Frame.Heartbeat.class);
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
            v2.send(new Frame.Fetch(1));
            w.write(sample(7), null);
            // Idle as long as v3, which had 3 HEARTBEATs by now: v2's first frame is the message.
            assertThat(v2.next()).as("no HEARTBEAT for a version 2 client").isInstanceOfSatisfying(Frame.Message.class,
                    m -> assertThat(batchIdOf(m)).isEqualTo(7));
        }
    }

    @Test
    void protocolErrorsCloseOnlyTheOffendingConnection() throws Exception {
        ChannelSinkWriter w = writer(options().capacity(50));
        for (int i = 0; i < 10; i++) {
            w.write(sample(i), null);
        }
        RawClient good = client(w);
        good.send(new Frame.Fetch(1));
        assertThat(batchIdOf(good.read())).isEqualTo(0);

        try (RawClient v1 = new RawClient(w.endpoint().address())) {
            v1.sendRaw(HexFormat.of().parseHex("05000000" + "01" + "0100" + "0000")); // a version 1 HELLO
            assertThat(v1.read()).isInstanceOfSatisfying(Frame.Error.class,
                    e -> assertThat(e.text()).contains("unsupported protocol version 1").contains("speaks versions 2 to 3"));
            assertThat(v1.read()).as("closed after ERROR").isNull();
        }
        try (RawClient wrongToken = new RawClient(w.endpoint().address())) {
            wrongToken.send(new Frame.Hello(2, "guess"));
            assertThat(wrongToken.read()).isInstanceOfSatisfying(Frame.Error.class,
                    e -> assertThat(e.text()).contains("bad access token").contains("fanout.channel.token"));
            assertThat(wrongToken.read()).as("closed after ERROR").isNull();
        }
        try (RawClient http = new RawClient(w.endpoint().address())) {
            http.sendRaw("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
            assertThat(http.read()).isInstanceOfSatisfying(Frame.Error.class, e -> assertThat(e.text()).contains("exceeds the limit"));
            assertThat(http.read()).isNull();
        }
        try (RawClient noHello = new RawClient(w.endpoint().address())) {
            noHello.send(new Frame.Fetch(5));
            assertThat(noHello.read()).isInstanceOfSatisfying(Frame.Error.class, e -> assertThat(e.text()).contains("expected HELLO, got FETCH"));
            assertThat(noHello.read()).isNull();
        }
        try (RawClient oversize = RawClient.handshake(w.endpoint().address())) {
            oversize.sendRaw(HexFormat.of().parseHex("00000010" + "03")); // length 256 MiB
            assertThat(oversize.read()).isInstanceOfSatisfying(Frame.Error.class, e -> assertThat(e.text()).contains("exceeds the limit"));
            assertThat(oversize.read()).isNull();
        }
        try (RawClient unknown = RawClient.handshake(w.endpoint().address())) {
            unknown.sendRaw(HexFormat.of().parseHex("01000000" + "2a"));
            assertThat(unknown.read()).isInstanceOfSatisfying(Frame.Error.class, e -> assertThat(e.text()).contains("unknown frame type 42"));
            assertThat(unknown.read()).isNull();
        }
        try (RawClient wrongDirection = RawClient.handshake(w.endpoint().address())) {
            wrongDirection.sendRaw(FrameWriter.encode(new Frame.Message(1, 0, 0, 0, new byte[3])));
            assertThat(wrongDirection.read()).isInstanceOfSatisfying(Frame.Error.class,
                    e -> assertThat(e.text()).contains("unexpected MESSAGE frame"));
        }

        try (RawClient badAck = RawClient.handshake(w.endpoint().address())) {
            badAck.send(new Frame.Fetch(0, 77));
            assertThat(badAck.read()).isInstanceOfSatisfying(Frame.Error.class,
                    e -> assertThat(e.text()).contains("acknowledges seq 77"));
        }

        // The good client is still served, and nothing was lost to the broken ones.
        good.send(new Frame.Fetch(9));
        List<Integer> rest = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            rest.add(batchIdOf(good.read()));
        }
        assertThat(rest).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9);
    }

    @Test
    void acksArrivingTogetherCountUpToABadOne() throws Exception {
        ChannelSinkWriter w = writerKeepingSessions(3);
        RawClient c = client(w);
        List<Frame.Message> got = takeThree(c);
        Frame.Message m0 = got.get(0);
        Frame.Message m1 = got.get(1);
        // One write, as a client batching its acks sends them: the endpoint takes them together.
        c.sendRaw(concat(FrameWriter.encode(new Frame.Fetch(0, m0.seq())), FrameWriter.encode(new Frame.Fetch(0, m1.seq())),
                FrameWriter.encode(new Frame.Fetch(0, 999))));
        assertThat(c.read()).isInstanceOfSatisfying(Frame.Error.class, e -> assertThat(e.text()).contains("acknowledges seq 999"));
        awaitHeld(w, 1); // batches 0 and 1 acknowledged before the bad ack; batch 2 is held for the session
    }

    /** A writer keeping a detached session 30 s, holding batches 0..n-1. */
    private ChannelSinkWriter writerKeepingSessions(int n) throws Exception {
        ChannelSinkWriter w = writer(options().capacity(20).sessionTimeout(Duration.ofSeconds(30)));
        for (int i = 0; i < n; i++) {
            w.write(sample(i), null);
        }
        return w;
    }

    /** Grants {@code c} 3 credits and reads the 3 messages they bring. */
    private static List<Frame.Message> takeThree(RawClient c) throws IOException {
        c.send(new Frame.Fetch(3));
        return List.of(c.message(), c.message(), c.message());
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            all.writeBytes(p);
        }
        return all.toByteArray();
    }

    @Test
    void messageOfAClientThatLeftGoesToAnother() throws Exception {
        ChannelSinkWriter w = writer(options());
        RawClient leaver = client(w);
        leaver.send(new Frame.Fetch(10));
        leaver.close();
        // Wait until the endpoint noticed the departure (its credits must not absorb messages).
        Waits.until("the endpoint saw the client leave", Duration.ofSeconds(10), () -> w.endpoint().connectedClients() == 0);
        w.write(sample(0), null);
        RawClient stayer = client(w);
        stayer.send(new Frame.Fetch(1));
        assertThat(batchIdOf(stayer.read())).isEqualTo(0);
    }

    @Test
    void lateClientsGetEndOfStreamWhileLingeringAndRefusedAfterClose() throws Exception {
        ChannelSinkWriter w = new ChannelSinkWriter(options().linger(Duration.ofSeconds(30)).build(), 0, 1, null);
        InetSocketAddress address = w.endpoint().address();
        w.flush(true);
        Thread closer = new Thread(w::close);
        closer.start();
        try (RawClient late = RawClient.handshake(address)) {
            late.send(new Frame.Fetch(4));
            assertThat(late.read()).isInstanceOf(Frame.EndOfStream.class);
            assertThat(late.read()).isNull();
        }
        assertThat(closer.isAlive()).as("still lingering").isTrue();
        closer.interrupt(); // cuts the linger short
        closer.join(10_000);
        assertThat(closer.isAlive()).isFalse();
        // The listening socket is closed (not probed by connecting: on a busy machine another process may
        // already have been given the freed ephemeral port).
        assertThat(w.endpoint().isListening()).isFalse();
        assertThat(new EndpointRegistry(registryDir).read(0).orElseThrow().state()).isEqualTo(EndpointInfo.State.FINISHED);
    }

    @Test
    void aReconnectingClientResumesItsSessionAndGetsItsUnacknowledgedMessagesAgain() throws Exception {
        ChannelSinkWriter w = writerKeepingSessions(5);
        RawClient first = client(w);
        Frame.Message m0 = takeThree(first).get(0);
        first.send(new Frame.Fetch(0, m0.seq())); // consumed batch 0 only
        awaitHeld(w, 4);
        first.close(); // killed with batches 1 and 2 unacknowledged
        RawClient other = client(w);
        other.send(new Frame.Fetch(10));
        List<Integer> toOther = new ArrayList<>();
        toOther.add(batchIdOf(other.message()));
        toOther.add(batchIdOf(other.message()));
        assertThat(toOther).as("a resumable session keeps its messages").containsExactly(3, 4);
        assertThat(other.next()).as("nothing of the resumable session").isInstanceOf(Frame.Heartbeat.class);

        RawClient again = client(RawClient.handshake(w.endpoint().address(), first.session));
        assertThat(again.resumed).isTrue();
        assertThat(again.session).isEqualTo(first.session);
        again.send(new Frame.Fetch(5));
        Frame.Message r1 = again.message();
        Frame.Message r2 = again.message();
        assertThat(List.of(batchIdOf(r1), batchIdOf(r2))).containsExactly(1, 2);
        assertThat(r1.seq()).as("same seq as first sent").isEqualTo(m0.seq() + 1);

        RawClient unknown = client(RawClient.handshake(w.endpoint().address(), 12345L));
        assertThat(unknown.resumed).as("an unknown session starts afresh").isFalse();
    }

    @Test
    void anExpiredSessionHandsItsMessagesToOtherClients() throws Exception {
        ChannelSinkWriter w = writer(options().capacity(20).sessionTimeout(Duration.ofMillis(200)));
        for (int i = 0; i < 3; i++) {
            w.write(sample(i), null);
        }
        RawClient leaver = client(w);
        leaver.send(new Frame.Fetch(2));
        leaver.message();
        leaver.message();
        leaver.close();
        RawClient stayer = client(w);
        stayer.send(new Frame.Fetch(10));
        List<Integer> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            got.add(batchIdOf(stayer.message()));
        }
        assertThat(got).containsExactlyInAnyOrder(0, 1, 2);
    }

    @Test
    void endOfEpochComesOnceTheEpochIsCompleteAndAcknowledgedAndAtOnceWithoutData() throws Exception {
        ChannelSinkWriter w = writer(options().capacity(20));
        w.write(new EncodedMessage(0, 0, 2, sample(0).payload), null);
        w.write(new EncodedMessage(0, 1, 2, sample(1).payload), null);
        w.write(new EncodedMessage(1, 0, 2, sample(0).payload), null);
        w.writeWatermark(new org.apache.flink.api.common.eventtime.Watermark(0));
        RawClient c = client(w);
        c.send(new Frame.Fetch(10));
        Frame.Message a = (Frame.Message) c.read();
        Frame.Message b = (Frame.Message) c.read();
        Frame.Message e1 = (Frame.Message) c.read();
        assertThat(e1.epoch()).isEqualTo(1);
        assertThat(c.next()).as("epoch 0 complete but not yet acknowledged").isInstanceOf(Frame.Heartbeat.class);
        c.send(new Frame.Fetch(0, a.seq()));
        c.send(new Frame.Fetch(0, b.seq()));
        assertThat(c.read()).isEqualTo(new Frame.EndOfEpoch(0));
        assertThat(w.endpoint().endedEpoch()).isEqualTo(0);

        // A second endpoint that gets nothing of epochs 0 and 1 says so as soon as it knows.
        ChannelSinkWriter idle = new ChannelSinkWriter(options().build(), 1, 2, null);
        toClose.add(idle);
        RawClient ic = client(idle);
        idle.writeWatermark(new org.apache.flink.api.common.eventtime.Watermark(1));
        assertThat(ic.read()).isEqualTo(new Frame.EndOfEpoch(1));
        // A client joining later is told at once.
        RawClient late = client(idle);
        assertThat(late.read()).isEqualTo(new Frame.EndOfEpoch(1));
    }

    @Test
    void aCheckpointKeepsBufferedAndUnacknowledgedMessagesAndARestoredWriterServesThem() throws Exception {
        ChannelSinkWriter w = writer(options().capacity(20));
        for (int i = 0; i < 4; i++) {
            w.write(sample(i), null);
        }
        w.writeWatermark(new org.apache.flink.api.common.eventtime.Watermark(-1));
        RawClient c = client(w);
        c.send(new Frame.Fetch(2));
        Frame.Message m0 = c.message();
        c.message();
        c.send(new Frame.Fetch(0, m0.seq()));
        awaitHeld(w, 3);
        List<ChannelEndpoint.Snapshot> state = w.snapshotState(1);
        byte[] bytes = ChannelWriterStateSerializer.INSTANCE.serialize(state.get(0));
        ChannelEndpoint.Snapshot back = ChannelWriterStateSerializer.INSTANCE.deserialize(1, bytes);
        assertThat(back.messages()).extracting(s -> s.batchId).containsExactly(1, 2, 3);
        assertThat(back.messages()).containsExactlyElementsOf(state.get(0).messages());
        w.close();
        toClose.remove(w);

        ChannelSinkWriter restored = new ChannelSinkWriter(options().build(), 0, 1, null, back);
        toClose.add(restored);
        RawClient r = client(restored);
        r.send(new Frame.Fetch(10));
        List<Integer> got = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            got.add(batchIdOf(r.message()));
        }
        assertThat(got).containsExactly(1, 2, 3);
    }

    @Test
    void aWriterRestoredPastAnEpochEndAnnouncesItWithoutWaiting() throws Exception {
        // The state of a checkpoint taken after epoch 1's watermark, holding only epoch 2 messages: the
        // restored endpoint must end epochs 0 and 1 at once (a restore on a real cluster hit this path).
        List<EncodedMessage> held = List.of(new EncodedMessage(2, 0, 4, new byte[] {1}), new EncodedMessage(2, 1, 4, new byte[] {2}));
        ChannelSinkWriter restored = new ChannelSinkWriter(options().build(), 0, 1, null,
                new ChannelEndpoint.Snapshot(1, held));
        toClose.add(restored);
        assertThat(restored.endpoint().endedEpoch()).isEqualTo(1);
        assertThat(restored.endpoint().buffered()).isEqualTo(2);
    }

    private static void awaitHeld(ChannelSinkWriter w, int held) throws Exception {
        Waits.until("the endpoint holds " + held + " messages", Duration.ofSeconds(10), () -> w.endpoint().held() == held);
    }

    private RawClient client(RawClient c) {
        toClose.add(c);
        return c;
    }

    @Test
    void basePortPlusSubtaskIndex() throws Exception {
        int base;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0)) {
            base = probe.getLocalPort();
        }
        ChannelSinkWriter w = new ChannelSinkWriter(options().port(base - 1).build(), 1, 2, null);
        toClose.add(w);
        assertThat(w.endpoint().address().getPort()).isEqualTo(base);
        assertThat(new EndpointRegistry(registryDir).read(1).orElseThrow().port()).isEqualTo(base);
    }

    static EncodedMessage sample(int epoch, int batchId) {
        EncodedMessage m = sample(batchId);
        return new EncodedMessage(epoch, batchId, m.numBatches, m.payload);
    }

    /** Reads every epoch through a real ChannelReader; returns "epoch:batch" in reading order. */
    private List<String> readAll() throws Exception {
        List<String> read = new ArrayList<>();
        try (io.fanout.connectors.channel.client.ChannelReader reader = io.fanout.connectors.channel.client.ChannelReader
                .fromRegistry(registryDir, io.fanout.connectors.channel.client.ChannelReader.Options.defaults().withPrefetch(1))) {
            io.fanout.connectors.channel.client.ChannelReader.Epoch epoch;
            while ((epoch = reader.nextEpoch()) != null) {
                while (epoch.hasNext()) {
                    read.add(epoch.epoch() + ":" + epoch.next().batchId);
                }
            }
        }
        return read;
    }

    @Test
    void anOrderedInputEndsAnEpochAtTheNextEpochsFirstMessageAndStaysWithinItsCapacity() throws Exception {
        // Capacity 1 and a reader of epoch 0, which does not take epoch-1 messages: the writer blocks on epoch 1
        // before any watermark could say epoch 0 is complete. The ordered input says it instead, so the endpoint
        // ends epoch 0 and never holds more than its capacity.
        ChannelSinkWriter w = writer(options().capacity(1));
        w.epochOrderedInput = true;
        CompletableFuture<List<String>> read = readAllInBackground();
        EncodedMessage[] messages = {sample(0, 0), sample(0, 1), sample(1, 0), sample(1, 1), sample(1, 2)};
        for (EncodedMessage m : messages) {
            w.write(m, null);
        }
        w.flush(true);
        assertThat(read.get(30, TimeUnit.SECONDS)).containsExactly("0:0", "0:1", "1:0", "1:1", "1:2");
        assertThat(w.endpoint().peakHeldBytes()).as("never more than one message held").isEqualTo(messages[0].payload.length);
    }

    @Test
    void anUnorderedInputMustOverflowItsCapacityToLetTheReaderFinishAnEpoch() throws Exception {
        // The same writes without the promise: the endpoint cannot know epoch 0 is complete until a watermark
        // comes, and in a job that watermark queues behind the blocked write. Only the starvation rule (a client
        // reads an epoch of which nothing is held here) unblocks the writer, past its bound.
        ChannelSinkWriter w = writer(options().capacity(1));
        CompletableFuture<List<String>> read = readAllInBackground();
        EncodedMessage[] messages = {sample(0, 0), sample(0, 1), sample(1, 0), sample(1, 1), sample(1, 2)};
        for (EncodedMessage m : messages) {
            w.write(m, null);
        }
        w.writeWatermark(new org.apache.flink.api.common.eventtime.Watermark(0));
        w.flush(true);
        assertThat(read.get(30, TimeUnit.SECONDS)).containsExactly("0:0", "0:1", "1:0", "1:1", "1:2");
        assertThat(w.endpoint().peakHeldBytes()).as("held beyond its capacity").isGreaterThan(messages[0].payload.length);
    }

    private CompletableFuture<List<String>> readAllInBackground() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return readAll();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }
}
