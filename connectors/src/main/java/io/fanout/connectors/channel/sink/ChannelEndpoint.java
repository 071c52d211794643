package io.fanout.connectors.channel.sink;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameReader;
import io.fanout.connectors.channel.protocol.FrameWriter;
import io.fanout.connectors.channel.protocol.ProtocolException;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.message.EncodedSample;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Paths;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One channel endpoint (connectors/CHANNEL.md), no Flink inside: a TCP server over a bounded
 * buffer of messages that pulling clients share.
 *
 * <p>Threads: one acceptor; per client one sender (handshake, then MESSAGE frames as credits and
 * messages allow) and one receiver (FETCH credits, protocol errors). Every thread is a daemon. A
 * buffered message goes to exactly one client: it leaves the buffer under the lock, and goes back to
 * the front if writing it to a client fails. {@link #put} blocks while the buffer is full.
 */
public final class ChannelEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelEndpoint.class);
    /** How long a new connection may take to send HELLO. */
    static final int HANDSHAKE_TIMEOUT_MS = 30_000;
    /** After ERROR: how long and how much unread input we discard so the peer sees ERROR, not a reset. */
    private static final int DISCARD_TIMEOUT_MS = 1_000;
    private static final long DISCARD_MAX_BYTES = 16 << 20;
    /** Client-to-server frames are small (HELLO carries at most a 64 KiB token). */
    private static final int MAX_INBOUND_FRAME_BYTES = 1 + 4 + 0xffff;

    private final ChannelSinkOptions options;
    private final int index;
    private final int numEndpoints;
    private final EndpointRegistry registry;
    private final ServerSocket server;
    private final EndpointInfo info;
    private final String name;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the buffer has room. */
    private final Condition notFull = lock.newCondition();
    /** Signalled on anything a sender or the drain waiter waits for: messages, credits, end, close. */
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<EncodedSample> buffer = new ArrayDeque<>();
    private long bufferedBytes;
    private int inFlight;
    private boolean endOfInput;
    private boolean drained;
    private boolean closed;

    private final Set<ClientSession> sessions = ConcurrentHashMap.newKeySet();
    private final AtomicInteger clientIds = new AtomicInteger();
    private final AtomicLong delivered = new AtomicLong();
    private final Thread acceptor;

    /**
     * Binds the server socket, starts accepting and registers the endpoint as {@code serving}.
     *
     * @param index this endpoint's index (sink subtask index)
     * @param numEndpoints number of endpoints (sink parallelism)
     * @param jobId written to the registry for information; may be null
     */
    public ChannelEndpoint(ChannelSinkOptions options, int index, int numEndpoints, String jobId) throws IOException {
        if (index < 0 || index >= numEndpoints) {
            throw new IllegalArgumentException("endpoint index " + index + " not in [0, " + numEndpoints + ")");
        }
        this.options = options;
        this.index = index;
        this.numEndpoints = numEndpoints;
        this.registry = new EndpointRegistry(Paths.get(options.registryDir()));
        int port = options.port() == 0 ? 0 : options.port() + index;
        if (port > 65535) {
            throw new IllegalArgumentException("option " + ChannelOptions.PORT.key() + " = " + options.port() + " plus endpoint index "
                    + index + " exceeds 65535");
        }
        ServerSocket s = new ServerSocket();
        try {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(options.bindHost(), port), 64);
        } catch (IOException e) {
            s.close();
            throw new IOException("channel endpoint " + index + " cannot listen on " + options.bindHost() + ":" + port
                    + " (option " + ChannelOptions.BIND_HOST.key() + "/" + ChannelOptions.PORT.key() + "): " + e.getMessage(), e);
        }
        this.server = s;
        this.info = new EndpointInfo(ChannelProtocol.VERSION, index, numEndpoints, advertisedHost(s), s.getLocalPort(),
                EndpointInfo.State.SERVING, jobId);
        this.name = "channel endpoint " + index + "/" + numEndpoints + " (" + info.address() + ")";
        this.acceptor = new Thread(this::acceptLoop, "fanout-channel-" + index + "-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        try {
            registry.write(info);
        } catch (IOException e) {
            close();
            throw new IOException(name + " cannot write its registry file " + registry.fileOf(index) + ": " + e.getMessage(), e);
        }
        LOG.info("{} listening, registered in {}", name, registry.fileOf(index));
    }

    private static String advertisedHost(ServerSocket s) {
        InetAddress a = s.getInetAddress();
        if (!a.isAnyLocalAddress()) {
            return a.getHostAddress();
        }
        try {
            return InetAddress.getLocalHost().getCanonicalHostName();
        } catch (IOException e) {
            return "127.0.0.1";
        }
    }

    /** The registry entry of this endpoint (state as registered at start). */
    public EndpointInfo info() {
        return info;
    }

    /** Where the server listens. */
    public InetSocketAddress address() {
        return new InetSocketAddress(info.host(), info.port());
    }

    /** Messages waiting in the buffer. */
    public int buffered() {
        lock.lock();
        try {
            return buffer.size();
        } finally {
            lock.unlock();
        }
    }

    /** Bytes of the messages waiting in the buffer. */
    public long bufferedBytes() {
        lock.lock();
        try {
            return bufferedBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Messages written to clients so far. */
    public long delivered() {
        return delivered.get();
    }

    /** Clients currently connected. */
    public int connectedClients() {
        return sessions.size();
    }

    /**
     * Appends a message, blocking while the buffer is full (count or bytes). A message larger than
     * the byte bound is accepted once the buffer is empty.
     *
     * @throws IllegalArgumentException if the message would exceed the frame limit
     * @throws IllegalStateException if the endpoint is closed or its input already ended
     */
    public void put(EncodedSample sample) throws InterruptedException {
        long frame = 1L + 12 + sample.payload.length;
        if (frame > options.maxFrameBytes()) {
            throw new IllegalArgumentException("message epoch " + sample.epoch + " batch " + sample.batchId + " of " + sample.payload.length
                    + " bytes exceeds option " + ChannelOptions.MAX_FRAME_BYTES.key() + " = " + options.maxFrameBytes() + " bytes");
        }
        lock.lockInterruptibly();
        try {
            while (!closed && !endOfInput
                    && (buffer.size() >= options.capacity() || (!buffer.isEmpty() && bufferedBytes + sample.payload.length > options.bufferBytes()))) {
                notFull.await();
            }
            if (closed || endOfInput) {
                throw new IllegalStateException(name + " is " + (closed ? "closed" : "past its end of input"));
            }
            buffer.addLast(sample);
            bufferedBytes += sample.payload.length;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the input: blocks until every buffered message was written to a client, then marks the
     * endpoint {@code finished} in the registry. Connected and late clients get END_OF_STREAM.
     */
    public void finishAndDrain() throws InterruptedException, IOException {
        lock.lockInterruptibly();
        try {
            if (!endOfInput) {
                endOfInput = true;
                LOG.info("{} input ended with {} messages buffered; draining to {} clients", name, buffer.size(), sessions.size());
            }
            changed.signalAll();
            notFull.signalAll();
            while (!closed && (!buffer.isEmpty() || inFlight > 0)) {
                changed.await();
            }
            if (closed) {
                throw new IllegalStateException(name + " was closed with " + buffer.size() + " messages undelivered");
            }
            drained = true;
        } finally {
            lock.unlock();
        }
        registry.write(info.withState(EndpointInfo.State.FINISHED));
        LOG.info("{} end of stream: {} messages delivered, marked finished in {}", name, delivered.get(), registry.fileOf(index));
    }

    /**
     * Closes the endpoint. After a completed {@link #finishAndDrain()} it first lingers (answering
     * late clients with END_OF_STREAM) for the configured time; otherwise (cancel, failure) it closes
     * at once and undelivered messages are dropped.
     */
    @Override
    public void close() {
        boolean linger;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            linger = drained && !options.linger().isZero();
        } finally {
            lock.unlock();
        }
        if (linger) {
            LOG.info("{} lingering {} for late clients", name, options.linger());
            try {
                Thread.sleep(options.linger().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        int dropped;
        lock.lock();
        try {
            closed = true;
            dropped = buffer.size();
            buffer.clear();
            bufferedBytes = 0;
            changed.signalAll();
            notFull.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            server.close();
        } catch (IOException e) {
            LOG.warn("{} closing server socket: {}", name, e.toString());
        }
        List<ClientSession> open = new ArrayList<>(sessions);
        for (ClientSession c : open) {
            c.closeSocket();
        }
        join(acceptor);
        for (ClientSession c : open) {
            join(c.sender);
            join(c.receiver);
        }
        if (dropped > 0) {
            LOG.warn("{} closed with {} undelivered messages", name, dropped);
        } else {
            LOG.info("{} closed", name);
        }
    }

    private static void join(Thread t) {
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.warn("{} accept failed: {}", name, e.toString());
                }
                continue;
            }
            if (isClosed()) {
                closeQuietly(socket);
                break;
            }
            ClientSession c = new ClientSession(socket, clientIds.incrementAndGet());
            sessions.add(c);
            c.sender.start();
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing left to do with a socket we are dropping
        }
    }

    /** One connected client: its socket, credits and two threads. */
    private final class ClientSession {
        final Socket socket;
        final int id;
        final String peer;
        final Thread sender;
        Thread receiver;
        /** Guarded by the endpoint lock. */
        long credits;
        /** Guarded by the endpoint lock. */
        boolean gone;
        FrameWriter writer;
        long sent;

        ClientSession(Socket socket, int id) {
            this.socket = socket;
            this.id = id;
            this.peer = "client " + id + " " + socket.getRemoteSocketAddress();
            this.sender = new Thread(this::run, "fanout-channel-" + index + "-client-" + id + "-out");
            sender.setDaemon(true);
        }

        void run() {
            try {
                socket.setTcpNoDelay(true);
                InputStream in = new BufferedInputStream(socket.getInputStream());
                writer = new FrameWriter(new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
                FrameReader reader = new FrameReader(in, Math.min(options.maxFrameBytes(), MAX_INBOUND_FRAME_BYTES));
                socket.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
                Frame first;
                try {
                    first = reader.read();
                } catch (SocketTimeoutException e) {
                    fail("no HELLO within " + HANDSHAKE_TIMEOUT_MS + " ms");
                    return;
                }
                if (first == null) {
                    LOG.info("{}: {} disconnected before HELLO", name, peer);
                    return;
                }
                if (!(first instanceof Frame.Hello hello)) {
                    fail("expected HELLO, got " + first.type());
                    return;
                }
                if (hello.version() != ChannelProtocol.VERSION) {
                    fail("unsupported protocol version " + hello.version() + "; this endpoint speaks version " + ChannelProtocol.VERSION);
                    return;
                }
                socket.setSoTimeout(0);
                send(new Frame.Welcome(ChannelProtocol.VERSION, index, numEndpoints));
                LOG.info("{}: {} connected", name, peer);
                receiver = new Thread(() -> receive(reader), "fanout-channel-" + index + "-client-" + id + "-in");
                receiver.setDaemon(true);
                receiver.start();
                serve();
            } catch (ProtocolException e) {
                fail(e.getMessage());
            } catch (IOException e) {
                if (!isClosed()) {
                    LOG.info("{}: {} connection lost: {}", name, peer, e.toString());
                }
                markGone();
                closeSocket();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                leave();
            }
        }

        /** Sends MESSAGE frames while credits and messages allow, then END_OF_STREAM. */
        private void serve() throws IOException, InterruptedException {
            while (true) {
                EncodedSample msg;
                lock.lock();
                try {
                    while (true) {
                        if (closed || gone) {
                            return;
                        }
                        if (credits > 0 && !buffer.isEmpty()) {
                            msg = buffer.pollFirst();
                            bufferedBytes -= msg.payload.length;
                            credits--;
                            inFlight++;
                            notFull.signalAll();
                            break;
                        }
                        if (endOfInput && buffer.isEmpty() && inFlight == 0) {
                            msg = null;
                            break;
                        }
                        changed.await();
                    }
                } finally {
                    lock.unlock();
                }
                if (msg == null) {
                    send(new Frame.EndOfStream());
                    LOG.info("{}: {} sent END_OF_STREAM after {} messages", name, peer, sent);
                    // Half-close: the client reads everything, then closes; the receiver sees its EOF.
                    socket.shutdownOutput();
                    return;
                }
                boolean ok = false;
                try {
                    synchronized (this) {
                        writer.writeMessage(msg.epoch, msg.batchId, msg.numBatches, msg.payload);
                    }
                    ok = true;
                    sent++;
                    delivered.incrementAndGet();
                } finally {
                    lock.lock();
                    try {
                        inFlight--;
                        if (!ok && !closed) {
                            // The client cannot have the whole frame: hand the message to another client.
                            buffer.addFirst(msg);
                            bufferedBytes += msg.payload.length;
                        }
                        changed.signalAll();
                    } finally {
                        lock.unlock();
                    }
                }
            }
        }

        /** Receiver thread: credits from FETCH frames until the client closes or breaks the protocol. */
        private void receive(FrameReader reader) {
            try {
                while (true) {
                    Frame f = reader.read();
                    if (f == null) {
                        break;
                    }
                    if (f instanceof Frame.Fetch fetch) {
                        lock.lock();
                        try {
                            credits = Math.min(credits + fetch.credits(), Long.MAX_VALUE / 2);
                            changed.signalAll();
                        } finally {
                            lock.unlock();
                        }
                    } else if (f instanceof Frame.Error err) {
                        LOG.warn("{}: {} sent ERROR: {}", name, peer, err.text());
                        break;
                    } else {
                        fail("unexpected " + f.type() + " frame from a client");
                        return;
                    }
                }
            } catch (ProtocolException e) {
                fail(e.getMessage());
                return;
            } catch (IOException e) {
                if (!isClosed() && !socket.isClosed()) {
                    LOG.info("{}: {} connection lost: {}", name, peer, e.toString());
                }
            }
            markGone();
            closeSocket();
        }

        private void send(Frame f) throws IOException {
            synchronized (this) {
                writer.write(f);
            }
        }

        /** Protocol error: ERROR frame, half-close, discard what the peer still sends, close. */
        private void fail(String why) {
            LOG.warn("{}: {} protocol error, closing its connection: {}", name, peer, why);
            markGone();
            try {
                synchronized (this) {
                    if (writer != null) {
                        writer.write(new Frame.Error(why));
                    }
                }
                socket.shutdownOutput();
                socket.setSoTimeout(DISCARD_TIMEOUT_MS);
                InputStream in = socket.getInputStream();
                byte[] sink = new byte[8192];
                long discarded = 0;
                int r;
                while (discarded < DISCARD_MAX_BYTES && (r = in.read(sink)) >= 0) {
                    discarded += r;
                }
            } catch (IOException ignored) {
                // the peer went away first: nothing more to tell it
            }
            closeSocket();
        }

        private void markGone() {
            lock.lock();
            try {
                gone = true;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Closes the connection; the session counts as connected until then. */
        void closeSocket() {
            closeQuietly(socket);
            if (sessions.remove(this)) {
                LOG.info("{}: {} disconnected after {} messages", name, peer, sent);
            }
        }

        private void leave() {
            // Once the receiver runs it owns the socket: it closes it when the client leaves (after
            // END_OF_STREAM) or after sending ERROR; close() of the endpoint closes it otherwise.
            if (receiver == null) {
                closeSocket();
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
