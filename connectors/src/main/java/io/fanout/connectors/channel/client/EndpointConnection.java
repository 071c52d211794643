package io.fanout.connectors.channel.client;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameReader;
import io.fanout.connectors.channel.protocol.FrameType;
import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One endpoint as the reader sees it: a daemon thread that connects ({@link EndpointDialer}), reads
 * frames into the reader's event queue, and reconnects after a lost connection (resuming its
 * session, within the reconnect timeout); its {@link CreditWindow}; and the consumer's view of its
 * epochs (ended up to, done).
 */
final class EndpointConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelReader.class);

    private final ChannelReader owner;
    private final ChannelReader.Options options;
    final int index;
    final Thread thread;
    private final EndpointDialer dialer;
    final CreditWindow credits;
    volatile boolean welcomed;
    /** Bumped on every reconnect: items of an older generation are dropped (the endpoint resends them). */
    volatile int generation;
    volatile long session = ChannelProtocol.NEW_SESSION;
    private FrameReader reader;
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

    EndpointConnection(ChannelReader owner, int index, InetSocketAddress address) {
        this.owner = owner;
        this.options = owner.options();
        this.index = index;
        this.dialer = new EndpointDialer(index, address, owner.registry(), options, owner.tls());
        this.credits = new CreditWindow(options.prefetch(), options.prefetchBytes());
        this.thread = new Thread(this::run, "fanout-channel-reader-" + index);
        thread.setDaemon(true);
    }

    String describe() {
        return dialer.describe();
    }

    void run() {
        try {
            if (!connect(owner.deadlineNanos(), true)) {
                owner.post(new ReaderEvent.Done(this));
                return;
            }
            while (true) {
                try {
                    if (stream()) {
                        return;
                    }
                } catch (ChannelReader.ServerError e) {
                    throw e;
                } catch (IOException e) {
                    if (owner.isClosed()) {
                        return;
                    }
                    LOG.warn("channel {} connection lost ({}); reconnecting for up to {}", describe(), e.getMessage(),
                            options.reconnectTimeout());
                }
                credits.close(); // no FETCH of the consumer on the next socket before its HELLO
                generation++;
                dialer.closeSocket();
                long deadline = System.nanoTime() + options.reconnectTimeout().toNanos();
                try {
                    if (!connect(deadline, false)) {
                        owner.post(new ReaderEvent.Done(this));
                        return;
                    }
                } catch (SocketTimeoutException e) {
                    throw new IOException("channel " + describe() + ": connection lost and not re-established within "
                            + options.reconnectTimeout());
                }
            }
        } catch (IOException e) {
            if (!owner.isClosed()) {
                owner.post(new ReaderEvent.Failed(this, e));
            }
        } finally {
            dialer.closeSocket();
        }
    }

    /** Connects, handshakes and grants the credit window; false if the endpoint turned out finished. */
    private boolean connect(long deadline, boolean first) throws IOException {
        EndpointDialer.Link link = dialer.dial(deadline, first, session, owner::isClosed);
        if (link == null) {
            return false;
        }
        Frame.Welcome w = link.welcome();
        boolean resumedWanted = session != ChannelProtocol.NEW_SESSION;
        session = w.sessionId();
        welcomed = true;
        LOG.info("channel {} connected: endpoint {} of {}, session {}{}", describe(), w.endpointIndex(), w.numEndpoints(),
                Long.toHexString(session), resumedWanted ? (w.resumed() ? " resumed" : " (new: the old one is gone)") : "");
        reader = link.reader();
        credits.open(link.writer(), owner.epochLimit());
        lastFrameType = FrameType.WELCOME;
        lastFrameNanos = System.nanoTime();
        return true;
    }

    /**
     * Reads frames until END_OF_STREAM (true) or a lost connection (IOException); a stall
     * (nothing for the stall timeout) is a {@link ChannelReader.StalledEndpointException}, not retried.
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
                if (++received > credits.granted()) {
                    throw new ChannelReader.ServerError("channel " + describe() + " sent MESSAGE " + received + " but only "
                            + credits.granted() + " credits were granted (protocol error)");
                }
                owner.countHeld(m.payload().length);
                owner.post(new ReaderEvent.Item(this, gen, sess, m.seq(),
                        new EncodedMessage(m.epoch(), m.batchId(), m.numBatches(), m.payload())));
            } else if (f instanceof Frame.EndOfEpoch e) {
                LOG.info("channel {} end of epoch {}", describe(), e.epoch());
                owner.post(new ReaderEvent.EpochEnd(this, e.epoch()));
            } else if (f instanceof Frame.EndOfStream) {
                LOG.info("channel {} sent END_OF_STREAM", describe());
                owner.post(new ReaderEvent.Done(this));
                return true;
            } else if (f instanceof Frame.Error err) {
                throw new ChannelReader.ServerError("channel " + describe() + " sent ERROR: " + err.text());
            } else if (f == null) {
                if (dialer.finishedInRegistry()) {
                    LOG.warn("channel {} closed without END_OF_STREAM but is finished in the registry", describe());
                    owner.post(new ReaderEvent.Done(this));
                    return true;
                }
                throw new IOException("channel " + describe() + " closed the connection before END_OF_STREAM");
            } else {
                throw new ChannelReader.ServerError("channel " + describe() + " sent an unexpected " + f.type() + " frame");
            }
        }
    }

    private ChannelReader.StalledEndpointException stalled() {
        double ago = (System.nanoTime() - lastFrameNanos) / 1e9;
        String lastFrame = lastFrameType == FrameType.MESSAGE ? "MESSAGE (epoch " + lastEpoch + ", batch " + lastBatchId + ")"
                : lastFrameType == FrameType.END_OF_EPOCH ? "END_OF_EPOCH " + lastEpoch : String.valueOf(lastFrameType);
        return new ChannelReader.StalledEndpointException(String.format(Locale.ROOT,
                "channel %s sent nothing for %.1f s (stall timeout %s; a live endpoint sends HEARTBEAT every "
                        + "fanout.channel.heartbeat-interval): the last frame it sent was %s, %.1f s ago",
                describe(), ago, options.stallTimeout(), lastFrame, ago));
    }

    /**
     * Acknowledges {@code seq} of session {@code sess} and returns its credit (see
     * {@link CreditWindow#giveBack}); an ack of an older session is not sent (that endpoint forgot it).
     */
    void giveBack(long seq, long sess, int bytes) {
        credits.giveBack(sess == session ? seq : 0, bytes, owner.epochLimit());
    }

    /** Tells the endpoint the epoch now read. */
    void sendEpochLimit() {
        credits.sendEpochLimit(owner.epochLimit());
    }

    void close() {
        dialer.closeSocket();
    }
}
