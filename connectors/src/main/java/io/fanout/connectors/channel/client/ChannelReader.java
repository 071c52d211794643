package io.fanout.connectors.channel.client;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.channel.tls.ChannelTls;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.connectors.message.SamplingErrors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pulls messages from every endpoint of a channel (docs/channel-protocol.md, protocol v3), found
 * through the registry directory or given as host:port addresses, over plain TCP or, with
 * {@link Options#tlsCa()}, TLS only.
 *
 * <p>Two ways to read, not to be mixed: as a flat {@link Iterator} of every message in arrival order
 * (ends when every endpoint sent END_OF_STREAM), or epoch by epoch with {@link #nextEpoch()} (an
 * epoch ends once every endpoint said END_OF_EPOCH for it; messages of later epochs that arrive
 * early are parked until their epoch; FETCH frames tell the endpoints which epoch is being read, so
 * only a server that ignores that sends any, and they count against its credit window like every
 * other message not yet handed out). Either way each (epoch, batch id) is handed out once: copies
 * re-sent after a reconnect or a job restart are dropped.
 *
 * <p>One daemon thread per endpoint reads frames; each endpoint is granted {@code prefetch} credits
 * up front and one more per message taken, and every message handed out is acknowledged, so the
 * endpoint can forget it. While an endpoint's messages are small its window grows to as many as fit
 * in {@code prefetchBytes} (as the Python client does; channel-protocol.md), and shrinks back as they grow. A
 * lost connection is re-established (re-reading the registry, where a
 * restarted endpoint writes its new port) within the reconnect timeout, resuming the session so no
 * message is lost. Failures are thrown from {@code hasNext()} as {@link UncheckedIOException}: an
 * endpoint that does not answer within the connect timeout (naming every such endpoint), an ERROR
 * frame (with the server's text), a connection that cannot be re-established, a connected endpoint
 * that sends nothing, not even HEARTBEAT, for the stall timeout ({@link StalledEndpointException},
 * naming the last frame it sent and when). A sampling error
 * message is thrown as {@link SamplingErrorException}; reading may go on after it. Not thread-safe:
 * one consumer thread.
 *
 * <p>The parts, one concern each: {@link EndpointConnection} (an endpoint's reading thread and its
 * reconnects), {@link EndpointDialer} (registry look-up, connect, HELLO/WELCOME), {@link CreditWindow}
 * (credits, acks and the epoch told in FETCH), {@link EpochOrdering} (parking later epochs, dropping
 * copies) and {@link ReaderEvent} (what the reading threads hand the consumer).
 */
public final class ChannelReader implements Iterator<EncodedMessage>, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelReader.class);
    private static final long POLL_MS = 50;
    /** Default {@link Options#prefetchBytes()}, the Python client's too. */
    public static final long DEFAULT_PREFETCH_BYTES = 8L << 20;
    /** Upper bound of an endpoint's credit window, however small its messages. */
    public static final int MAX_PREFETCH_WINDOW = 1024;
    /** Default {@link Options#stallTimeout()}, the Python client's too. */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Reader settings.
     *
     * @param prefetch credits granted to each endpoint up front (at least 1)
     * @param connectTimeout how long to wait for registry files and for endpoints to answer
     * @param token access token sent in HELLO; empty = the token of the registry files
     * @param maxFrameBytes largest accepted frame
     * @param reconnectTimeout how long to try re-establishing a lost connection
     * @param logEvery a telemetry log line every this many messages (0 = never)
     * @param prefetchBytes let an endpoint of small messages send more than {@code prefetch} ahead, as
     *     many as fit in this many bytes by the moving average of its sizes (at most
     *     {@link #MAX_PREFETCH_WINDOW}); 0 = exactly {@code prefetch}
     * @param stallTimeout fail when a connected endpoint sends nothing (not even HEARTBEAT) for this
     *     long; zero = wait for ever
     * @param tlsCa PEM file of the CA (or bundle) that signed the endpoints' certificates: connect with
     *     TLS only, checking the certificate names the endpoint's host; null = plain TCP (an endpoint
     *     whose registry file says {@code "tls": true} is then refused, and so is a plain one with a CA)
     */
    public record Options(int prefetch, Duration connectTimeout, String token, int maxFrameBytes, Duration reconnectTimeout,
            int logEvery, long prefetchBytes, Duration stallTimeout, Path tlsCa) {
        public Options {
            if (prefetch < 1) {
                throw new IllegalArgumentException("prefetch must be at least 1, got " + prefetch);
            }
            if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
                throw new IllegalArgumentException("connect timeout must be positive, got " + connectTimeout);
            }
            if (reconnectTimeout == null || reconnectTimeout.isNegative()) {
                throw new IllegalArgumentException("reconnect timeout must be zero or positive, got " + reconnectTimeout);
            }
            token = token == null ? "" : token;
            if (maxFrameBytes < 64) {
                throw new IllegalArgumentException("maxFrameBytes must be at least 64, got " + maxFrameBytes);
            }
            if (logEvery < 0) {
                throw new IllegalArgumentException("logEvery must be 0 or positive, got " + logEvery);
            }
            if (prefetchBytes < 0) {
                throw new IllegalArgumentException("prefetchBytes must be 0 or positive, got " + prefetchBytes);
            }
            if (stallTimeout == null || stallTimeout.isNegative() || stallTimeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("stall timeout must be zero (none) or positive, got " + stallTimeout);
            }
        }

        /**
         * prefetch 4, connect timeout 60 s, token from the registry, 256 MiB frames, reconnect 60 s, log
         * every 1000, prefetch bytes 8 MiB, stall timeout 30 s (six default heartbeat intervals).
         */
        public static Options defaults() {
            return new Options(4, Duration.ofSeconds(60), "", ChannelProtocol.DEFAULT_MAX_FRAME_BYTES, Duration.ofSeconds(60), 1000,
                    DEFAULT_PREFETCH_BYTES, DEFAULT_STALL_TIMEOUT, null);
        }

        public Options withPrefetch(int n) {
            return new Options(n, connectTimeout, token, maxFrameBytes, reconnectTimeout, logEvery, prefetchBytes, stallTimeout, tlsCa);
        }

        public Options withConnectTimeout(Duration d) {
            return new Options(prefetch, d, token, maxFrameBytes, reconnectTimeout, logEvery, prefetchBytes, stallTimeout, tlsCa);
        }

        public Options withToken(String t) {
            return new Options(prefetch, connectTimeout, t, maxFrameBytes, reconnectTimeout, logEvery, prefetchBytes, stallTimeout, tlsCa);
        }

        public Options withMaxFrameBytes(int n) {
            return new Options(prefetch, connectTimeout, token, n, reconnectTimeout, logEvery, prefetchBytes, stallTimeout, tlsCa);
        }

        public Options withReconnectTimeout(Duration d) {
            return new Options(prefetch, connectTimeout, token, maxFrameBytes, d, logEvery, prefetchBytes, stallTimeout, tlsCa);
        }

        public Options withPrefetchBytes(long n) {
            return new Options(prefetch, connectTimeout, token, maxFrameBytes, reconnectTimeout, logEvery, n, stallTimeout, tlsCa);
        }

        public Options withStallTimeout(Duration d) {
            return new Options(prefetch, connectTimeout, token, maxFrameBytes, reconnectTimeout, logEvery, prefetchBytes, d, tlsCa);
        }

        /** TLS: verify the endpoints with the CA certificate(s) of PEM file {@code ca} (null = plain TCP). */
        public Options tlsCa(Path ca) {
            return new Options(prefetch, connectTimeout, token, maxFrameBytes, reconnectTimeout, logEvery, prefetchBytes, stallTimeout, ca);
        }

        public Options withLogEvery(int n) {
            return new Options(prefetch, connectTimeout, token, maxFrameBytes, reconnectTimeout, n, prefetchBytes, stallTimeout, tlsCa);
        }
    }

    /** A message whose sampling failed on the server: carries the batch key and the server's traceback. */
    public static final class SamplingErrorException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int epoch;
        private final int batchId;

        public SamplingErrorException(int epoch, int batchId, String text) {
            super("sampling failed for epoch " + epoch + " batch " + batchId + ": " + text);
            this.epoch = epoch;
            this.batchId = batchId;
        }

        public int epoch() {
            return epoch;
        }

        public int batchId() {
            return batchId;
        }
    }


    private final Options options;
    private final EndpointRegistry registry;
    private final long deadlineNanos;
    /** The TLS context of {@link Options#tlsCa()}, or null (plain TCP). */
    private final SSLContext tls;
    private final List<EndpointConnection> connections = new ArrayList<>();
    private final LinkedBlockingQueue<ReaderEvent> events = new LinkedBlockingQueue<>();
    private final EpochOrdering order = new EpochOrdering();
    private ReaderEvent.Item peeked;
    private long received;
    private long duplicates;
    private long waitNanos;
    private volatile boolean closed;
    private Epoch currentEpoch;
    /**
     * The epoch being read, sent as FETCH max_epoch: endpoints send nothing of a later epoch, so the
     * credit window bounds what this reader holds. Epoch 0 until the flat iterator lifts it.
     */
    private volatile int epochLimit = 0;
    /** Bytes of messages received and not yet handed out or dropped (queued or parked), and the peak. */
    private final AtomicLong heldBytes = new AtomicLong();
    private final AtomicLong peakHeldBytes = new AtomicLong();

    private ChannelReader(Options options, EndpointRegistry registry) {
        this.options = options;
        this.registry = registry;
        this.deadlineNanos = System.nanoTime() + options.connectTimeout().toNanos();
        this.tls = options.tlsCa() == null ? null : ChannelTls.clientContext(options.tlsCa(), "ChannelReader option tlsCa");
    }

    /**
     * Reads the endpoints from registry directory {@code dir}: waits (up to the connect timeout) for
     * the first file to learn the number of endpoints, then connects to each as its file appears.
     */
    public static ChannelReader fromRegistry(Path dir, Options options) throws IOException {
        ChannelReader r = new ChannelReader(options, new EndpointRegistry(dir));
        int n = r.awaitNumEndpoints();
        for (int i = 0; i < n; i++) {
            r.connections.add(new EndpointConnection(r, i, null));
        }
        r.start();
        return r;
    }

    /** Connects to the given endpoints (in index order); no registry, so the token must be given. */
    public static ChannelReader fromEndpoints(List<InetSocketAddress> endpoints, Options options) {
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("no channel endpoints given");
        }
        ChannelReader r = new ChannelReader(options, null);
        for (int i = 0; i < endpoints.size(); i++) {
            r.connections.add(new EndpointConnection(r, i, endpoints.get(i)));
        }
        r.start();
        return r;
    }

    /** Parses {@code host:port[,host:port...]} (IPv6 as {@code [addr]:port}). */
    public static List<InetSocketAddress> parseEndpoints(String list) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String part : list.split(",")) {
            String s = part.trim();
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || colon == s.length() - 1) {
                throw new IllegalArgumentException("endpoint \"" + s + "\" is not host:port");
            }
            String host = s.substring(0, colon).replaceAll("^\\[|\\]$", "");
            int port;
            try {
                port = Integer.parseInt(s.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("endpoint \"" + s + "\" has no numeric port");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("endpoint \"" + s + "\" port out of range");
            }
            out.add(InetSocketAddress.createUnresolved(host, port));
        }
        return out;
    }

    private int awaitNumEndpoints() throws IOException {
        while (true) {
            List<EndpointInfo> all = registry.readAll();
            if (!all.isEmpty()) {
                return all.get(0).numEndpoints();
            }
            if (System.nanoTime() > deadlineNanos) {
                throw new IOException("no channel endpoint registered in " + registry.dir() + " within " + options.connectTimeout());
            }
            sleep();
        }
    }

    private void start() {
        for (EndpointConnection c : connections) {
            c.thread.start();
        }
    }

    /** Messages handed out so far (sampling errors included). */
    public long received() {
        return received;
    }

    /** Re-sent copies dropped so far. */
    public long duplicates() {
        return duplicates;
    }

    /** Bytes of messages received and not yet handed out (queued, or parked for a later epoch). */
    public long heldBytes() {
        return heldBytes.get();
    }

    /** The largest {@link #heldBytes()} so far: at most about the credit windows of all endpoints. */
    public long peakHeldBytes() {
        return peakHeldBytes.get();
    }

    /** Credits granted on the current connections, all endpoints together: at most this many messages come. */
    long granted() {
        return connections.stream().mapToLong(c -> c.credits.granted()).sum();
    }

    /** Number of endpoints this reader pulls from. */
    public int numEndpoints() {
        return connections.size();
    }

    // ---- what the endpoint connections use ----------------------------------------------------

    Options options() {
        return options;
    }

    /** The registry, or null when the endpoints were given as addresses. */
    EndpointRegistry registry() {
        return registry;
    }

    /** Until when the first connections may take. */
    long deadlineNanos() {
        return deadlineNanos;
    }

    boolean isClosed() {
        return closed;
    }

    /** The TLS context to connect with, or null (plain TCP). */
    SSLContext tls() {
        return tls;
    }

    int epochLimit() {
        return epochLimit;
    }

    /** A reading thread hands the consumer an event. */
    void post(ReaderEvent e) {
        events.add(e);
    }

    /** A message of {@code bytes} was received and is held until handed out or dropped. */
    void countHeld(int bytes) {
        long held = heldBytes.addAndGet(bytes);
        peakHeldBytes.accumulateAndGet(held, Math::max);
    }

    // ---- flat iteration ----------------------------------------------------------------------

    /** Blocks until a message is available (true) or every endpoint is done (false). */
    @Override
    public boolean hasNext() {
        if (peeked != null) {
            return true;
        }
        limitEpochs(ChannelProtocol.ANY_EPOCH);
        while (order.hasParked()) {
            ReaderEvent.Item item = order.pollAnyParked();
            if (item != null && accept(item)) {
                peeked = item;
                return true;
            }
        }
        while (!allDone()) {
            ReaderEvent.Item item = take();
            if (item != null && accept(item)) {
                peeked = item;
                return true;
            }
        }
        return false;
    }

    @Override
    public EncodedMessage next() {
        if (!hasNext()) {
            throw new NoSuchElementException("every channel endpoint sent END_OF_STREAM");
        }
        ReaderEvent.Item item = peeked;
        peeked = null;
        return handOut(item);
    }

    // ---- epoch iteration ---------------------------------------------------------------------

    /** The messages of one epoch, in arrival order. */
    public final class Epoch implements Iterator<EncodedMessage> {
        private final int epoch;
        private ReaderEvent.Item next;
        private boolean over;

        private Epoch(int epoch) {
            this.epoch = epoch;
        }

        /** The epoch number. */
        public int epoch() {
            return epoch;
        }

        /** Blocks until a message of this epoch is available (true) or every endpoint ended it (false). */
        @Override
        public boolean hasNext() {
            if (next != null) {
                return true;
            }
            if (over) {
                return false;
            }
            ReaderEvent.Item early;
            while ((early = order.pollParked(epoch)) != null) {
                if (accept(early)) {
                    next = early;
                    return true;
                }
            }
            while (!epochOver(epoch)) {
                ReaderEvent.Item item = take();
                if (item == null || !accept(item)) {
                    continue;
                }
                if (item.sample().epoch > epoch) {
                    order.park(item);
                    continue;
                }
                next = item;
                return true;
            }
            over = true;
            return false;
        }

        @Override
        public EncodedMessage next() {
            if (!hasNext()) {
                throw new NoSuchElementException("epoch " + epoch + " is over");
            }
            ReaderEvent.Item item = next;
            next = null;
            return handOut(item);
        }
    }

    /**
     * The next epoch to read (0 first), or null once every endpoint ended its stream and nothing is
     * left. Messages of the previous epoch not yet taken are dropped (with a warning).
     */
    public Epoch nextEpoch() {
        int number = 0;
        if (currentEpoch != null) {
            int left = 0;
            while (currentEpoch.hasNext()) {
                currentEpoch.next();
                left++;
            }
            if (left > 0) {
                LOG.warn("channel reader: skipped {} messages of epoch {} not taken before the next epoch", left, currentEpoch.epoch);
            }
            number = currentEpoch.epoch + 1;
            if (allDone() && !order.hasParked() && events.isEmpty()) {
                return null;
            }
        }
        currentEpoch = new Epoch(number);
        limitEpochs(number);
        return currentEpoch;
    }

    /** Tells every endpoint the epoch now read (its FETCH max_epoch), if it changed. */
    private void limitEpochs(int epoch) {
        if (epochLimit != epoch) {
            epochLimit = epoch;
            for (EndpointConnection c : connections) {
                c.sendEpochLimit();
            }
        }
    }

    // ---- common ------------------------------------------------------------------------------

    private boolean allDone() {
        for (EndpointConnection c : connections) {
            if (!c.done) {
                return false;
            }
        }
        return true;
    }

    private boolean epochOver(int epoch) {
        for (EndpointConnection c : connections) {
            if (!c.done && c.endedEpoch < epoch) {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes one event; returns an item, or null after handling a control event.
     *
     * @throws UncheckedIOException when an endpoint failed
     */
    private ReaderEvent.Item take() {
        if (closed) {
            throw new IllegalStateException("channel reader is closed");
        }
        ReaderEvent e;
        long t0 = System.nanoTime();
        try {
            e = events.take();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for channel messages", ex);
        } finally {
            waitNanos += System.nanoTime() - t0;
        }
        if (e instanceof ReaderEvent.Item item) {
            return item;
        }
        if (e instanceof ReaderEvent.EpochEnd end) {
            EndpointConnection c = end.from();
            if (end.epoch() > c.endedEpoch) {
                c.endedEpoch = end.epoch();
                updateClosedEpoch();
            }
        } else if (e instanceof ReaderEvent.Done d) {
            d.from().done = true;
            updateClosedEpoch();
        } else {
            ReaderEvent.Failed f = (ReaderEvent.Failed) e;
            String message = f.error().getMessage();
            if (f.error() instanceof SocketTimeoutException) {
                message = "channel endpoints did not answer within " + options.connectTimeout() + ": " + connections.stream()
                        .filter(c -> !c.welcomed).map(EndpointConnection::describe).collect(Collectors.joining(", "));
            }
            close();
            throw new UncheckedIOException(message, f.error());
        }
        return null;
    }

    private void updateClosedEpoch() {
        int min = Integer.MAX_VALUE;
        for (EndpointConnection c : connections) {
            if (!c.done) {
                min = Math.min(min, c.endedEpoch);
            }
        }
        if (min == Integer.MAX_VALUE) {
            return; // every endpoint is done: keep the de-dup sets for the remaining parked items
        }
        order.closeUpTo(min);
    }

    /**
     * Whether {@code item} is news: false for a message of a dropped connection (the endpoint sends
     * it again) and for a copy of a message already handed out (acknowledged again, and dropped).
     */
    private boolean accept(ReaderEvent.Item item) {
        EndpointConnection c = item.from();
        EncodedMessage s = item.sample();
        if (item.generation() != c.generation) {
            heldBytes.addAndGet(-s.payload.length);
            return false; // unacknowledged: the endpoint sends it again on the new connection
        }
        boolean copy = order.isCopy(s);
        if (copy) {
            duplicates++;
            LOG.debug("channel reader: dropped a copy of epoch {} batch {} from {}", s.epoch, s.batchId, c.describe());
            heldBytes.addAndGet(-s.payload.length);
            c.giveBack(item.seq(), item.session(), -1);
            return false;
        }
        return true;
    }

    private EncodedMessage handOut(ReaderEvent.Item item) {
        EncodedMessage s = item.sample();
        order.handedOut(s);
        received++;
        heldBytes.addAndGet(-s.payload.length);
        item.from().giveBack(item.seq(), item.session(), s.payload.length); // acknowledge, ask for one more
        if (options.logEvery() > 0 && received % options.logEvery() == 0) {
            int depth = events.size();
            int park = order.parkedCount();
            LOG.info("channel reader: {} messages received ({} copies dropped), waited {} ms in total, queue depth {} (+{} parked), "
                    + "{} bytes held (peak {})", received, duplicates, waitNanos / 1_000_000, depth, park, heldBytes.get(), peakHeldBytes.get());
        }
        if (SamplingErrors.isSamplingError(s.payload)) {
            throw new SamplingErrorException(s.epoch, s.batchId, SamplingErrors.text(s.payload));
        }
        return s;
    }

    @Override
    public void close() {
        closed = true;
        for (EndpointConnection c : connections) {
            c.close();
        }
    }

    static void sleep() {
        try {
            Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The server refused or broke the protocol: no reconnect. */
    static class ServerError extends IOException {
        private static final long serialVersionUID = 1L;

        ServerError(String message) {
            super(message);
        }
    }

    /**
     * A connected endpoint sent nothing, not even HEARTBEAT, for the stall timeout (the cause of the
     * {@link UncheckedIOException} thrown by {@code hasNext()}): its process is stopped or hung.
     */
    public static final class StalledEndpointException extends ServerError {
        private static final long serialVersionUID = 1L;

        StalledEndpointException(String message) {
            super(message);
        }
    }
}
