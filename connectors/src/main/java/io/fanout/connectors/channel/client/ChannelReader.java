package io.fanout.connectors.channel.client;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameReader;
import io.fanout.connectors.channel.protocol.FrameType;
import io.fanout.connectors.channel.protocol.FrameWriter;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.message.EncodedSample;
import io.fanout.connectors.message.SamplingErrors;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pulls messages from every endpoint of a channel (connectors/CHANNEL.md, protocol v3), found
 * through the registry directory or given as host:port addresses.
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
 * in {@code prefetchBytes} (as the Python client does; CHANNEL.md), and shrinks back as they grow. A
 * lost connection is re-established (re-reading the registry, where a
 * restarted endpoint writes its new port) within the reconnect timeout, resuming the session so no
 * message is lost. Failures are thrown from {@code hasNext()} as {@link UncheckedIOException}: an
 * endpoint that does not answer within the connect timeout (naming every such endpoint), an ERROR
 * frame (with the server's text), a connection that cannot be re-established, a connected endpoint
 * that sends nothing, not even HEARTBEAT, for the stall timeout ({@link StalledEndpointException},
 * naming the last frame it sent and when). A sampling error
 * message is thrown as {@link SamplingErrorException}; reading may go on after it. Not thread-safe:
 * one consumer thread.
 */
public final class ChannelReader implements Iterator<EncodedSample>, AutoCloseable {
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
     */
    public record Options(int prefetch, Duration connectTimeout, String token, int maxFrameBytes, Duration reconnectTimeout,
            int logEvery, long prefetchBytes, Duration stallTimeout) {
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
                    DEFAULT_PREFETCH_BYTES, DEFAULT_STALL_TIMEOUT);
        }

        public Options withPrefetch(int n) {
            return new Options(n, connectTimeout, token, maxFrameBytes, reconnectTimeout, logEvery, prefetchBytes, stallTimeout);
        }

        public Options withConnectTimeout(Duration d) {
            return new Options(prefetch, d, token, maxFrameBytes, reconnectTimeout, logEvery, prefetchBytes, stallTimeout);
        }

        public Options withToken(String t) {
            return new Options(prefetch, connectTimeout, t, maxFrameBytes, reconnectTimeout, logEvery, prefetchBytes, stallTimeout);
        }

        public Options withMaxFrameBytes(int n) {
            return new Options(prefetch, connectTimeout, token, n, reconnectTimeout, logEvery, prefetchBytes, stallTimeout);
        }

        public Options withReconnectTimeout(Duration d) {
            return new Options(prefetch, connectTimeout, token, maxFrameBytes, d, logEvery, prefetchBytes, stallTimeout);
        }

        public Options withPrefetchBytes(long n) {
            return new Options(prefetch, connectTimeout, token, maxFrameBytes, reconnectTimeout, logEvery, n, stallTimeout);
        }

        public Options withStallTimeout(Duration d) {
            return new Options(prefetch, connectTimeout, token, maxFrameBytes, reconnectTimeout, logEvery, prefetchBytes, d);
        }

        public Options withLogEvery(int n) {
            return new Options(prefetch, connectTimeout, token, maxFrameBytes, reconnectTimeout, n, prefetchBytes, stallTimeout);
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
    private final List<Connection> connections = new ArrayList<>();
    private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    /** Items of later epochs that arrived while reading an epoch, by epoch. */
    private final TreeMap<Integer, ArrayDeque<Event.Item>> parked = new TreeMap<>();
    /** (batch ids) handed out per epoch still open; epochs every endpoint ended are pruned. */
    private final Map<Integer, Set<Integer>> seen = new HashMap<>();
    /** Every epoch up to this one is over at every endpoint: anything of it arriving now is a copy. */
    private int closedEpoch = -1;
    private Event.Item peeked;
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

    private sealed interface Event permits Event.Item, Event.EpochEnd, Event.Done, Event.Failed {
        record Item(Connection from, int generation, long session, long seq, EncodedSample sample) implements Event {}

        record EpochEnd(Connection from, int epoch) implements Event {}

        record Done(Connection from) implements Event {}

        record Failed(Connection from, IOException error) implements Event {}
    }

    private ChannelReader(Options options, EndpointRegistry registry) {
        this.options = options;
        this.registry = registry;
        this.deadlineNanos = System.nanoTime() + options.connectTimeout().toNanos();
    }

    /**
     * Reads the endpoints from registry directory {@code dir}: waits (up to the connect timeout) for
     * the first file to learn the number of endpoints, then connects to each as its file appears.
     */
    public static ChannelReader fromRegistry(Path dir, Options options) throws IOException {
        ChannelReader r = new ChannelReader(options, new EndpointRegistry(dir));
        int n = r.awaitNumEndpoints();
        for (int i = 0; i < n; i++) {
            r.connections.add(r.new Connection(i, null));
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
            r.connections.add(r.new Connection(i, endpoints.get(i)));
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
        for (Connection c : connections) {
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

    /** Number of endpoints this reader pulls from. */
    public int numEndpoints() {
        return connections.size();
    }

    // ---- flat iteration ----------------------------------------------------------------------

    /** Blocks until a message is available (true) or every endpoint is done (false). */
    @Override
    public boolean hasNext() {
        if (peeked != null) {
            return true;
        }
        limitEpochs(ChannelProtocol.ANY_EPOCH);
        while (!parked.isEmpty()) {
            Event.Item item = parked.firstEntry().getValue().poll();
            if (parked.firstEntry().getValue().isEmpty()) {
                parked.pollFirstEntry();
            }
            if (accept(item)) {
                peeked = item;
                return true;
            }
        }
        while (!allDone()) {
            Event.Item item = take();
            if (item != null && accept(item)) {
                peeked = item;
                return true;
            }
        }
        return false;
    }

    @Override
    public EncodedSample next() {
        if (!hasNext()) {
            throw new NoSuchElementException("every channel endpoint sent END_OF_STREAM");
        }
        Event.Item item = peeked;
        peeked = null;
        return handOut(item);
    }

    // ---- epoch iteration ---------------------------------------------------------------------

    /** The messages of one epoch, in arrival order. */
    public final class Epoch implements Iterator<EncodedSample> {
        private final int epoch;
        private Event.Item next;
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
            ArrayDeque<Event.Item> early = parked.get(epoch);
            while (early != null && !early.isEmpty()) {
                Event.Item item = early.poll();
                if (accept(item)) {
                    next = item;
                    return true;
                }
            }
            parked.remove(epoch);
            while (!epochOver(epoch)) {
                Event.Item item = take();
                if (item == null || !accept(item)) {
                    continue;
                }
                if (item.sample().epoch > epoch) {
                    park(item);
                    continue;
                }
                next = item;
                return true;
            }
            over = true;
            return false;
        }

        @Override
        public EncodedSample next() {
            if (!hasNext()) {
                throw new NoSuchElementException("epoch " + epoch + " is over");
            }
            Event.Item item = next;
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
            if (allDone() && parked.isEmpty() && events.isEmpty()) {
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
            for (Connection c : connections) {
                c.sendEpochLimit();
            }
        }
    }

    // ---- common ------------------------------------------------------------------------------

    private boolean allDone() {
        for (Connection c : connections) {
            if (!c.done) {
                return false;
            }
        }
        return true;
    }

    private boolean epochOver(int epoch) {
        for (Connection c : connections) {
            if (!c.done && c.endedEpoch < epoch) {
                return false;
            }
        }
        return true;
    }

    /**
     * Holds back a message of a later epoch (from an endpoint that sent it before it learned the
     * epoch being read). Neither acknowledged nor credited until handed out: it counts against its
     * endpoint's credit window, so what this reader holds stays bounded.
     */
    private void park(Event.Item item) {
        parked.computeIfAbsent(item.sample().epoch, k -> new ArrayDeque<>()).add(item);
    }

    /**
     * Takes one event; returns an item, or null after handling a control event.
     *
     * @throws UncheckedIOException when an endpoint failed
     */
    private Event.Item take() {
        if (closed) {
            throw new IllegalStateException("channel reader is closed");
        }
        Event e;
        long t0 = System.nanoTime();
        try {
            e = events.take();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for channel messages", ex);
        } finally {
            waitNanos += System.nanoTime() - t0;
        }
        if (e instanceof Event.Item item) {
            return item;
        }
        if (e instanceof Event.EpochEnd end) {
            Connection c = end.from();
            if (end.epoch() > c.endedEpoch) {
                c.endedEpoch = end.epoch();
                updateClosedEpoch();
            }
        } else if (e instanceof Event.Done d) {
            d.from().done = true;
            updateClosedEpoch();
        } else {
            Event.Failed f = (Event.Failed) e;
            String message = f.error().getMessage();
            if (f.error() instanceof SocketTimeoutException) {
                message = "channel endpoints did not answer within " + options.connectTimeout() + ": " + connections.stream()
                        .filter(c -> !c.welcomed).map(Connection::describe).collect(Collectors.joining(", "));
            }
            close();
            throw new UncheckedIOException(message, f.error());
        }
        return null;
    }

    private void updateClosedEpoch() {
        int min = Integer.MAX_VALUE;
        for (Connection c : connections) {
            if (!c.done) {
                min = Math.min(min, c.endedEpoch);
            }
        }
        if (min == Integer.MAX_VALUE) {
            return; // every endpoint is done: keep the de-dup sets for the remaining parked items
        }
        if (min > closedEpoch) {
            int closed = min;
            closedEpoch = closed;
            seen.keySet().removeIf(epoch -> epoch <= closed);
        }
    }

    /**
     * Whether {@code item} is news: false for a message of a dropped connection (the endpoint sends
     * it again) and for a copy of a message already handed out (acknowledged again, and dropped).
     */
    private boolean accept(Event.Item item) {
        Connection c = item.from();
        EncodedSample s = item.sample();
        if (item.generation() != c.generation) {
            heldBytes.addAndGet(-s.payload.length);
            return false; // unacknowledged: the endpoint sends it again on the new connection
        }
        boolean copy = s.epoch <= closedEpoch || seen.getOrDefault(s.epoch, Set.of()).contains(s.batchId);
        if (copy) {
            duplicates++;
            LOG.debug("channel reader: dropped a copy of epoch {} batch {} from {}", s.epoch, s.batchId, c.describe());
            heldBytes.addAndGet(-s.payload.length);
            c.giveBack(item.seq(), item.session(), -1);
            return false;
        }
        return true;
    }

    private EncodedSample handOut(Event.Item item) {
        EncodedSample s = item.sample();
        seen.computeIfAbsent(s.epoch, k -> new HashSet<>()).add(s.batchId);
        received++;
        heldBytes.addAndGet(-s.payload.length);
        item.from().giveBack(item.seq(), item.session(), s.payload.length); // acknowledge, ask for one more
        if (options.logEvery() > 0 && received % options.logEvery() == 0) {
            int depth = events.size();
            int park = parked.values().stream().mapToInt(ArrayDeque::size).sum();
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
        for (Connection c : connections) {
            c.close();
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(POLL_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One endpoint: its socket, session and reading thread. */
    private final class Connection {
        final int index;
        final Thread thread;
        volatile InetSocketAddress address;
        volatile boolean welcomed;
        volatile Socket socket;
        /** Bumped on every reconnect: items of an older generation are dropped (the endpoint resends them). */
        volatile int generation;
        volatile long session = ChannelProtocol.NEW_SESSION;
        /**
         * The last frame read from the endpoint (its type, epoch and batch id, not the frame: no
         * payload kept alive) and when (System.nanoTime); the reading thread's own.
         */
        private FrameType lastFrameType;
        private int lastEpoch;
        private int lastBatchId;
        private long lastFrameNanos;
        /** Consumer-side view: END_OF_EPOCH received up to, END_OF_STREAM (or finished) seen. */
        int endedEpoch = -1;
        boolean done;
        FrameWriter writer;
        FrameReader reader;
        String token = options.token();
        /** Credit window (guarded by this): messages the endpoint may have ahead of consumption. */
        private int window = options.prefetch();
        /** Moving average of the sizes of its handed-out messages (guarded by this). */
        private double avgBytes;
        /** Credits not returned yet because the window shrank (guarded by this). */
        private int withhold;
        /**
         * Credits granted on the current connection, counted before each FETCH goes out (so the reading
         * thread never sees a MESSAGE before its credit); a server sending more is broken, not slow.
         */
        private final AtomicLong granted = new AtomicLong();
        /** Handshake done on the current socket: the consumer's FETCH frames may go out (guarded by this). */
        private boolean open;

        Connection(int index, InetSocketAddress address) {
            this.index = index;
            this.address = address;
            this.thread = new Thread(this::run, "fanout-channel-reader-" + index);
            thread.setDaemon(true);
        }

        String describe() {
            return "endpoint " + index + " (" + (address == null ? "no registry file" : address.getHostString() + ":" + address.getPort()) + ")";
        }

        /** Registry state of this endpoint, or empty without registry / file. */
        private Optional<EndpointInfo> registered() throws IOException {
            return registry == null ? Optional.empty() : registry.read(index);
        }

        private boolean finishedInRegistry() throws IOException {
            return registered().map(i -> i.state() == EndpointInfo.State.FINISHED).orElse(false);
        }

        void run() {
            try {
                if (!connect(deadlineNanos, true)) {
                    events.add(new Event.Done(this));
                    return;
                }
                while (true) {
                    try {
                        if (stream()) {
                            return;
                        }
                    } catch (ServerError e) {
                        throw e;
                    } catch (IOException e) {
                        if (closed) {
                            return;
                        }
                        LOG.warn("channel {} connection lost ({}); reconnecting for up to {}", describe(), e.getMessage(),
                                options.reconnectTimeout());
                    }
                    synchronized (this) {
                        open = false; // no FETCH of the consumer on the next socket before its HELLO
                    }
                    generation++;
                    closeSocket();
                    long deadline = System.nanoTime() + options.reconnectTimeout().toNanos();
                    try {
                        if (!connect(deadline, false)) {
                            events.add(new Event.Done(this));
                            return;
                        }
                    } catch (SocketTimeoutException e) {
                        throw new IOException("channel " + describe() + ": connection lost and not re-established within "
                                + options.reconnectTimeout());
                    }
                }
            } catch (IOException e) {
                if (!closed) {
                    events.add(new Event.Failed(this, e));
                }
            } finally {
                closeSocket();
            }
        }

        /** Connects and handshakes; false if the endpoint turned out finished. */
        private boolean connect(long deadline, boolean first) throws IOException {
            while (true) {
                if (registry != null) {
                    Optional<EndpointInfo> info = registered();
                    if (info.isPresent()) {
                        if (info.get().state() == EndpointInfo.State.FINISHED) {
                            LOG.info("channel {} is finished in the registry", describe());
                            return false;
                        }
                        address = new InetSocketAddress(info.get().host(), info.get().port());
                        if (options.token().isEmpty() && info.get().token() != null) {
                            token = info.get().token();
                        }
                    }
                }
                long remaining = (deadline - System.nanoTime()) / 1_000_000;
                if (remaining <= 0) {
                    throw new SocketTimeoutException("channel " + describe() + " did not answer within "
                            + (first ? options.connectTimeout() : options.reconnectTimeout()));
                }
                if (address != null) {
                    Socket s = new Socket();
                    try {
                        InetSocketAddress target = address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
                        s.connect(target, (int) Math.max(1, Math.min(remaining, 2_000)));
                        socket = s;
                        if (closed) {
                            return false;
                        }
                        s.setSoTimeout((int) Math.max(1, Math.min(remaining, Integer.MAX_VALUE)));
                        handshake(s);
                        // From now on a read that waits longer than the stall timeout means the
                        // endpoint stopped: a live one sends at least HEARTBEAT every few seconds.
                        s.setSoTimeout((int) options.stallTimeout().toMillis());
                        lastFrameType = FrameType.WELCOME;
                        lastFrameNanos = System.nanoTime();
                        return true;
                    } catch (ConnectException | SocketTimeoutException | java.io.EOFException e) {
                        s.close();
                        // Refused: an endpoint that finished and closed is done, not an error.
                        if (finishedInRegistry()) {
                            LOG.info("channel {} refused the connection and is finished in the registry", describe());
                            return false;
                        }
                    } catch (java.net.SocketException e) {
                        s.close(); // reset while the endpoint restarts: try again
                    }
                }
                sleep();
                if (closed) {
                    return false;
                }
            }
        }

        private void handshake(Socket s) throws IOException {
            s.setTcpNoDelay(true);
            writer = new FrameWriter(new BufferedOutputStream(s.getOutputStream()));
            reader = new FrameReader(new BufferedInputStream(s.getInputStream(), 1 << 16), options.maxFrameBytes());
            send(new Frame.Hello(ChannelProtocol.VERSION, token, session));
            Frame f = reader.read();
            if (f instanceof Frame.Welcome w) {
                if (w.version() != ChannelProtocol.VERSION) {
                    throw new ServerError("channel " + describe() + " speaks protocol version " + w.version() + ", this reader "
                            + ChannelProtocol.VERSION);
                }
                boolean resumedWanted = session != ChannelProtocol.NEW_SESSION;
                session = w.sessionId();
                welcomed = true;
                LOG.info("channel {} connected: endpoint {} of {}, session {}{}", describe(), w.endpointIndex(), w.numEndpoints(),
                        Long.toHexString(session), resumedWanted ? (w.resumed() ? " resumed" : " (new: the old one is gone)") : "");
                synchronized (this) {
                    withhold = 0; // a new connection's credits start from nothing: the whole window
                    granted.set(window);
                    send(new Frame.Fetch(window, 0, epochLimit));
                    open = true;
                }
                return;
            }
            if (f instanceof Frame.Error err) {
                throw new ServerError("channel " + describe() + " refused the handshake: " + err.text());
            }
            throw new ServerError("channel " + describe() + " answered HELLO with " + (f == null ? "end of stream" : f.type()));
        }

        /**
         * Reads frames until END_OF_STREAM (true) or a lost connection (IOException); a stall
         * (nothing for the stall timeout) is a {@link StalledEndpointException}, not retried.
         */
        private boolean stream() throws IOException {
            int gen = generation;
            long sess = session;
            long received = 0;
            while (true) {
                Frame f;
                try {
                    f = reader.read();
                } catch (SocketTimeoutException e) {
                    throw stalled();
                }
                lastFrameNanos = System.nanoTime();
                if (f == null) {
                    lastFrameType = null;
                } else if (f instanceof Frame.Heartbeat) {
                    lastFrameType = FrameType.HEARTBEAT;
                    continue;
                } else {
                    lastFrameType = f.type();
                    lastEpoch = f instanceof Frame.Message m ? m.epoch() : f instanceof Frame.EndOfEpoch e ? e.epoch() : 0;
                    lastBatchId = f instanceof Frame.Message m ? m.batchId() : 0;
                }
                if (f instanceof Frame.Message m) {
                    if (++received > granted.get()) {
                        throw new ServerError("channel " + describe() + " sent MESSAGE " + received + " but only "
                                + granted.get() + " credits were granted (protocol error)");
                    }
                    long held = heldBytes.addAndGet(m.payload().length);
                    peakHeldBytes.accumulateAndGet(held, Math::max);
                    events.add(new Event.Item(this, gen, sess, m.seq(),
                            new EncodedSample(m.epoch(), m.batchId(), m.numBatches(), m.payload())));
                } else if (f instanceof Frame.EndOfEpoch e) {
                    LOG.info("channel {} end of epoch {}", describe(), e.epoch());
                    events.add(new Event.EpochEnd(this, e.epoch()));
                } else if (f instanceof Frame.EndOfStream) {
                    LOG.info("channel {} sent END_OF_STREAM", describe());
                    events.add(new Event.Done(this));
                    return true;
                } else if (f instanceof Frame.Error err) {
                    throw new ServerError("channel " + describe() + " sent ERROR: " + err.text());
                } else if (f == null) {
                    if (finishedInRegistry()) {
                        LOG.warn("channel {} closed without END_OF_STREAM but is finished in the registry", describe());
                        events.add(new Event.Done(this));
                        return true;
                    }
                    throw new IOException("channel " + describe() + " closed the connection before END_OF_STREAM");
                } else {
                    throw new ServerError("channel " + describe() + " sent an unexpected " + f.type() + " frame");
                }
            }
        }

        private synchronized void send(Frame f) throws IOException {
            writer.write(f);
        }

        private StalledEndpointException stalled() {
            double ago = (System.nanoTime() - lastFrameNanos) / 1e9;
            String lastFrame = lastFrameType == FrameType.MESSAGE ? "MESSAGE (epoch " + lastEpoch + ", batch " + lastBatchId + ")"
                    : lastFrameType == FrameType.END_OF_EPOCH ? "END_OF_EPOCH " + lastEpoch : String.valueOf(lastFrameType);
            return new StalledEndpointException(String.format(java.util.Locale.ROOT,
                    "channel %s sent nothing for %.1f s (stall timeout %s; a live endpoint sends HEARTBEAT every "
                            + "fanout.channel.heartbeat-interval): the last frame it sent was %s, %.1f s ago",
                    describe(), ago, options.stallTimeout(), lastFrame, ago));
        }

        /**
         * Acknowledges {@code seq} of session {@code sess} and returns its credit, after fitting the
         * window to a handed-out message of {@code bytes} ({@code < 0}: nothing to fit): a grown window
         * sends its extra credits along, a shrunk one keeps returning credits back until it is paid.
         * Changes under a quarter of the window are ignored, so it does not follow every wobble.
         */
        void giveBack(long seq, long sess, int bytes) {
            int credits = 1;
            synchronized (this) {
                long limit = options.prefetchBytes();
                if (bytes >= 0 && limit > 0) {
                    avgBytes = avgBytes == 0 ? bytes : avgBytes + (bytes - avgBytes) / 8;
                    int fit = (int) Math.max(options.prefetch(), Math.min(MAX_PREFETCH_WINDOW, (long) (limit / Math.max(avgBytes, 1))));
                    if (4L * Math.abs(fit - window) >= window) {
                        if (fit > window) {
                            credits += fit - window;
                        } else {
                            withhold += window - fit;
                        }
                        window = fit;
                    }
                }
                int kept = Math.min(withhold, credits);
                withhold -= kept;
                credits -= kept;
                fetch(credits, seq, sess);
            }
        }

        /**
         * Grants {@code credits} and acknowledges {@code seq} of session {@code sess}; an ack of an
         * older session is not sent (that endpoint forgot it).
         */
        void fetch(int credits, long seq, long sess) {
            long ack = sess == session ? seq : 0;
            if (credits != 0 || ack != 0) {
                write(credits, ack);
            }
        }

        /** Tells the endpoint the epoch being read (a FETCH without credits or ack). */
        void sendEpochLimit() {
            write(0, 0);
        }

        /**
         * One FETCH carrying the epoch being read. A lost connection ignores it: the reading thread
         * reconnects, and its handshake FETCH grants the window afresh with the current epoch.
         */
        private synchronized void write(int credits, long ack) {
            if (!open) {
                return;
            }
            try {
                granted.addAndGet(credits);
                send(new Frame.Fetch(credits, ack, epochLimit));
            } catch (IOException e) {
                // The connection is gone: its reader thread notices and reconnects.
            }
        }

        private void closeSocket() {
            Socket s = socket;
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        void close() {
            closeSocket();
        }
    }

    /** The server refused or broke the protocol: no reconnect. */
    private static class ServerError extends IOException {
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
