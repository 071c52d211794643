package io.fanout.connectors.channel.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameReader;
import io.fanout.connectors.channel.protocol.FrameWriter;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.connectors.testing.Waits;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class ChannelReaderTest {
    @TempDir
    Path registryDir;

    private ChannelSinkOptions options() {
        return ChannelSinkOptions.builder(registryDir.toString()).capacity(4).linger(Duration.ofMillis(100)).build();
    }

    static EncodedMessage sample(int batchId) {
        TensorMessage m = new TensorMessage().putInt64(MessageKeys.BATCH, new long[] {batchId}).putInt64(MessageKeys.META_BATCH_ID, batchId);
        return new EncodedMessage(1, batchId, 100, SafetensorsCodec.encode(m));
    }

    /** Writes batches [from, to) into the endpoint, ends its input and closes it, in the background. */
    static CompletableFuture<Void> produce(ChannelEndpoint e, int from, int to) {
        return CompletableFuture.runAsync(() -> {
            try (e) {
                for (int i = from; i < to; i++) {
                    e.put(sample(i));
                }
                e.finishAndDrain();
            } catch (Exception ex) {
                throw new RuntimeException(ex);
            }
        });
    }

    /** Ends the input of each endpoint in turn, in the background (each waits for its drain). */
    static CompletableFuture<Void> finish(ChannelEndpoint... endpoints) {
        return CompletableFuture.runAsync(() -> {
            try {
                for (ChannelEndpoint e : endpoints) {
                    e.finishAndDrain();
                }
            } catch (Exception ex) {
                throw new RuntimeException(ex);
            }
        });
    }

    private static List<Integer> drain(ChannelReader r) {
        List<Integer> ids = new ArrayList<>();
        while (r.hasNext()) {
            EncodedMessage s = r.next();
            assertThat(SafetensorsCodec.decode(s.payload).get(MessageKeys.META_BATCH_ID).asLongArray()).containsExactly(s.batchId);
            assertThat(s.epoch).isEqualTo(1);
            assertThat(s.numBatches).isEqualTo(100);
            ids.add(s.batchId);
        }
        return ids;
    }

    @Test
    void readsEveryEndpointOfTheRegistryExactlyOnce() throws Exception {
        ChannelEndpoint e0 = new ChannelEndpoint(options(), 0, 2, null);
        ChannelEndpoint e1 = new ChannelEndpoint(options(), 1, 2, null);
        CompletableFuture<Void> p0 = produce(e0, 0, 50);
        CompletableFuture<Void> p1 = produce(e1, 50, 100);
        List<Integer> ids;
        try (ChannelReader r = ChannelReader.fromRegistry(registryDir, ChannelReader.Options.defaults().withPrefetch(2))) {
            assertThat(r.numEndpoints()).isEqualTo(2);
            ids = drain(r);
            assertThat(r.received()).isEqualTo(100);
            assertThat(r.hasNext()).isFalse();
            assertThatThrownBy(r::next).isInstanceOf(NoSuchElementException.class);
        }
        p0.get(10, TimeUnit.SECONDS);
        p1.get(10, TimeUnit.SECONDS);
        assertThat(ids).hasSize(100);
        assertThat(new HashSet<>(ids)).hasSize(100);
        // Each endpoint's messages arrive in its buffer order.
        assertThat(ids.stream().filter(i -> i < 50)).isSorted();
        assertThat(ids.stream().filter(i -> i >= 50)).isSorted();
    }

    @Test
    void explicitEndpointListWorksWithoutRegistry() throws Exception {
        ChannelEndpoint e0 = new ChannelEndpoint(options(), 0, 1, null);
        CompletableFuture<Void> p = produce(e0, 0, 20);
        String list = e0.info().host() + ":" + e0.info().port();
        try (ChannelReader r = ChannelReader.fromEndpoints(ChannelReader.parseEndpoints(list),
                ChannelReader.Options.defaults().withToken(e0.info().token()))) {
            assertThat(drain(r)).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 20).boxed().toList());
        }
        p.get(10, TimeUnit.SECONDS);
    }

    @Test
    void prefetchBoundsWhatTheReaderTakesFromAnEndpoint() throws Exception {
        try (ChannelEndpoint e = new ChannelEndpoint(ChannelSinkOptions.builder(registryDir.toString()).capacity(20).build(), 0, 1, null)) {
            for (int i = 0; i < 10; i++) {
                e.put(sample(0, i)); // epoch 0: what a reader asks for until it iterates
            }
            try (ChannelReader r = ChannelReader.fromRegistry(registryDir,
                    ChannelReader.Options.defaults().withPrefetch(3).withPrefetchBytes(0))) {
                awaitBuffered(e, 7);
                assertThat(r.granted()).as("3 credits: no more than 3 messages can leave the endpoint").isEqualTo(3);
                assertThat(e.buffered()).as("3 credits: 3 messages left the endpoint").isEqualTo(7);
                assertThat(r.next().batchId).isZero();
                awaitBuffered(e, 6);
                assertThat(r.granted()).as("one message taken, one credit granted").isEqualTo(4);
                assertThat(e.buffered()).as("one message taken, one credit granted").isEqualTo(6);
            }
        }
    }

    /**
     * A sample of epoch 0 whose payload is about {@code bytes} long (an int64 tensor of bytes/8
     * zeros); epoch 0, the epoch a reader asks for until it iterates, so it is prefetched at once.
     */
    static EncodedMessage sized(int batchId, int bytes) {
        TensorMessage m = new TensorMessage().putInt64(MessageKeys.BATCH, new long[Math.max(1, bytes / 8)])
                .putInt64(MessageKeys.META_BATCH_ID, batchId);
        return new EncodedMessage(0, batchId, 100, SafetensorsCodec.encode(m));
    }

    /** Waits until the endpoint's buffer is down to {@code n}; what bounds it there is {@link ChannelReader#granted()}. */
    private static void awaitBuffered(ChannelEndpoint e, int n) throws Exception {
        Waits.until("the endpoint's buffer is down to " + n, Duration.ofSeconds(10), () -> e.buffered() <= n);
    }

    @Test
    void smallMessagesWidenTheWindowToPrefetchBytes() throws Exception {
        int size = sized(0, 1000).payload.length;
        try (ChannelEndpoint e = new ChannelEndpoint(ChannelSinkOptions.builder(registryDir.toString()).capacity(40).build(), 0, 1, null)) {
            for (int i = 0; i < 30; i++) {
                e.put(sized(i, 1000));
            }
            try (ChannelReader r = ChannelReader.fromRegistry(registryDir,
                    ChannelReader.Options.defaults().withPrefetch(3).withPrefetchBytes(10L * size))) {
                awaitBuffered(e, 27);
                assertThat(r.granted()).as("prefetch 3 before any size is known").isEqualTo(3);
                assertThat(e.buffered()).as("prefetch 3 before any size is known").isEqualTo(27);
                assertThat(r.next().batchId).isZero();
                awaitBuffered(e, 19);
                assertThat(r.granted()).as("window of 10: the 1 consumed + 10 ahead").isEqualTo(11);
                assertThat(e.buffered()).as("window of 10: the 1 consumed + 10 ahead left the endpoint").isEqualTo(19);
            }
        }
    }

    @Test
    void theWindowShrinksBackToPrefetchWhenMessagesGrow() throws Exception {
        int small = sized(0, 1000).payload.length;
        try (ChannelEndpoint e = new ChannelEndpoint(ChannelSinkOptions.builder(registryDir.toString()).capacity(40).build(), 0, 1, null)) {
            for (int i = 0; i < 34; i++) {
                e.put(sized(i, i < 4 ? 1000 : 16000));
            }
            try (ChannelReader r = ChannelReader.fromRegistry(registryDir,
                    ChannelReader.Options.defaults().withPrefetch(3).withPrefetchBytes(8L * small))) {
                for (int i = 0; i < 25; i++) {
                    assertThat(r.next().batchId).isEqualTo(i);
                }
                // Credits go back as messages are taken (in next()): what was granted by now bounds what comes.
                int ahead = (int) r.granted() - 25;
                assertThat(ahead).as("large messages: back to prefetch, kept-back credits not returned").isLessThanOrEqualTo(3);
            }
        }
    }

    @Test
    void prefetchBytesIsValidated() {
        assertThatThrownBy(() -> ChannelReader.Options.defaults().withPrefetchBytes(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prefetchBytes");
    }

    @Test
    void finishedEndpointsCountAsDone() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        new EndpointRegistry(registryDir).write(new EndpointInfo(1, 0, 1, "127.0.0.1", deadPort, EndpointInfo.State.FINISHED, null, null));
        try (ChannelReader r = ChannelReader.fromRegistry(registryDir, ChannelReader.Options.defaults().withConnectTimeout(Duration.ofSeconds(5)))) {
            assertThat(r.hasNext()).isFalse();
        }
    }

    /** What a hand-written server does after it welcomed the reader (endpoint 0 of 1). */
    interface Conversation {
        void run(FrameReader in, FrameWriter out) throws Exception;
    }

    /** Serves one reader on {@code server} in the background: reads its HELLO, welcomes it, then {@code c}. */
    static CompletableFuture<Void> handWritten(ServerSocket server, Conversation c) {
        return CompletableFuture.runAsync(() -> {
            try (java.net.Socket s = server.accept()) {
                FrameReader in = new FrameReader(s.getInputStream(), 1 << 20);
                FrameWriter out = new FrameWriter(new java.io.BufferedOutputStream(s.getOutputStream()));
                assertThat(in.read()).isInstanceOf(Frame.Hello.class);
                out.write(new Frame.Welcome(ChannelProtocol.VERSION, 0, 1, 7L, false));
                c.run(in, out);
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    /**
     * A broken server: welcomes the reader, then writes twenty messages against its two credits before
     * the consumer takes any (or until the reader, rightly, hangs up on it).
     */
    @Test
    void aServerSendingBeyondItsCreditsIsAnErrorNamingIt() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            CountDownLatch allWritten = new CountDownLatch(1);
            CountDownLatch hungUp = new CountDownLatch(1);
            CompletableFuture<Void> broken = handWritten(server, (in, out) -> {
                boolean open = true;
                try {
                    for (int i = 0; i < 20; i++) {
                        EncodedMessage m = sample(i);
                        out.writeMessage(i + 1, m.epoch, m.batchId, m.numBatches, m.payload);
                    }
                } catch (java.io.IOException closed) {
                    // A reader that caught the third MESSAGE at once has already closed the connection (as it
                    // should), and the rest of the writes met a closed socket: it has hung up.
                    open = false;
                } finally {
                    allWritten.countDown();
                }
                try { // keep the connection open until the reader, having judged it, hangs up
                    while (open && in.read() != null) {
                        // its FETCH frames
                    }
                } catch (java.io.IOException reset) {
                    // reset by the reader
                }
                hungUp.countDown();
            });
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.getLocalPort());
            // A short reconnect timeout: were the violation missed, the test fails on an assertion, not a hang.
            ChannelReader.Options options = ChannelReader.Options.defaults().withPrefetch(2).withPrefetchBytes(0)
                    .withReconnectTimeout(Duration.ofSeconds(2));
            try (ChannelReader r = ChannelReader.fromEndpoints(List.of(address), options)) {
                // Nothing is consumed (so no credit returned) until the reader's connection thread has judged
                // the stream and hung up: it sees the third MESSAGE against two credits however threads are
                // scheduled. (Waiting only until all twenty were written let the test consume the first two, and
                // so return their credits, before that thread had read the third, on a busy CI host.)
                assertThat(allWritten.await(30, TimeUnit.SECONDS)).isTrue();
                assertThat(hungUp.await(30, TimeUnit.SECONDS)).as("the reader hangs up on the third MESSAGE").isTrue();
                assertThatThrownBy(() -> {
                    while (r.hasNext()) {
                        r.next();
                    }
                }).isInstanceOf(UncheckedIOException.class)
                        .hasMessageMatching("(?s).*endpoint 0 \\(127\\.0\\.0\\.1:" + server.getLocalPort()
                                + "\\) sent MESSAGE (\\d+) but only (\\d+) credits were granted.*");
            }
            // The server ends either way: its writes done, or failed on the connection the reader closed.
            broken.handle((done, failed) -> null).get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void connectTimeoutNamesTheEndpointsThatDidNotAnswer() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        // Endpoint 0 is registered but nobody listens; endpoint 1 never registers.
        new EndpointRegistry(registryDir).write(new EndpointInfo(1, 0, 2, "127.0.0.1", deadPort, EndpointInfo.State.SERVING, null, null));
        try (ChannelReader r = ChannelReader.fromRegistry(registryDir, ChannelReader.Options.defaults().withConnectTimeout(Duration.ofSeconds(1)))) {
            assertThatThrownBy(r::hasNext).isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("did not answer within PT1S")
                    .hasMessageContaining("endpoint 0 (127.0.0.1:" + deadPort + ")")
                    .hasMessageContaining("endpoint 1 (no registry file)");
        }
    }

    @Test
    void emptyRegistryTimesOutClearly() {
        assertThatThrownBy(() -> ChannelReader.fromRegistry(registryDir.resolve("nothing"),
                ChannelReader.Options.defaults().withConnectTimeout(Duration.ofMillis(200))))
                .hasMessageContaining("no channel endpoint registered in").hasMessageContaining("nothing");
    }

    private ChannelSinkOptions.Builder endpointOptions() {
        return ChannelSinkOptions.builder(registryDir.toString()).capacity(50).linger(Duration.ofMillis(100)).token("tok");
    }

    /** Puts batches [from, to) of {@code epoch} into the endpoint. */
    static void put(ChannelEndpoint e, int epoch, int from, int to) throws InterruptedException {
        for (int i = from; i < to; i++) {
            e.put(sample(epoch, i));
        }
    }

    static EncodedMessage sample(int epoch, int batchId) {
        TensorMessage m = new TensorMessage().putInt64(MessageKeys.META_EPOCH, epoch).putInt64(MessageKeys.META_BATCH_ID, batchId);
        return new EncodedMessage(epoch, batchId, 10, SafetensorsCodec.encode(m));
    }

    @Test
    void aReaderWhoseConnectionIsCutMidEpochReconnectsAndLosesNothing() throws Exception {
        try (ChannelEndpoint e = new ChannelEndpoint(endpointOptions().sessionTimeout(Duration.ofSeconds(30)).build(), 0, 1, null);
                CuttableProxy proxy = new CuttableProxy(e.address())) {
            for (int i = 0; i < 30; i++) {
                e.put(sample(0, i));
            }
            ChannelReader.Options opts = ChannelReader.Options.defaults().withPrefetch(4).withToken("tok")
                    .withReconnectTimeout(Duration.ofSeconds(20));
            List<Integer> got = new ArrayList<>();
            try (ChannelReader r = ChannelReader.fromEndpoints(List.of(proxy.address()), opts)) {
                for (int i = 0; i < 10; i++) {
                    got.add(r.next().batchId);
                }
                // More sit in the reader's queue, unacknowledged, when the path is cut: what its credits let come.
                Waits.until("the prefetched messages left the endpoint", Duration.ofSeconds(10),
                        () -> e.delivered() >= Math.min(30, r.granted()));
                proxy.cutAll();
                CompletableFuture<Void> end = finish(e);
                while (r.hasNext()) {
                    got.add(r.next().batchId);
                }
                end.get(20, TimeUnit.SECONDS);
                assertThat(proxy.accepted).as("reconnected").isGreaterThanOrEqualTo(2);
            }
            assertThat(got).as("every batch exactly once, in order").containsExactlyElementsOf(
                    java.util.stream.IntStream.range(0, 30).boxed().toList());
        }
    }

    /**
     * The reconnect race of a killed endpoint: its registry file names its old port until the restarted endpoint writes
     * the new one, and something else listens there meanwhile (a silent server, or another endpoint of the channel). The
     * restarted endpoint registers only once the reader has sent HELLO to the stale address; the reader must then
     * reach it (a handshake timeout at most, not its reconnect deadline) and get every batch once.
     */
    @Test
    void aStaleRegistryAddressTakenByAnotherServerDoesNotStopTheReconnect() throws Exception {
        for (boolean silent : new boolean[] {true, false}) {
            Path dir = registryDir.resolve(silent ? "silent" : "endpoint-1");
            ChannelSinkOptions opts = ChannelSinkOptions.builder(dir.toString()).capacity(64).linger(Duration.ofMillis(100)).build();
            ChannelEndpoint e0 = new ChannelEndpoint(opts, 0, 2, null);
            ChannelEndpoint e1 = new ChannelEndpoint(opts, 1, 2, null);
            CompletableFuture<Void> p1 = produce(e1, 50, 60);
            for (int i = 0; i < 6; i++) {
                e0.put(sample(i));
            }
            int stalePort = e0.info().port();
            List<Integer> got = new ArrayList<>();
            try (ChannelReader r = ChannelReader.fromRegistry(dir, ChannelReader.Options.defaults().withPrefetch(2)
                    .withReconnectTimeout(Duration.ofSeconds(50)))) {
                while (got.stream().filter(i -> i < 50).count() < 3) {
                    got.add(r.next().batchId);
                }
                e0.close(); // killed: its registry file still names stalePort
                java.util.concurrent.atomic.AtomicInteger helloBytes = new java.util.concurrent.atomic.AtomicInteger();
                AutoCloseable squatter;
                if (silent) {
                    ServerSocket server = new ServerSocket();
                    server.setReuseAddress(true);
                    server.bind(new InetSocketAddress("127.0.0.1", stalePort));
                    squatter = server;
                    Thread t = new Thread(() -> {
                        try {
                            java.net.Socket c = server.accept(); // never answers
                            byte[] buf = new byte[256];
                            int n;
                            while ((n = c.getInputStream().read(buf)) > 0) {
                                helloBytes.addAndGet(n);
                            }
                        } catch (java.io.IOException ignored) {
                            // closed by the test
                        }
                    });
                    t.setDaemon(true);
                    t.start();
                } else {
                    // The channel's endpoint 1, restarted on the port endpoint 0 had (its registry elsewhere).
                    ChannelEndpoint other = new ChannelEndpoint(ChannelSinkOptions.builder(registryDir.resolve("other").toString())
                            .token(e0.info().token()).port(stalePort - 1).build(), 1, 2, null);
                    squatter = other;
                    Thread t = new Thread(() -> {
                        while (other.isListening() && other.connectedClients() == 0) {
                            Thread.onSpinWait();
                        }
                        helloBytes.set(1);
                    });
                    t.setDaemon(true);
                    t.start();
                }
                try (squatter) {
                    Waits.until("the reader tried the stale address", Duration.ofSeconds(20), () -> helloBytes.get() > 0);
                    ChannelEndpoint restarted = new ChannelEndpoint(opts, 0, 2, null);
                    long started = System.nanoTime();
                    CompletableFuture<Void> p0 = produce(restarted, 0, 6); // re-sent: the reader drops the copies
                    while (r.hasNext()) {
                        got.add(r.next().batchId);
                    }
                    p0.get(20, TimeUnit.SECONDS);
                    assertThat(System.nanoTime() - started).as("a handshake timeout, not the reconnect deadline")
                            .isLessThan(TimeUnit.SECONDS.toNanos(EndpointDialer.HANDSHAKE_TIMEOUT_MS / 1000 + 8));
                }
            }
            p1.get(20, TimeUnit.SECONDS);
            assertThat(got).as(silent ? "silent server" : "endpoint 1").containsExactlyInAnyOrderElementsOf(
                    java.util.stream.IntStream.concat(java.util.stream.IntStream.range(0, 6), java.util.stream.IntStream.range(50, 60))
                            .boxed().toList());
        }
    }

    /**
     * The other reconnect race (seen in the cluster kill test with two ranks): an endpoint finished (its clients got
     * END_OF_STREAM, its registry file says finished) while another endpoint still ran, then the job failed over and
     * restored a checkpoint taken before that. The restored endpoint must not wait for clients that will never come
     * back for copies of what they consumed; another job's finished file changes nothing.
     */
    @Test
    void anEndpointRestoredFromBeforeItFinishedDoesNotWaitForClientsThatSawItsEnd() throws Exception {
        ChannelEndpoint.Snapshot beforeTheEnd;
        ChannelEndpoint first = new ChannelEndpoint(options(), 0, 1, "job-a");
        first.put(sample(0));
        first.put(sample(1));
        beforeTheEnd = first.snapshot(); // the last checkpoint: 2 messages not acknowledged yet
        CompletableFuture<Void> p = produce(first, 2, 6);
        try (ChannelReader r = ChannelReader.fromRegistry(registryDir, ChannelReader.Options.defaults().withPrefetch(2))) {
            assertThat(drain(r)).containsExactly(0, 1, 2, 3, 4, 5);
        }
        p.get(10, TimeUnit.SECONDS);
        EndpointRegistry registry = new EndpointRegistry(registryDir);
        assertThat(registry.read(0).orElseThrow().state()).isEqualTo(EndpointInfo.State.FINISHED);

        try (ChannelEndpoint restored = new ChannelEndpoint(options(), 0, 1, "job-a", beforeTheEnd)) {
            assertThat(restored.held()).isZero();
            for (int i = 2; i < 12; i++) {
                restored.put(sample(i)); // re-sampled copies, more than its capacity of 4: dropped, never blocking
            }
            CompletableFuture.runAsync(() -> {
                try {
                    restored.finishAndDrain();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }).get(10, TimeUnit.SECONDS);
            assertThat(registry.read(0).orElseThrow().state()).isEqualTo(EndpointInfo.State.FINISHED);
            assertThat(registry.read(0).orElseThrow().port()).isEqualTo(restored.info().port());
        }
        try (ChannelEndpoint otherJob = new ChannelEndpoint(options(), 0, 1, "job-b", beforeTheEnd)) {
            assertThat(otherJob.held()).as("another job's finished file: its messages are served").isEqualTo(2);
            assertThat(registry.read(0).orElseThrow().state()).isEqualTo(EndpointInfo.State.SERVING);
        }
    }

    @Test
    void epochsEndWhenEveryEndpointEndedThemIncludingAnEndpointWithNoData() throws Exception {
        try (ChannelEndpoint a = new ChannelEndpoint(endpointOptions().build(), 0, 2, null);
                ChannelEndpoint b = new ChannelEndpoint(endpointOptions().build(), 1, 2, null)) {
            // a gets epoch 1 early (before b finished epoch 0); b gets nothing of epoch 1.
            put(a, 0, 0, 5);
            put(a, 1, 0, 5);
            List<Integer> epochs = new ArrayList<>();
            List<List<Integer>> perEpoch = new ArrayList<>();
            try (ChannelReader r = ChannelReader.fromRegistry(registryDir, ChannelReader.Options.defaults().withPrefetch(2))) {
                ChannelReader.Epoch ep = r.nextEpoch();
                assertThat(ep.epoch()).isZero();
                List<Integer> first = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    first.add(ep.next().batchId);
                }
                // b now delivers its share of epoch 0, then the watermark says epoch 0 is complete.
                put(b, 0, 5, 10);
                a.advanceWatermark(0);
                b.advanceWatermark(0);
                while (ep.hasNext()) {
                    first.add(ep.next().batchId);
                }
                epochs.add(0);
                perEpoch.add(first);
                CompletableFuture<Void> end = finish(b, a); // nothing of epoch 1: b is done at once
                while ((ep = r.nextEpoch()) != null) {
                    epochs.add(ep.epoch());
                    List<Integer> ids = new ArrayList<>();
                    while (ep.hasNext()) {
                        EncodedMessage s = ep.next();
                        assertThat(s.epoch).isEqualTo(ep.epoch());
                        ids.add(s.batchId);
                    }
                    perEpoch.add(ids);
                }
                end.get(20, TimeUnit.SECONDS);
            }
            assertThat(epochs).containsExactly(0, 1);
            assertThat(perEpoch.get(0)).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
            assertThat(perEpoch.get(1)).containsExactly(0, 1, 2, 3, 4);
        }
    }

    @Test
    void anEndpointAnEpochAheadWaitsForTheReaderAndWhatTheReaderHoldsStaysWithinItsWindows() throws Exception {
        try (ChannelEndpoint a = new ChannelEndpoint(endpointOptions().build(), 0, 2, null);
                ChannelEndpoint b = new ChannelEndpoint(endpointOptions().build(), 1, 2, null)) {
            // a has all of its epoch 0 and 30 messages of epoch 1 while b has not produced its epoch 0 yet.
            put(a, 0, 0, 3);
            put(a, 1, 0, 30);
            a.advanceWatermark(0);
            int size = sample(1, 0).payload.length;
            long bound = 2L * 2 * size; // two endpoints, a window of 2 each
            List<String> got = new ArrayList<>();
            try (ChannelReader r = ChannelReader.fromRegistry(registryDir,
                    ChannelReader.Options.defaults().withPrefetch(2).withPrefetchBytes(0).withToken("tok"))) {
                ChannelReader.Epoch ep = r.nextEpoch();
                for (int i = 0; i < 3; i++) {
                    got.add(ep.epoch() + ":" + ep.next().batchId);
                }
                // The reader now waits for b. Once a has the acks of its epoch 0 it also has their credits and the
                // epoch the reader reads: it could send epoch 1 ahead.
                Waits.until("a has the acks of its epoch 0", Duration.ofSeconds(10), () -> a.held() == 30);
                assertThat(a.delivered()).as("nothing of epoch 1 left a while the reader reads epoch 0").isEqualTo(3);
                put(b, 0, 100, 103);
                b.advanceWatermark(0);
                CompletableFuture<Void> end = finish(b, a);
                do {
                    while (ep.hasNext()) {
                        EncodedMessage s = ep.next();
                        assertThat(s.epoch).isEqualTo(ep.epoch());
                        got.add(s.epoch + ":" + s.batchId);
                    }
                } while ((ep = r.nextEpoch()) != null);
                end.get(20, TimeUnit.SECONDS);
                assertThat(r.peakHeldBytes()).as("held bytes within the credit windows").isPositive().isLessThanOrEqualTo(bound);
                assertThat(r.heldBytes()).isZero();
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                expected.add("1:" + i);
            }
            assertThat(got.subList(0, 6)).containsExactlyInAnyOrder("0:0", "0:1", "0:2", "0:100", "0:101", "0:102");
            assertThat(got.subList(6, got.size())).as("epoch 1 after epoch 0, each once, in order").isEqualTo(expected);
        }
    }

    /**
     * A server that ignores FETCH max_epoch (one endpoint of one): 3 messages of epoch 0, then 10 of
     * epoch 1 as credits allow; END_OF_EPOCH(0) only after a pause, END_OF_STREAM once all are acked.
     */
    @Test
    void messagesOfALaterEpochThatArriveAnywayAreHeldBackAgainstTheCreditWindow() throws Exception {
        int size = sample(1, 0).payload.length;
        java.util.concurrent.atomic.AtomicLong credits = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicInteger acks = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<ChannelReader> reader = new java.util.concurrent.atomic.AtomicReference<>();
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> ignoring = handWritten(server, (in, out) -> {
                Thread fetches = new Thread(() -> {
                    try {
                        Frame f;
                        while ((f = in.read()) instanceof Frame.Fetch fetch) {
                            credits.addAndGet(fetch.credits());
                            acks.addAndGet(fetch.ackedSeq() > 0 ? 1 : 0);
                        }
                    } catch (java.io.IOException e) {
                        // the reader closed
                    }
                });
                fetches.start();
                for (int i = 0; i < 13; i++) {
                    Waits.until("a credit for message " + i, Duration.ofSeconds(20), () -> credits.get() > 0);
                    credits.decrementAndGet();
                    EncodedMessage m = i < 3 ? sample(0, i) : sample(1, i - 3);
                    out.writeMessage(i + 1, m.epoch, m.batchId, m.numBatches, m.payload);
                    if (i == 4) {
                        // Epoch 0 is not over yet: once the reader has acked epoch 0 and holds epoch 1's two messages
                        // back, any credit it returned for them would have come.
                        Waits.until("the reader acked epoch 0 and holds back 2 messages of epoch 1", Duration.ofSeconds(20),
                                () -> acks.get() == 3 && reader.get() != null && reader.get().heldBytes() == 2L * size);
                        assertThat(credits.get()).as("no credit came back for the 2 held-back messages").isZero();
                        out.write(new Frame.EndOfEpoch(0));
                    }
                }
                Waits.until("the acks of all 13 messages", Duration.ofSeconds(20), () -> acks.get() == 13);
                out.write(new Frame.EndOfEpoch(1));
                out.write(new Frame.EndOfStream());
                fetches.join(5_000);
            });
            List<String> got = new ArrayList<>();
            try (ChannelReader r = ChannelReader.fromEndpoints(List.of(new InetSocketAddress("127.0.0.1", server.getLocalPort())),
                    ChannelReader.Options.defaults().withPrefetch(2).withPrefetchBytes(0))) {
                reader.set(r);
                ChannelReader.Epoch ep;
                while ((ep = r.nextEpoch()) != null) {
                    while (ep.hasNext()) {
                        EncodedMessage s = ep.next();
                        got.add(s.epoch + ":" + s.batchId);
                    }
                }
                assertThat(r.peakHeldBytes()).as("at most the window of 2").isLessThanOrEqualTo(2L * size);
            }
            ignoring.get(20, TimeUnit.SECONDS);
            List<String> expected = new ArrayList<>(List.of("0:0", "0:1", "0:2"));
            for (int i = 0; i < 10; i++) {
                expected.add("1:" + i);
            }
            assertThat(got).isEqualTo(expected);
        }
    }

    @Test
    void aSamplingErrorMessageIsThrownWithTheServerTextAndReadingGoesOn() throws Exception {
        try (ChannelEndpoint e = new ChannelEndpoint(endpointOptions().build(), 0, 1, null)) {
            e.put(sample(0, 0));
            e.put(new EncodedMessage(0, 1, 10, io.fanout.connectors.message.SamplingErrors.encode(0, 1, 10,
                    "java.lang.IllegalStateException: boom\n\tat Sampler.sample")));
            e.put(sample(0, 2));
            CompletableFuture<Void> end = finish(e);
            try (ChannelReader r = ChannelReader.fromRegistry(registryDir, ChannelReader.Options.defaults())) {
                assertThat(r.next().batchId).isZero();
                assertThatThrownBy(r::next).isInstanceOfSatisfying(ChannelReader.SamplingErrorException.class, x -> {
                    assertThat(x.epoch()).isZero();
                    assertThat(x.batchId()).isEqualTo(1);
                    assertThat(x).hasMessageContaining("boom").hasMessageContaining("epoch 0 batch 1");
                });
                assertThat(r.next().batchId).isEqualTo(2);
                assertThat(r.hasNext()).isFalse();
            }
            end.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aWrongTokenFailsWithTheServerText() throws Exception {
        try (ChannelEndpoint e = new ChannelEndpoint(endpointOptions().build(), 0, 1, null);
                ChannelReader r = ChannelReader.fromEndpoints(List.of(e.address()), ChannelReader.Options.defaults().withToken("nope"))) {
            assertThatThrownBy(r::hasNext).isInstanceOf(UncheckedIOException.class).hasMessageContaining("bad access token");
        }
    }

    @Test
    void anEndpointProcessStoppedMidEpochFailsTheReaderNamingItAndItsLastFrame() throws Exception {
        // A real endpoint in a child JVM, one message every 100 ms, heartbeats every 200 ms.
        Process endpoint = EndpointProcess.start(registryDir, 200, 1000, 100);
        try (ChannelReader r = ChannelReader.fromRegistry(registryDir, ChannelReader.Options.defaults().withPrefetch(2)
                .withConnectTimeout(Duration.ofSeconds(30)).withStallTimeout(Duration.ofSeconds(1)))) {
            for (int i = 0; i < 5; i++) {
                assertThat(r.next().batchId).isEqualTo(i);
            }
            EndpointProcess.signal(endpoint, "STOP");
            long stopped = System.nanoTime();
            // A stall is noticed after the 1 s timeout (not before); a busy host may add a second or two.
            assertThatThrownBy(() -> {
                while (true) {
                    r.next();
                }
            }).isInstanceOf(UncheckedIOException.class).cause().isInstanceOf(ChannelReader.StalledEndpointException.class)
                    .hasMessageMatching("channel endpoint 0 \\(127\\.0\\.0\\.1:\\d+\\) sent nothing for [1-3]\\.\\d s .*the last frame it "
                            + "sent was (MESSAGE \\(epoch 0, batch \\d+\\)|HEARTBEAT), [1-3]\\.\\d s ago");
            assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isBetween(Duration.ofMillis(900), Duration.ofSeconds(4));
        } finally {
            endpoint.destroyForcibly().waitFor();
        }
    }

    @Test
    void anIdleEndpointSendingHeartbeatsDoesNotStall() throws Exception {
        try (ChannelEndpoint e = new ChannelEndpoint(endpointOptions().heartbeatInterval(Duration.ofMillis(100)).build(), 0, 1, null);
                ChannelReader r = ChannelReader.fromEndpoints(List.of(e.address()),
                        ChannelReader.Options.defaults().withToken("tok").withStallTimeout(Duration.ofMillis(500)))) {
            e.put(sample(0, 0));
            assertThat(r.next().batchId).isZero();
            // Nothing to send for 4x the stall timeout, then the rest.
            CompletableFuture<Void> later = CompletableFuture.runAsync(() -> {
                try {
                    Thread.sleep(2_000);
                    e.put(sample(0, 1));
                } catch (InterruptedException ex) {
                    throw new RuntimeException(ex);
                }
            }).thenCompose(v -> finish(e));
            assertThat(r.next().batchId).isEqualTo(1);
            assertThat(r.hasNext()).isFalse();
            later.get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void parsesEndpointLists() {
        assertThat(ChannelReader.parseEndpoints("a:1, [::1]:2")).extracting(InetSocketAddress::getHostString, InetSocketAddress::getPort)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a", 1), org.assertj.core.groups.Tuple.tuple("::1", 2));
        assertThatThrownBy(() -> ChannelReader.parseEndpoints("nohost")).hasMessageContaining("\"nohost\" is not host:port");
    }
}
