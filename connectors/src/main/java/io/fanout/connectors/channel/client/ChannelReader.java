package io.fanout.connectors.channel.client;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameReader;
import io.fanout.connectors.channel.protocol.FrameWriter;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.message.EncodedSample;
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
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pulls messages from every endpoint of a channel (connectors/CHANNEL.md), found through the
 * registry directory or given as host:port addresses: a blocking iterator that ends when every
 * endpoint sent END_OF_STREAM (or is {@code finished} in the registry).
 *
 * <p>One daemon thread per endpoint reads frames; each endpoint is granted {@code prefetch} credits
 * up front and one more whenever {@link #next()} hands out one of its messages, so at most
 * {@code prefetch} messages per endpoint wait in this reader. Failures (an endpoint that does not
 * answer within the connect timeout, an ERROR frame, a connection lost before END_OF_STREAM) are
 * thrown from {@link #hasNext()} as {@link UncheckedIOException}. Not thread-safe: one consumer thread.
 */
public final class ChannelReader implements Iterator<EncodedSample>, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelReader.class);
    private static final long POLL_MS = 50;

    /**
     * Reader settings.
     *
     * @param prefetch credits granted to each endpoint up front (at least 1)
     * @param connectTimeout how long to wait for registry files and for endpoints to answer
     * @param token access token sent in HELLO (may be empty)
     * @param maxFrameBytes largest accepted frame
     */
    public record Options(int prefetch, Duration connectTimeout, String token, int maxFrameBytes) {
        public Options {
            if (prefetch < 1) {
                throw new IllegalArgumentException("prefetch must be at least 1, got " + prefetch);
            }
            if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
                throw new IllegalArgumentException("connect timeout must be positive, got " + connectTimeout);
            }
            token = token == null ? "" : token;
            if (maxFrameBytes < 64) {
                throw new IllegalArgumentException("maxFrameBytes must be at least 64, got " + maxFrameBytes);
            }
        }

        /** prefetch 4, connect timeout 60 s, no token, 256 MiB frames. */
        public static Options defaults() {
            return new Options(4, Duration.ofSeconds(60), "", ChannelProtocol.DEFAULT_MAX_FRAME_BYTES);
        }

        public Options withPrefetch(int n) {
            return new Options(n, connectTimeout, token, maxFrameBytes);
        }

        public Options withConnectTimeout(Duration d) {
            return new Options(prefetch, d, token, maxFrameBytes);
        }

        public Options withToken(String t) {
            return new Options(prefetch, connectTimeout, t, maxFrameBytes);
        }

        public Options withMaxFrameBytes(int n) {
            return new Options(prefetch, connectTimeout, token, n);
        }
    }

    private final Options options;
    private final EndpointRegistry registry;
    private final long deadlineNanos;
    private final List<Connection> connections = new ArrayList<>();
    private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private int done;
    private Event.Item peeked;
    private long received;
    private volatile boolean closed;

    private sealed interface Event permits Event.Item, Event.Done, Event.Failed {
        record Item(Connection from, EncodedSample sample) implements Event {}

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

    /** Connects to the given endpoints (in index order); no registry. */
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

    /** Messages handed out by {@link #next()} so far. */
    public long received() {
        return received;
    }

    /** Number of endpoints this reader pulls from. */
    public int numEndpoints() {
        return connections.size();
    }

    /** Blocks until a message is available (true) or every endpoint is done (false). */
    @Override
    public boolean hasNext() {
        if (peeked != null) {
            return true;
        }
        while (done < connections.size()) {
            if (closed) {
                throw new IllegalStateException("channel reader is closed");
            }
            Event e;
            try {
                e = events.take();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for channel messages", ex);
            }
            if (e instanceof Event.Item item) {
                peeked = item;
                return true;
            } else if (e instanceof Event.Done) {
                done++;
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
        received++;
        item.from().grant(1);
        return item.sample();
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

    /** One endpoint: its socket and reading thread. */
    private final class Connection {
        final int index;
        final Thread thread;
        volatile InetSocketAddress address;
        volatile boolean welcomed;
        volatile Socket socket;
        FrameWriter writer;

        Connection(int index, InetSocketAddress address) {
            this.index = index;
            this.address = address;
            this.thread = new Thread(this::run, "fanout-channel-reader-" + index);
            thread.setDaemon(true);
        }

        String describe() {
            return "endpoint " + index + " (" + (address == null ? "no registry file" : address.getHostString() + ":" + address.getPort()) + ")";
        }

        private long remainingMillis() {
            return (deadlineNanos - System.nanoTime()) / 1_000_000;
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
                if (!connect()) {
                    events.add(new Event.Done(this));
                    return;
                }
                stream();
            } catch (IOException e) {
                if (!closed) {
                    events.add(new Event.Failed(this, e));
                }
            } finally {
                close();
            }
        }

        /** Connects and handshakes; false if the endpoint turned out finished. */
        private boolean connect() throws IOException {
            while (true) {
                if (registry != null) {
                    Optional<EndpointInfo> info = registered();
                    if (info.isPresent()) {
                        if (info.get().state() == EndpointInfo.State.FINISHED) {
                            LOG.info("channel {} is finished in the registry", describe());
                            return false;
                        }
                        address = new InetSocketAddress(info.get().host(), info.get().port());
                    }
                }
                long remaining = remainingMillis();
                if (remaining <= 0) {
                    throw new SocketTimeoutException("channel " + describe() + " did not answer within " + options.connectTimeout());
                }
                if (address != null) {
                    Socket s = new Socket();
                    try {
                        InetSocketAddress target = address.isUnresolved() ? new InetSocketAddress(address.getHostString(), address.getPort()) : address;
                        s.connect(target, (int) Math.max(1, Math.min(remaining, Integer.MAX_VALUE)));
                        socket = s;
                        if (closed) {
                            return false;
                        }
                        s.setSoTimeout((int) Math.max(1, Math.min(remainingMillis(), Integer.MAX_VALUE)));
                        boolean ok = handshake(s);
                        s.setSoTimeout(0);
                        return ok;
                    } catch (ConnectException | SocketTimeoutException e) {
                        s.close();
                        // Refused: an endpoint that finished and closed is done, not an error.
                        if (finishedInRegistry()) {
                            LOG.info("channel {} refused the connection and is finished in the registry", describe());
                            return false;
                        }
                    }
                }
                sleep();
                if (closed) {
                    return false;
                }
            }
        }

        private boolean handshake(Socket s) throws IOException {
            s.setTcpNoDelay(true);
            writer = new FrameWriter(new BufferedOutputStream(s.getOutputStream()));
            reader = new FrameReader(new BufferedInputStream(s.getInputStream(), 1 << 16), options.maxFrameBytes());
            send(new Frame.Hello(ChannelProtocol.VERSION, options.token()));
            Frame f = reader.read();
            if (f instanceof Frame.Welcome w) {
                if (w.version() != ChannelProtocol.VERSION) {
                    throw new IOException("channel " + describe() + " speaks protocol version " + w.version() + ", this reader " + ChannelProtocol.VERSION);
                }
                welcomed = true;
                LOG.info("channel {} connected: endpoint {} of {}", describe(), w.endpointIndex(), w.numEndpoints());
                send(new Frame.Fetch(options.prefetch()));
                return true;
            }
            if (f instanceof Frame.Error err) {
                throw new IOException("channel " + describe() + " refused the handshake: " + err.text());
            }
            throw new IOException("channel " + describe() + " answered HELLO with " + (f == null ? "end of stream" : f.type()));
        }

        FrameReader reader;

        private void stream() throws IOException {
            while (true) {
                Frame f = reader.read();
                if (f instanceof Frame.Message m) {
                    events.add(new Event.Item(this, new EncodedSample(m.epoch(), m.batchId(), m.numBatches(), m.payload())));
                } else if (f instanceof Frame.EndOfStream) {
                    LOG.info("channel {} sent END_OF_STREAM", describe());
                    events.add(new Event.Done(this));
                    return;
                } else if (f instanceof Frame.EndOfEpoch) {
                    continue; // reserved in v1
                } else if (f instanceof Frame.Error err) {
                    throw new IOException("channel " + describe() + " sent ERROR: " + err.text());
                } else if (f == null) {
                    if (finishedInRegistry()) {
                        LOG.warn("channel {} closed without END_OF_STREAM but is finished in the registry", describe());
                        events.add(new Event.Done(this));
                        return;
                    }
                    throw new IOException("channel " + describe() + " closed the connection before END_OF_STREAM");
                } else {
                    throw new IOException("channel " + describe() + " sent an unexpected " + f.type() + " frame");
                }
            }
        }

        private synchronized void send(Frame f) throws IOException {
            writer.write(f);
        }

        /** One more credit after the consumer took a message; a closed connection ignores it. */
        void grant(int n) {
            try {
                if (socket != null && !socket.isClosed() && !socket.isOutputShutdown()) {
                    send(new Frame.Fetch(n));
                }
            } catch (IOException e) {
                // The endpoint already closed (e.g. after END_OF_STREAM): credits no longer matter.
            }
        }

        void close() {
            Socket s = socket;
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }
}
