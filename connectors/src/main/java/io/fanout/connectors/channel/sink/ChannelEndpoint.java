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
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One channel endpoint (connectors/CHANNEL.md, protocol v3, serving v2 clients too), no Flink inside: a TCP server over a
 * bounded buffer of messages that pulling clients share.
 *
 * <p>Delivery: a buffered message goes to one client <em>session</em>, which keeps it as
 * sent-but-unacknowledged until the client acknowledges it (FETCH carries a cumulative ack). A
 * client that reconnects resumes its session and gets its unacknowledged messages again; a session
 * whose client stays away longer than the session timeout hands them back to the buffer for other
 * clients. Buffered plus unacknowledged messages are bounded by count and bytes: {@link #put}
 * blocks while the bound is reached, which is the sink's back-pressure; except while a client waits
 * for an epoch still being produced and nothing held is of it (blocking would hold back its stragglers).
 * A client (version 3) tells in each FETCH the epoch it reads; it gets no message of a later one.
 *
 * <p>Epochs: {@link #advanceWatermark} says every message of epochs up to {@code e} has been put;
 * once none of them is buffered or unacknowledged, every client gets END_OF_EPOCH(e) (cumulative).
 * {@link #snapshot()} / the restoring constructor carry buffered and unacknowledged messages across
 * a job restart.
 *
 * <p>Threads: one acceptor (also expires sessions); per connection one sender (handshake, then
 * frames as credits allow, HEARTBEAT while it has nothing else to send) and one receiver (FETCH credits and acks). Every thread is a daemon.
 */
public final class ChannelEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelEndpoint.class);
    /** How long a new connection may take to send HELLO. */
    static final int HANDSHAKE_TIMEOUT_MS = 30_000;
    /** After ERROR: how long and how much unread input we discard so the peer sees ERROR, not a reset. */
    private static final int DISCARD_TIMEOUT_MS = 1_000;
    private static final long DISCARD_MAX_BYTES = 16 << 20;
    /** Client-to-server frames are small (HELLO carries at most a 64 KiB token and two u64). */
    static final int MAX_INBOUND_FRAME_BYTES = 1 + 4 + 0xffff + 8;
    /** How often the acceptor wakes to expire sessions of clients that left. */
    private static final int EXPIRY_CHECK_MS = 100;

    /** Receives delivery statistics (Flink metrics in {@link ChannelSinkWriter}); called outside the lock. */
    public interface Listener {
        /** A MESSAGE frame of {@code payloadBytes} was written to a client. */
        void onSent(int payloadBytes);

        /** A credit waited {@code nanos} for a message (the client's fetch latency as the server sees it). */
        void onFetchLatency(long nanos);
    }

    /** What a checkpoint keeps: the completed-epoch watermark and every message not yet acknowledged. */
    public record Snapshot(int watermarkEpoch, List<EncodedSample> messages) {}

    private final ChannelSinkOptions options;
    private final int index;
    private final int numEndpoints;
    private final EndpointRegistry registry;
    private final ServerSocket server;
    private final EndpointInfo info;
    private final String name;
    private final byte[] token;
    private volatile Listener listener;

    /** Socket send buffer of a client connection (SO_SNDBUF). */
    private static final int SEND_BUFFER_BYTES = 4 << 20;
    /** Output buffer of a client connection: blobs up to about this size are written with their head in one call. */
    private static final int WRITE_BUFFER_BYTES = 1 << 20;

    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the bound has room. */
    private final Condition notFull = lock.newCondition();
    /** Signalled on anything a sender or the drain waiter waits for: messages, credits, acks, epochs, end, close. */
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<EncodedSample> buffer = new ArrayDeque<>();
    private long bufferedBytes;
    /** Messages and bytes sent but not acknowledged, over every session. */
    private int unackedCount;
    private long unackedBytes;
    private long peakHeldBytes;
    /** Messages not yet acknowledged (buffered or unacked) per epoch: the end-of-epoch bookkeeping. */
    private final TreeMap<Integer, Integer> pendingPerEpoch = new TreeMap<>();
    /** Every message of epochs up to this one has been put. */
    private int watermarkEpoch = -1;
    /** END_OF_EPOCH has been announced up to this epoch. */
    private int endedEpoch = -1;
    private boolean endOfInput;
    /** The last client epoch for which the bound gave way (logged once per epoch). */
    private int overflowEpoch = -1;
    private boolean drained;
    private boolean closed;

    private final Map<Long, Session> sessions = new HashMap<>();
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();
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
        this(options, index, numEndpoints, jobId, null);
    }

    /**
     * As {@link #ChannelEndpoint(ChannelSinkOptions, int, int, String)}, first re-buffering what a
     * checkpoint kept ({@code restored} may be null).
     */
    public ChannelEndpoint(ChannelSinkOptions options, int index, int numEndpoints, String jobId, Snapshot restored)
            throws IOException {
        if (index < 0 || index >= numEndpoints) {
            throw new IllegalArgumentException("endpoint index " + index + " not in [0, " + numEndpoints + ")");
        }
        this.options = options;
        this.index = index;
        this.numEndpoints = numEndpoints;
        this.token = options.token().getBytes(StandardCharsets.UTF_8);
        this.registry = new EndpointRegistry(Paths.get(options.registryDir()));
        if (restored != null) {
            // Under the lock like every other state change (updateEndedEpoch signals a condition).
            lock.lock();
            try {
                watermarkEpoch = restored.watermarkEpoch();
                for (EncodedSample s : restored.messages()) {
                    buffer.addLast(s);
                    bufferedBytes += s.payload.length;
                    pendingPerEpoch.merge(s.epoch, 1, Integer::sum);
                }
                peakHeldBytes = bufferedBytes;
                updateEndedEpoch();
            } finally {
                lock.unlock();
            }
        }
        int port = options.port() == 0 ? 0 : options.port() + index;
        if (port > 65535) {
            throw new IllegalArgumentException("option " + ChannelOptions.PORT.key() + " = " + options.port() + " plus endpoint index "
                    + index + " exceeds 65535");
        }
        ServerSocket s = new ServerSocket();
        try {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(options.bindHost(), port), 64);
            s.setSoTimeout(EXPIRY_CHECK_MS);
        } catch (IOException e) {
            s.close();
            throw new IOException("channel endpoint " + index + " cannot listen on " + options.bindHost() + ":" + port
                    + " (option " + ChannelOptions.BIND_HOST.key() + "/" + ChannelOptions.PORT.key() + "): " + e.getMessage(), e);
        }
        this.server = s;
        // The registry names the oldest version served, so version 2 clients still accept the file.
        this.info = new EndpointInfo(ChannelProtocol.MIN_VERSION, index, numEndpoints, advertisedHost(s), s.getLocalPort(),
                EndpointInfo.State.SERVING, jobId, options.token());
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
        if (restored != null) {
            LOG.info("{} restored {} messages and completed epochs up to {} from a checkpoint", name, buffer.size(), watermarkEpoch);
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

    /** Sets who hears about sent messages and fetch latencies (or null). */
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    /** The registry entry of this endpoint (state as registered at start). */
    public EndpointInfo info() {
        return info;
    }

    /** True until the endpoint's server socket is closed. */
    public boolean isListening() {
        return !server.isClosed();
    }

    /** Where the server listens. */
    public InetSocketAddress address() {
        return new InetSocketAddress(info.host(), info.port());
    }

    /** Messages waiting in the buffer (not yet sent). */
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

    /** Messages held: buffered plus sent but unacknowledged (what the count bound limits). */
    public int held() {
        lock.lock();
        try {
            return buffer.size() + unackedCount;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes held: buffered plus sent but unacknowledged (what the byte bound limits). */
    public long heldBytes() {
        lock.lock();
        try {
            return bufferedBytes + unackedBytes;
        } finally {
            lock.unlock();
        }
    }

    /** The largest {@link #heldBytes()} seen so far. */
    public long peakHeldBytes() {
        lock.lock();
        try {
            return peakHeldBytes;
        } finally {
            lock.unlock();
        }
    }

    /** The last epoch announced with END_OF_EPOCH (-1 if none). */
    public int endedEpoch() {
        lock.lock();
        try {
            return endedEpoch;
        } finally {
            lock.unlock();
        }
    }

    /** MESSAGE frames written to clients so far (a re-sent message counts again). */
    public long delivered() {
        return delivered.get();
    }

    /** Clients currently connected. */
    public int connectedClients() {
        return connections.size();
    }

    /**
     * Appends a message, blocking while the bound is reached (count or bytes of buffered plus
     * unacknowledged messages). A message larger than the byte bound is accepted once nothing is held.
     *
     * @throws IllegalArgumentException if the message would exceed the frame limit
     * @throws IllegalStateException if the endpoint is closed or its input already ended
     */
    public void put(EncodedSample sample) throws InterruptedException {
        long frame = 1L + ChannelProtocol.MESSAGE_BODY_HEAD_BYTES + sample.payload.length;
        if (frame > options.maxFrameBytes()) {
            throw new IllegalArgumentException("message epoch " + sample.epoch + " batch " + sample.batchId + " of " + sample.payload.length
                    + " bytes exceeds option " + ChannelOptions.MAX_FRAME_BYTES.key() + " = " + options.maxFrameBytes() + " bytes");
        }
        lock.lockInterruptibly();
        try {
            while (!closed && !endOfInput) {
                int held = buffer.size() + unackedCount;
                long heldBytes = bufferedBytes + unackedBytes;
                if (held < options.capacity() && (held == 0 || heldBytes + sample.payload.length <= options.bufferBytes())) {
                    break;
                }
                int starved = starvedClientEpoch();
                if (starved >= 0) {
                    if (overflowEpoch < starved) {
                        overflowEpoch = starved;
                        LOG.warn("{} holds {} messages ({} bytes), beyond its bound, because a client reads epoch {} and nothing "
                                + "held here is of it: the epochs ahead skew more than {} / {} absorb", name, held, heldBytes,
                                starved, ChannelOptions.CAPACITY.key(), ChannelOptions.BUFFER_BYTES.key());
                    }
                    break;
                }
                notFull.await();
            }
            if (closed || endOfInput) {
                throw new IllegalStateException(name + " is " + (closed ? "closed" : "past its end of input"));
            }
            if (sample.epoch <= watermarkEpoch) {
                LOG.warn("{} got a message of epoch {} (batch {}) after the watermark said epochs up to {} were complete",
                        name, sample.epoch, sample.batchId, watermarkEpoch);
            }
            buffer.addLast(sample);
            bufferedBytes += sample.payload.length;
            peakHeldBytes = Math.max(peakHeldBytes, bufferedBytes + unackedBytes);
            pendingPerEpoch.merge(sample.epoch, 1, Integer::sum);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Every message of epochs up to {@code epoch} has been put: once they are all acknowledged,
     * clients get END_OF_EPOCH. Never moves backwards.
     */
    public void advanceWatermark(int epoch) {
        lock.lock();
        try {
            if (epoch > watermarkEpoch) {
                watermarkEpoch = epoch;
                updateEndedEpoch();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Caller holds the lock. The epoch of a connected client with credits that reads an epoch still
     * being produced (the watermark has not passed it) while nothing here is of an epoch it takes:
     * nothing buffered, to be re-sent or sent and not yet consumed (which it would consume and
     * acknowledge, making room). Then the bound must give way: a blocked {@code put}
     * back-pressures the sampler and the sources, and so holds back the very stragglers that client
     * waits for, here or at another endpoint. What comes in meanwhile is the skew between epochs;
     * it ends when the watermark passes the client's epoch. -1 if no client is starved so.
     */
    private int starvedClientEpoch() {
        for (Session s : sessions.values()) {
            if (s.connection != null && s.credits > 0 && s.maxEpoch > watermarkEpoch && s.maxEpoch != ChannelProtocol.ANY_EPOCH
                    && !holdsEpochUpTo(s.unacked, Sent::epoch, s.maxEpoch) && !holdsEpochUpTo(s.resend, Sent::epoch, s.maxEpoch)
                    && !holdsEpochUpTo(buffer, m -> m.epoch, s.maxEpoch)) {
                return s.maxEpoch;
            }
        }
        return -1;
    }

    private static <T> boolean holdsEpochUpTo(ArrayDeque<T> q, java.util.function.ToIntFunction<T> epoch, int maxEpoch) {
        for (T t : q) {
            if (epoch.applyAsInt(t) <= maxEpoch) {
                return true;
            }
        }
        return false;
    }

    /** Caller holds the lock. Announces END_OF_EPOCH when the completed epochs have nothing pending. */
    private void updateEndedEpoch() {
        int candidate = watermarkEpoch;
        if (!pendingPerEpoch.isEmpty()) {
            candidate = Math.min(candidate, pendingPerEpoch.firstKey() - 1);
        }
        if (candidate > endedEpoch) {
            endedEpoch = candidate;
            LOG.info("{} end of epoch {}: every message of it was delivered and acknowledged", name, candidate);
            changed.signalAll();
        }
    }

    /** The state a checkpoint keeps: unacknowledged messages (in session order), then the buffer. */
    public Snapshot snapshot() {
        lock.lock();
        try {
            List<EncodedSample> all = new ArrayList<>(buffer.size() + unackedCount);
            for (Session s : sessions.values()) {
                for (Sent p : s.resend) {
                    all.add(p.sample);
                }
                for (Sent p : s.unacked) {
                    all.add(p.sample);
                }
            }
            all.addAll(buffer);
            return new Snapshot(watermarkEpoch, all);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends the input: blocks until every message was delivered and acknowledged, then marks the
     * endpoint {@code finished} in the registry. Connected and late clients get END_OF_STREAM.
     */
    public void finishAndDrain() throws InterruptedException, IOException {
        lock.lockInterruptibly();
        try {
            if (!endOfInput) {
                endOfInput = true;
                LOG.info("{} input ended with {} messages buffered and {} unacknowledged; draining to {} clients", name,
                        buffer.size(), unackedCount, connections.size());
            }
            changed.signalAll();
            notFull.signalAll();
            while (!closed && !allDelivered()) {
                changed.await();
            }
            if (closed) {
                throw new IllegalStateException(name + " was closed with " + (buffer.size() + unackedCount) + " messages undelivered");
            }
            drained = true;
        } finally {
            lock.unlock();
        }
        registry.write(info.withState(EndpointInfo.State.FINISHED));
        LOG.info("{} end of stream: {} messages delivered, marked finished in {}", name, delivered.get(), registry.fileOf(index));
    }

    /** Caller holds the lock. */
    private boolean allDelivered() {
        return endOfInput && buffer.isEmpty() && unackedCount == 0;
    }

    /**
     * Closes the endpoint. After a completed {@link #finishAndDrain()} it first lingers (answering
     * late clients with END_OF_STREAM) for the configured time; otherwise (cancel, failure) it closes
     * at once: undelivered messages survive only in the last checkpoint.
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
            dropped = buffer.size() + unackedCount;
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
        List<Connection> open = new ArrayList<>(connections);
        for (Connection c : open) {
            c.closeSocket();
        }
        join(acceptor);
        for (Connection c : open) {
            join(c.sender);
            join(c.receiver);
        }
        if (dropped > 0) {
            LOG.warn("{} closed with {} undelivered or unacknowledged messages", name, dropped);
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
            } catch (SocketTimeoutException e) {
                expireSessions();
                continue;
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
            Connection c = new Connection(socket, connectionIds.incrementAndGet());
            connections.add(c);
            c.sender.start();
            expireSessions();
        }
    }

    /** Hands the unacknowledged messages of sessions whose client stayed away too long back to the buffer. */
    private void expireSessions() {
        long now = System.nanoTime();
        long timeout = options.sessionTimeout().toNanos();
        lock.lock();
        try {
            for (Iterator<Session> it = sessions.values().iterator(); it.hasNext();) {
                Session s = it.next();
                if (s.connection == null && now - s.detachedAt >= timeout) {
                    it.remove();
                    int n = s.requeueAll();
                    if (n > 0) {
                        LOG.info("{}: session {} expired; {} unacknowledged messages go back to the buffer", name, hex(s.id), n);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private static String hex(long id) {
        return Long.toHexString(id);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing left to do with a socket we are dropping
        }
    }

    /** A message sent in a session: its seq and the sample. */
    private record Sent(long seq, EncodedSample sample) {
        int epoch() {
            return sample.epoch;
        }
    }

    /**
     * Removes and returns the first element of {@code q} whose epoch is at most {@code maxEpoch} (the
     * epoch its client reads), or null. Usually the head: only a client reading an earlier epoch
     * than some buffered messages makes the endpoint skip them, so its stragglers get past them.
     */
    private static <T> T pollEligible(ArrayDeque<T> q, java.util.function.ToIntFunction<T> epoch, int maxEpoch) {
        T head = q.peekFirst();
        if (head == null || epoch.applyAsInt(head) <= maxEpoch) {
            return q.pollFirst();
        }
        for (Iterator<T> it = q.iterator(); it.hasNext();) {
            T t = it.next();
            if (epoch.applyAsInt(t) <= maxEpoch) {
                it.remove();
                return t;
            }
        }
        return null;
    }

    /**
     * A client's session: outlives its connection, so a client that reconnects (HELLO with the
     * session id) gets its unacknowledged messages again. Guarded by the endpoint lock.
     */
    private final class Session {
        final long id;
        /** Sent, not yet acknowledged, in seq order. */
        final ArrayDeque<Sent> unacked = new ArrayDeque<>();
        /** Unacknowledged messages to send again after a resume, in seq order. */
        final ArrayDeque<Sent> resend = new ArrayDeque<>();
        long nextSeq = 1;
        long credits;
        /** The client takes messages of epochs up to this one (FETCH max_epoch, version 3). */
        int maxEpoch = ChannelProtocol.ANY_EPOCH;
        /** When the oldest unused credit was granted (for the fetch latency), 0 if none. */
        long creditSince;
        Connection connection;
        long detachedAt;
        int toldEndedEpoch = -1;

        Session(long id) {
            this.id = id;
        }

        /** Drops the acknowledged message {@code seq}; false if the session does not hold it. */
        boolean ack(long seq) {
            if (seq == 0) {
                return true;
            }
            boolean any = removeSeq(unacked, seq) || removeSeq(resend, seq);
            if (any) {
                notFull.signalAll();
                updateEndedEpoch();
                changed.signalAll();
            }
            return any;
        }

        private boolean removeSeq(ArrayDeque<Sent> q, long seq) {
            for (Iterator<Sent> it = q.iterator(); it.hasNext();) {
                Sent p = it.next();
                if (p.seq == seq) {
                    it.remove();
                    release(p.sample);
                    return true;
                }
            }
            return false;
        }

        private void release(EncodedSample s) {
            unackedCount--;
            unackedBytes -= s.payload.length;
            pendingPerEpoch.computeIfPresent(s.epoch, (k, v) -> v == 1 ? null : v - 1);
        }

        /** Everything unacknowledged back to the front of the buffer, in order; returns how many. */
        int requeueAll() {
            List<Sent> all = new ArrayList<>(resend);
            all.addAll(unacked);
            resend.clear();
            unacked.clear();
            for (int i = all.size() - 1; i >= 0; i--) {
                EncodedSample s = all.get(i).sample;
                buffer.addFirst(s);
                bufferedBytes += s.payload.length;
                unackedCount--;
                unackedBytes -= s.payload.length;
            }
            changed.signalAll();
            return all.size();
        }
    }

    /** One TCP connection: its socket and two threads, attached to a session after the handshake. */
    private final class Connection {
        final Socket socket;
        final int id;
        final String peer;
        final Thread sender;
        Thread receiver;
        /** Guarded by the endpoint lock. */
        Session session;
        /** Guarded by the endpoint lock. */
        boolean gone;
        FrameWriter writer;
        long sent;
        /** The client speaks version 3 or later: it gets HEARTBEAT frames while nothing else is sent. */
        boolean heartbeats;
        /** When the sender last wrote a frame (System.nanoTime); sender thread only. */
        long lastWriteNanos;

        Connection(Socket socket, int id) {
            this.socket = socket;
            this.id = id;
            this.peer = "client " + id + " " + socket.getRemoteSocketAddress();
            this.sender = new Thread(this::run, "fanout-channel-" + index + "-client-" + id + "-out");
            sender.setDaemon(true);
        }

        void run() {
            try {
                socket.setTcpNoDelay(true);
                // A large send buffer keeps the kernel streaming while this thread waits for credits.
                socket.setSendBufferSize(SEND_BUFFER_BYTES);
                InputStream in = new BufferedInputStream(socket.getInputStream());
                // Large enough that a MESSAGE head and a typical blob leave in one write (one
                // segment train), not a tiny head segment and then the blob; larger blobs go directly.
                writer = new FrameWriter(new BufferedOutputStream(socket.getOutputStream(), WRITE_BUFFER_BYTES));
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
                if (hello.version() < ChannelProtocol.MIN_VERSION || hello.version() > ChannelProtocol.VERSION) {
                    fail("unsupported protocol version " + hello.version() + "; this endpoint speaks versions " + ChannelProtocol.MIN_VERSION
                            + " to " + ChannelProtocol.VERSION + " (connectors/CHANNEL.md): upgrade the client");
                    return;
                }
                heartbeats = hello.version() >= 3;
                if (!MessageDigest.isEqual(token, hello.token().getBytes(StandardCharsets.UTF_8))) {
                    fail("bad access token: use the token of this job's registry files (option " + ChannelOptions.TOKEN.key() + ")");
                    return;
                }
                socket.setSoTimeout(0);
                boolean resumed = attach(hello);
                send(new Frame.Welcome(hello.version(), index, numEndpoints, session.id, resumed));
                LOG.info("{}: {} connected, session {}{}", name, peer, hex(session.id), resumed ? " resumed" : "");
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

        /** Joins the session the client asks to resume, or a new one; true if resumed. */
        private boolean attach(Frame.Hello hello) {
            lock.lock();
            try {
                Session s = hello.sessionId() == ChannelProtocol.NEW_SESSION ? null : sessions.get(hello.sessionId());
                boolean resumed = s != null;
                if (s == null) {
                    long id;
                    do {
                        id = ThreadLocalRandom.current().nextLong();
                    } while (id == ChannelProtocol.NEW_SESSION || sessions.containsKey(id));
                    s = new Session(id);
                    sessions.put(id, s);
                } else {
                    Connection old = s.connection;
                    if (old != null) {
                        // The client knows its old connection is dead before we do: drop it now.
                        old.gone = true;
                        old.session = null;
                        closeQuietly(old.socket);
                    }
                    // Unacknowledged messages go again, first and in order (the client dropped the
                    // copies it had not consumed and acknowledges again those it had); credits of the
                    // old connection are void.
                    List<Sent> again = new ArrayList<>(s.unacked);
                    again.addAll(s.resend);
                    again.sort((a, b) -> Long.compare(a.seq, b.seq));
                    s.unacked.clear();
                    s.resend.clear();
                    s.resend.addAll(again);
                    s.credits = 0;
                    s.creditSince = 0;
                    s.toldEndedEpoch = -1;
                }
                s.connection = this;
                session = s;
                changed.signalAll();
                return resumed;
            } finally {
                lock.unlock();
            }
        }

        /**
         * Sends END_OF_EPOCH, MESSAGE frames while credits and messages allow, then END_OF_STREAM;
         * HEARTBEAT whenever nothing else was written for the heartbeat interval.
         */
        private void serve() throws IOException, InterruptedException {
            long heartbeatNanos = options.heartbeatInterval().toNanos();
            while (true) {
                Sent msg = null;
                int epochEnd = -1;
                boolean end = false;
                boolean heartbeat = false;
                long latency = -1;
                lock.lock();
                try {
                    while (true) {
                        if (closed || gone) {
                            return;
                        }
                        Session s = session;
                        if (s.toldEndedEpoch < endedEpoch) {
                            epochEnd = endedEpoch;
                            s.toldEndedEpoch = endedEpoch;
                            break;
                        }
                        if (s.credits > 0) {
                            msg = pollEligible(s.resend, Sent::epoch, s.maxEpoch);
                            if (msg == null) {
                                EncodedSample sample = pollEligible(buffer, m -> m.epoch, s.maxEpoch);
                                if (sample != null) {
                                    bufferedBytes -= sample.payload.length;
                                    unackedCount++;
                                    unackedBytes += sample.payload.length;
                                    msg = new Sent(s.nextSeq++, sample);
                                }
                            }
                            if (msg != null) {
                                s.unacked.addLast(msg);
                            }
                        }
                        if (msg != null) {
                            s.credits--;
                            long now = System.nanoTime();
                            latency = now - s.creditSince;
                            s.creditSince = s.credits > 0 ? now : 0;
                            break;
                        }
                        if (allDelivered()) {
                            end = true;
                            break;
                        }
                        if (!heartbeats) {
                            changed.await();
                            continue;
                        }
                        long idle = heartbeatNanos - (System.nanoTime() - lastWriteNanos);
                        if (idle <= 0) {
                            heartbeat = true;
                            break;
                        }
                        changed.awaitNanos(idle);
                    }
                } finally {
                    lock.unlock();
                }
                if (heartbeat) {
                    send(new Frame.Heartbeat());
                    continue;
                }
                if (epochEnd >= 0) {
                    send(new Frame.EndOfEpoch(epochEnd));
                    continue;
                }
                if (end) {
                    send(new Frame.EndOfStream());
                    LOG.info("{}: {} sent END_OF_STREAM after {} messages", name, peer, sent);
                    // Half-close: the client reads everything, then closes; the receiver sees its EOF.
                    socket.shutdownOutput();
                    return;
                }
                EncodedSample m = msg.sample;
                synchronized (this) {
                    writer.writeMessage(msg.seq, m.epoch, m.batchId, m.numBatches, m.payload);
                }
                lastWriteNanos = System.nanoTime();
                // A failed write leaves the message unacknowledged in the session: the client gets it
                // again when it resumes, or another client once the session expires.
                sent++;
                delivered.incrementAndGet();
                Listener l = listener;
                if (l != null) {
                    l.onSent(m.payload.length);
                    l.onFetchLatency(latency);
                }
            }
        }

        /** Receiver thread: credits and acks from FETCH frames until the client closes or breaks the protocol. */
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
                            Session s = session;
                            if (s == null || gone) {
                                break;
                            }
                            if (fetch.credits() > 0 && s.credits == 0) {
                                s.creditSince = System.nanoTime();
                            }
                            s.credits = Math.min(s.credits + fetch.credits(), Long.MAX_VALUE / 2);
                            s.maxEpoch = fetch.maxEpoch();
                            notFull.signalAll(); // a client now waiting for an open epoch lets put() past the bound
                            if (fetch.ackedSeq() < 0 || fetch.ackedSeq() >= s.nextSeq) {
                                throw new ProtocolException("FETCH acknowledges seq " + Long.toUnsignedString(fetch.ackedSeq())
                                        + " but only " + (s.nextSeq - 1) + " messages were sent in this session");
                            }
                            // An ack of a message no longer held (acknowledged twice) is harmless.
                            s.ack(fetch.ackedSeq());
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
            lastWriteNanos = System.nanoTime();
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

        /** The connection is over: its session (if still ours) is detached and starts its expiry clock. */
        private void markGone() {
            lock.lock();
            try {
                gone = true;
                Session s = session;
                if (s != null && s.connection == this) {
                    s.connection = null;
                    s.credits = 0;
                    s.creditSince = 0;
                    s.detachedAt = System.nanoTime();
                    if (s.unacked.isEmpty() && s.resend.isEmpty()) {
                        // Nothing to resume: forget the session at once.
                        sessions.remove(s.id);
                    } else if (options.sessionTimeout().isZero()) {
                        sessions.remove(s.id);
                        s.requeueAll();
                    }
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }

        /** Closes the connection; it counts as connected until then. */
        void closeSocket() {
            closeQuietly(socket);
            if (connections.remove(this)) {
                LOG.info("{}: {} disconnected after {} messages", name, peer, sent);
            }
        }

        private void leave() {
            // Once the receiver runs it owns the socket: it closes it when the client leaves (after
            // END_OF_STREAM) or after sending ERROR; close() of the endpoint closes it otherwise.
            if (receiver == null) {
                markGone();
                closeSocket();
            }
        }
    }

    /** Restored snapshots of several writers (after a rescale) as one: every message, the lowest watermark. */
    public static Snapshot merge(Collection<Snapshot> parts) {
        if (parts == null || parts.isEmpty()) {
            return null;
        }
        int watermark = Integer.MAX_VALUE;
        List<EncodedSample> all = new ArrayList<>();
        for (Snapshot p : parts) {
            watermark = Math.min(watermark, p.watermarkEpoch());
            all.addAll(p.messages());
        }
        return new Snapshot(watermark, all);
    }

    @Override
    public String toString() {
        return name;
    }
}
