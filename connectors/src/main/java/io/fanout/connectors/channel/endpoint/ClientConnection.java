package io.fanout.connectors.channel.endpoint;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameReader;
import io.fanout.connectors.channel.protocol.FrameWriter;
import io.fanout.connectors.channel.protocol.ProtocolException;
import io.fanout.connectors.channel.options.ChannelOptions;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.channel.tls.ChannelTls;
import io.fanout.connectors.message.EncodedMessage;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: the handshake (TLS when the endpoint serves it, then HELLO, token, version, session), then a sender thread
 * (frames as {@link EndpointDelivery#next} hands them out) and a receiver thread (FETCH credits and
 * acks). Attached to a {@link ClientSession} after the handshake.
 */
final class ClientConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelEndpoint.class);
    /** How long a new connection may take to send HELLO. */
    static final int HANDSHAKE_TIMEOUT_MS = 30_000;
    /** After ERROR: how long and how much unread input we discard so the peer sees ERROR, not a reset. */
    private static final int DISCARD_TIMEOUT_MS = 1_000;
    private static final long DISCARD_MAX_BYTES = 16 << 20;
    /** Client-to-server frames are small (HELLO carries at most a 64 KiB token, a u64 session and a rank and world size). */
    static final int MAX_INBOUND_FRAME_BYTES = 1 + 4 + 0xffff + 8 + 8;
    /** At most this many FETCH frames are taken under one lock. */
    private static final int MAX_FETCH_BATCH = 256;
    /** Socket send buffer of a client connection (SO_SNDBUF). */
    private static final int SEND_BUFFER_BYTES = 4 << 20;
    /** Output buffer of a client connection: blobs up to about this size are written with their head in one call. */
    private static final int WRITE_BUFFER_BYTES = 1 << 20;
    /** First byte of a TLS ClientHello (record type handshake). */
    private static final int TLS_HANDSHAKE_RECORD = 0x16;

    /** What a connection needs of its endpoint. */
    record Context(ChannelSinkOptions options, int index, int numEndpoints, String name, byte[] token, EndpointDelivery delivery,
            EndpointServer server, SSLContext tls) {}

    private final Context ctx;
    /** The accepted socket, replaced by its TLS layer after the TLS handshake. */
    volatile Socket socket;
    final int id;
    private final String peer;
    final Thread sender;
    volatile Thread receiver;
    /** Guarded by the endpoint lock. */
    ClientSession session;
    /** Guarded by the endpoint lock. */
    boolean gone;
    private FrameWriter writer;
    private long sent;
    /** The client speaks version 3 or later: it gets HEARTBEAT frames while nothing else is sent. */
    private boolean heartbeats;
    /** When the sender last wrote a frame (System.nanoTime); sender thread only. */
    private long lastWriteNanos;

    ClientConnection(Context ctx, Socket socket, int id) {
        this.ctx = ctx;
        this.socket = socket;
        this.id = id;
        this.peer = "client " + id + " " + socket.getRemoteSocketAddress();
        this.sender = new Thread(this::run, "fanout-channel-" + ctx.index() + "-client-" + id + "-out");
        sender.setDaemon(true);
    }

    private String name() {
        return ctx.name();
    }

    void run() {
        EndpointDelivery delivery = ctx.delivery();
        try {
            socket.setTcpNoDelay(true);
            // A large send buffer keeps the kernel streaming while this thread waits for credits.
            socket.setSendBufferSize(SEND_BUFFER_BYTES);
            socket.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
            if (ctx.tls() != null && !secure()) {
                return;
            }
            FrameInput in = new FrameInput(socket.getInputStream());
            // Large enough that a MESSAGE head and a typical blob leave in one write (one
            // segment train), not a tiny head segment and then the blob; larger blobs go directly.
            writer = new FrameWriter(new BufferedOutputStream(socket.getOutputStream(), WRITE_BUFFER_BYTES));
            FrameReader reader = new FrameReader(in, Math.min(ctx.options().maxFrameBytes(), MAX_INBOUND_FRAME_BYTES));
            Frame first;
            try {
                first = reader.read();
            } catch (SocketTimeoutException e) {
                fail("no HELLO within " + HANDSHAKE_TIMEOUT_MS + " ms");
                return;
            }
            if (first == null) {
                LOG.info("{}: {} disconnected before HELLO", name(), peer);
                return;
            }
            if (!(first instanceof Frame.Hello hello)) {
                fail("expected HELLO, got " + first.type());
                return;
            }
            if (hello.version() < ChannelProtocol.MIN_VERSION || hello.version() > ChannelProtocol.VERSION) {
                fail("unsupported protocol version " + hello.version() + "; this endpoint speaks versions " + ChannelProtocol.MIN_VERSION
                        + " to " + ChannelProtocol.VERSION + " (docs/channel-protocol.md): upgrade the client");
                return;
            }
            heartbeats = hello.version() >= 3;
            if (!MessageDigest.isEqual(ctx.token(), hello.token().getBytes(StandardCharsets.UTF_8))) {
                fail("bad access token: use the token of this job's registry files (option " + ChannelOptions.TOKEN.key() + ")");
                return;
            }
            if (hello.ranked() && hello.worldSize() != ctx.options().trainers()) {
                fail("world size " + hello.worldSize() + " does not match this job's " + ctx.options().trainers()
                        + " trainers (--trainers " + ctx.options().trainers() + "): give the client world_size="
                        + ctx.options().trainers() + ", or run the job with --trainers " + hello.worldSize());
                return;
            }
            if (hello.ranked() && (hello.rank() < 0 || hello.rank() >= hello.worldSize())) {
                fail("rank " + hello.rank() + " is outside 0.." + (hello.worldSize() - 1) + " (world size " + hello.worldSize() + ")");
                return;
            }
            socket.setSoTimeout(0);
            boolean resumed = delivery.attach(hello, this);
            long sessionId = session.id;
            send(new Frame.Welcome(hello.version(), ctx.index(), ctx.numEndpoints(), sessionId, resumed));
            LOG.info("{}: {} connected, session {}{}{}", name(), peer, Long.toHexString(sessionId), resumed ? " resumed" : "",
                    hello.ranked() ? ", rank " + hello.rank() + " of " + hello.worldSize() : "");
            Thread r = new Thread(() -> receive(in, reader), "fanout-channel-" + ctx.index() + "-client-" + id + "-in");
            r.setDaemon(true);
            receiver = r;
            r.start();
            serve();
        } catch (ProtocolException e) {
            fail(e.getMessage());
        } catch (IOException e) {
            if (!delivery.isClosed()) {
                LOG.info("{}: {} connection lost: {}", name(), peer, e.toString());
            }
            delivery.detach(this);
            closeSocket();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            leave();
        }
    }

    /**
     * TLS server handshake over the accepted socket; false if the connection is over. A client whose
     * first byte does not start a TLS record speaks the plain protocol: it gets a plain ERROR saying
     * the endpoint serves TLS only (no frame type is 0x16, the TLS handshake record type).
     */
    private boolean secure() throws IOException {
        int first = socket.getInputStream().read();
        if (first < 0) {
            LOG.info("{}: {} disconnected before the TLS handshake", name(), peer);
            return false;
        }
        if (first != TLS_HANDSHAKE_RECORD) {
            writer = new FrameWriter(new BufferedOutputStream(socket.getOutputStream()));
            fail("this endpoint serves TLS only (\"tls\": true in its registry file): connect with TLS and verify it with the "
                    + "CA of its certificate (Python ChannelClient tls_ca, Java ChannelReader.Options.tlsCa)");
            return false;
        }
        try {
            socket = ChannelTls.accept(ctx.tls(), socket, new byte[] {(byte) first});
        } catch (IOException e) {
            // No TLS channel to send ERROR on: the client sees its own side of the failure.
            LOG.warn("{}: {} TLS handshake failed, closing its connection: {}", name(), peer, e.getMessage());
            return false;
        }
        return true;
    }

    /**
     * Writes what the delivery hands out until END_OF_STREAM, close or loss of the connection. The
     * messages ready at once are written together and flushed before the sender waits, so small
     * messages do not cost a system call (and a wake-up of the client) each.
     */
    private void serve() throws IOException, InterruptedException {
        EndpointDelivery delivery = ctx.delivery();
        boolean unflushed = false;
        while (true) {
            EndpointDelivery.Outgoing out = delivery.next(this, heartbeats, lastWriteNanos, unflushed);
            if (out == null) {
                return;
            }
            unflushed = false;
            switch (out.kind()) {
                case FLUSH -> {
                    synchronized (this) {
                        writer.flush();
                    }
                }
                case HEARTBEAT -> send(new Frame.Heartbeat());
                case END_OF_EPOCH -> send(new Frame.EndOfEpoch(out.epoch()));
                case END_OF_STREAM -> {
                    send(new Frame.EndOfStream());
                    LOG.info("{}: {} sent END_OF_STREAM after {} messages", name(), peer, sent);
                    // Half-close: the client reads everything, then closes; the receiver sees its EOF.
                    socket.shutdownOutput();
                    return;
                }
                case MESSAGE -> {
                    ClientSession.Sent msg = out.message();
                    EncodedMessage m = msg.sample();
                    synchronized (this) {
                        writer.bufferMessage(msg.seq(), m.epoch, m.batchId, m.numBatches, m.payload);
                    }
                    unflushed = true;
                    lastWriteNanos = System.nanoTime();
                    // A failed write leaves the message unacknowledged in the session: the client gets it
                    // again when it resumes, or another client once the session expires.
                    sent++;
                    delivery.recordSent(m.payload.length, out.latencyNanos());
                }
                default -> throw new IllegalStateException("unknown outgoing " + out.kind());
            }
        }
    }

    /**
     * Receiver thread: credits and acks from FETCH frames until the client closes or breaks the
     * protocol. The FETCH frames that arrived together (a client sends its acks in batches) are taken
     * under one lock.
     */
    private void receive(FrameInput in, FrameReader reader) {
        EndpointDelivery delivery = ctx.delivery();
        List<Frame.Fetch> fetches = new ArrayList<>();
        try {
            while (true) {
                Frame f;
                try {
                    f = reader.read();
                } catch (ProtocolException e) {
                    delivery.fetch(this, fetches); // the frames before the bad one count, as they would one by one
                    throw e;
                }
                if (f instanceof Frame.Fetch fetch) {
                    fetches.add(fetch);
                    if (fetches.size() < MAX_FETCH_BATCH && in.holdsWholeFrame()) {
                        continue; // more arrived with it: take them together
                    }
                }
                if (!fetches.isEmpty()) {
                    boolean serving = delivery.fetch(this, fetches);
                    fetches.clear();
                    if (!serving) {
                        break;
                    }
                }
                if (f == null) {
                    break;
                }
                if (f instanceof Frame.Error err) {
                    LOG.warn("{}: {} sent ERROR: {}", name(), peer, err.text());
                    break;
                } else if (!(f instanceof Frame.Fetch)) {
                    fail("unexpected " + f.type() + " frame from a client");
                    return;
                }
            }
        } catch (ProtocolException e) {
            fail(e.getMessage());
            return;
        } catch (IOException e) {
            if (!delivery.isClosed() && !socket.isClosed()) {
                LOG.info("{}: {} connection lost: {}", name(), peer, e.toString());
            }
        }
        delivery.detach(this);
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
        LOG.warn("{}: {} protocol error, closing its connection: {}", name(), peer, why);
        ctx.delivery().detach(this);
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

    /** The input of a connection, buffered; it tells whether a whole frame is buffered (without a system call). */
    private static final class FrameInput extends BufferedInputStream {
        FrameInput(InputStream in) {
            super(in);
        }

        /** Whether the buffer holds a whole frame: reading it will not wait for the client. */
        synchronized boolean holdsWholeFrame() {
            int have = count - pos;
            if (have < 4) {
                return false;
            }
            long length = (buf[pos] & 0xffL) | (buf[pos + 1] & 0xffL) << 8 | (buf[pos + 2] & 0xffL) << 16 | (buf[pos + 3] & 0xffL) << 24;
            return have >= 4 + length;
        }
    }

    /** Closes the connection; it counts as connected until then. */
    void closeSocket() {
        dropSocket();
        if (ctx.server().forget(this)) {
            LOG.info("{}: {} disconnected after {} messages", name(), peer, sent);
        }
    }

    /** Closes the socket only (a resumed session replaced this connection). */
    void dropSocket() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to do with a socket we are dropping
        }
    }

    private void leave() {
        // Once the receiver runs it owns the socket: it closes it when the client leaves (after
        // END_OF_STREAM) or after sending ERROR; close() of the endpoint closes it otherwise.
        if (receiver == null) {
            ctx.delivery().detach(this);
            closeSocket();
        }
    }
}
