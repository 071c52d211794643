package io.fanout.connectors.channel.endpoint;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.ProtocolException;
import io.fanout.connectors.channel.options.ChannelOptions;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery state of one endpoint under its single lock: the held messages and their bounds
 * (back-pressure of {@link #put}), the sessions, the epoch gate, end of input and close. The sink
 * thread, the acceptor and every connection's sender and receiver meet here; everything else in
 * this package is guarded by this lock and called only from here.
 */
final class EndpointDelivery {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelEndpoint.class);

    /** What a connection's sender writes next. */
    enum Kind {
        MESSAGE, END_OF_EPOCH, END_OF_STREAM, HEARTBEAT,
        /** Nothing to write at once (asked not to wait): send what was written so far, then ask again. */
        FLUSH
    }

    private static final Outgoing FLUSH = new Outgoing(Kind.FLUSH, null, -1, -1);

    /** The sender's next frame: a message (with the fetch latency its credit waited) or a control frame. */
    record Outgoing(Kind kind, ClientSession.Sent message, int epoch, long latencyNanos) {}

    private final ChannelSinkOptions options;
    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the bound has room. */
    private final Condition notFull = lock.newCondition();
    /** Signalled on anything a sender or the drain waiter waits for: messages, credits, acks, epochs, end, close. */
    private final Condition changed = lock.newCondition();
    private final HeldMessages held = new HeldMessages();
    private final EpochGate epochs;
    private final SessionTable sessions = new SessionTable();
    private boolean endOfInput;
    /** The last client epoch for which the bound gave way (logged once per epoch). */
    private int overflowEpoch = -1;
    private boolean drained;
    private boolean closed;
    private final AtomicLong delivered = new AtomicLong();
    private volatile ChannelEndpoint.Listener listener;

    EndpointDelivery(ChannelSinkOptions options, String name) {
        this.options = options;
        this.name = name;
        this.epochs = new EpochGate(options.trainers());
    }

    // ---- the sink's side ---------------------------------------------------------------------

    /** Re-buffers what a checkpoint kept (before any client connects). */
    void restore(ChannelEndpoint.Snapshot restored) {
        // Under the lock like every other state change (updateEndedEpoch signals a condition).
        lock.lock();
        try {
            epochs.advance(restored.watermarkEpoch());
            for (EncodedMessage s : restored.messages()) {
                held.add(s);
                epochs.added(s.epoch, s.batchId);
            }
            updateEndedEpoch();
        } finally {
            lock.unlock();
        }
    }

    /** See {@link ChannelEndpoint#put}. */
    void put(EncodedMessage sample) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            while (!closed && !endOfInput) {
                if (held.hasRoomFor(sample.payload.length, options.capacity(), options.bufferBytes())) {
                    break;
                }
                int starved = starvedClientEpoch();
                if (starved >= 0) {
                    if (overflowEpoch < starved) {
                        overflowEpoch = starved;
                        LOG.warn("{} holds {} messages ({} bytes), beyond its bound, because a client reads epoch {} and nothing "
                                + "held here is of it: the epochs ahead skew more than {} / {} absorb", name, held.count(), held.bytes(),
                                starved, ChannelOptions.CAPACITY.key(), ChannelOptions.BUFFER_BYTES.key());
                    }
                    break;
                }
                notFull.await();
            }
            if (closed || endOfInput) {
                throw new IllegalStateException(name + " is " + (closed ? "closed" : "past its end of input"));
            }
            if (sample.epoch <= epochs.watermark()) {
                LOG.warn("{} got a message of epoch {} (batch {}) after the watermark said epochs up to {} were complete",
                        name, sample.epoch, sample.batchId, epochs.watermark());
            }
            held.add(sample);
            epochs.added(sample.epoch, sample.batchId);
            changed.signalAll();
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
        for (ClientSession s : sessions.all()) {
            if (s.connection != null && s.credits.available() && s.maxEpoch > epochs.watermark()
                    && s.maxEpoch != ChannelProtocol.ANY_EPOCH && !s.holdsEpochUpTo(s.maxEpoch)
                    && !held.bufferHoldsEpochUpTo(s.maxEpoch, s::takes)
                    && (s.rank < 0 || !otherRanksWillDrain(s))) {
                return s.maxEpoch;
            }
        }
        return -1;
    }

    /**
     * Caller holds the lock. Whether the other ranks will make room for rank {@code s}: another
     * rank's session holds unacknowledged messages, or a buffered message of another rank is of an
     * epoch its sessions read (or of a rank no session has come for yet). Then {@code s} waits on
     * the bound (a slow rank holds the others back, as DDP would) instead of the bound giving way
     * without limit; what only a later epoch of a stuck rank fills is the skew, and gives way.
     */
    private boolean otherRanksWillDrain(ClientSession s) {
        int trainers = options.trainers();
        int[] reads = new int[trainers];
        boolean[] known = new boolean[trainers];
        for (ClientSession t : sessions.all()) {
            if (t == s || t.rank == s.rank) {
                continue;
            }
            if (!t.holdsNothing()) {
                return true;
            }
            for (int r = 0; r < trainers; r++) {
                if (t.rank < 0 || t.rank == r) {
                    reads[r] = known[r] ? Math.max(reads[r], t.maxEpoch) : t.maxEpoch;
                    known[r] = true;
                }
            }
        }
        for (EncodedMessage m : held.buffer()) {
            int r = Math.floorMod(m.batchId, trainers);
            if (r != s.rank && (!known[r] || m.epoch <= reads[r])) {
                return true;
            }
        }
        return false;
    }

    /** See {@link ChannelEndpoint#advanceWatermark}. */
    void advanceWatermark(int epoch) {
        lock.lock();
        try {
            if (epochs.advance(epoch)) {
                updateEndedEpoch();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Caller holds the lock. Announces END_OF_EPOCH when the completed epochs have nothing pending. */
    private void updateEndedEpoch() {
        if (epochs.update()) {
            LOG.info("{} end of epoch {}{}: every message of it was delivered and acknowledged", name, epochs.ended(), epochs.perRank());
            changed.signalAll();
        }
    }

    /** The state a checkpoint keeps: unacknowledged messages (in session order), then the buffer. */
    ChannelEndpoint.Snapshot snapshot() {
        lock.lock();
        try {
            List<EncodedMessage> all = new ArrayList<>(held.count());
            for (ClientSession s : sessions.all()) {
                s.addHeld(all);
            }
            all.addAll(held.bufferedMessages());
            return new ChannelEndpoint.Snapshot(epochs.watermark(), all);
        } finally {
            lock.unlock();
        }
    }

    /** Ends the input and blocks until every message was delivered and acknowledged. */
    void finishAndDrain(int connectedClients) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            if (!endOfInput) {
                endOfInput = true;
                LOG.info("{} input ended with {} messages buffered and {} unacknowledged; draining to {} clients", name,
                        held.buffered(), held.unacked(), connectedClients);
            }
            changed.signalAll();
            notFull.signalAll();
            while (!closed && !allDelivered()) {
                changed.await();
            }
            if (closed) {
                throw new IllegalStateException(name + " was closed with " + held.count() + " messages undelivered");
            }
            drained = true;
        } finally {
            lock.unlock();
        }
    }

    /** Caller holds the lock. */
    private boolean allDelivered() {
        return endOfInput && held.isEmpty();
    }

    /**
     * Caller holds the lock. Whether the input ended and every message of ranked session {@code s}'s
     * share was delivered and acknowledged: its stream (and so its last epoch) ends then, without
     * waiting for the other ranks.
     */
    private boolean shareDelivered(ClientSession s) {
        if (!endOfInput || s.rank < 0 || held.bufferHoldsEpochUpTo(Integer.MAX_VALUE, s::takes)) {
            return false;
        }
        for (ClientSession t : sessions.all()) {
            if (t.holdsAnyOf(s::takes)) {
                return false;
            }
        }
        return true;
    }

    /** Whether a close should first linger for late clients: the input was drained and a linger is set. */
    boolean shouldLinger() {
        lock.lock();
        try {
            return !closed && drained && !options.linger().isZero();
        } finally {
            lock.unlock();
        }
    }

    /** Closes the delivery (senders stop, put and drain fail); returns how many messages were still held. */
    int close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
            notFull.signalAll();
            return held.count();
        } finally {
            lock.unlock();
        }
    }

    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    // ---- the connections' side ---------------------------------------------------------------

    /**
     * Joins {@code c} to the session its client asks to resume, or a new one; true if resumed. A
     * ranked client that asks for no session (or a forgotten one) takes over a detached session of
     * its rank: a trainer restarted, or replaced, within the session timeout gets what its
     * predecessor had not acknowledged.
     */
    boolean attach(Frame.Hello hello, ClientConnection c) {
        lock.lock();
        try {
            int rank = hello.ranked() ? hello.rank() : ChannelProtocol.NO_RANK;
            ClientSession s = sessions.find(hello.sessionId());
            if (s != null && s.rank != rank) {
                s = null; // a session of another share: not this client's to resume
            }
            if (s == null && rank >= 0) {
                s = sessions.detachedOfRank(rank);
            }
            boolean resumed = s != null;
            if (s == null) {
                s = sessions.create(rank, options.trainers());
            } else {
                ClientConnection old = s.connection;
                if (old != null) {
                    // The client knows its old connection is dead before we do: drop it now.
                    old.gone = true;
                    old.session = null;
                    old.dropSocket();
                }
                s.resume();
            }
            s.connection = c;
            c.session = s;
            changed.signalAll();
            return resumed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Blocks until {@code c}'s sender has something to write: END_OF_EPOCH, a MESSAGE its credits
     * and epoch allow, END_OF_STREAM, or (version 3) HEARTBEAT once nothing was written for the
     * interval since {@code lastWriteNanos}. Null when the endpoint closed or the connection is gone.
     * With {@code unflushed} (the sender holds written frames not yet sent) it does not block:
     * {@link Kind#FLUSH} when there is nothing to write at once, so the sender sends what it has
     * before it waits.
     */
    Outgoing next(ClientConnection c, boolean heartbeats, long lastWriteNanos, boolean unflushed) throws InterruptedException {
        long heartbeatNanos = options.heartbeatInterval().toNanos();
        lock.lock();
        try {
            while (true) {
                if (closed || c.gone) {
                    return null;
                }
                ClientSession s = c.session;
                int ended = epochs.ended(s.rank);
                if (s.toldEndedEpoch < ended) {
                    s.toldEndedEpoch = ended;
                    return new Outgoing(Kind.END_OF_EPOCH, null, ended, -1);
                }
                ClientSession.Sent msg = null;
                if (s.credits.available()) {
                    msg = s.nextResend();
                    if (msg == null) {
                        EncodedMessage sample = held.takeForSending(s.maxEpoch, s::takes);
                        if (sample != null) {
                            msg = s.number(sample);
                        }
                    }
                    if (msg != null) {
                        s.sent(msg);
                        return new Outgoing(Kind.MESSAGE, msg, msg.epoch(), s.credits.spend(System.nanoTime()));
                    }
                }
                if (allDelivered() || shareDelivered(s)) {
                    return new Outgoing(Kind.END_OF_STREAM, null, -1, -1);
                }
                if (unflushed) {
                    return FLUSH;
                }
                if (!heartbeats) {
                    changed.await();
                    continue;
                }
                long idle = heartbeatNanos - (System.nanoTime() - lastWriteNanos);
                if (idle <= 0) {
                    return new Outgoing(Kind.HEARTBEAT, null, -1, -1);
                }
                changed.awaitNanos(idle);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes FETCH frames of {@code c}'s client, in order, under one lock (the frames that arrived
     * together: one wake-up of the waiting threads, not one per frame): their credits, the epoch
     * the client reads, their acks. False if the connection no longer serves a session (the
     * receiver stops).
     */
    boolean fetch(ClientConnection c, List<Frame.Fetch> fetches) throws ProtocolException {
        lock.lock();
        try {
            ClientSession s = c.session;
            if (s == null || c.gone) {
                return false;
            }
            try {
                for (Frame.Fetch fetch : fetches) {
                    take(s, fetch);
                }
            } finally {
                // A client now waiting for an open epoch lets put() past the bound; acks made room.
                notFull.signalAll();
                changed.signalAll();
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Caller holds the lock. One FETCH of session {@code s}: its credits, the epoch it reads, its ack. */
    private void take(ClientSession s, Frame.Fetch fetch) throws ProtocolException {
        s.credits.grant(fetch.credits(), System.nanoTime());
        s.maxEpoch = fetch.maxEpoch();
        if (!s.isValidAck(fetch.ackedSeq())) {
            throw new ProtocolException("FETCH acknowledges seq " + Long.toUnsignedString(fetch.ackedSeq())
                    + " but only " + s.lastSeq() + " messages were sent in this session");
        }
        // An ack of a message no longer held (acknowledged twice) is harmless.
        EncodedMessage acked = s.ack(fetch.ackedSeq());
        if (acked != null) {
            held.acknowledged(acked);
            epochs.acknowledged(acked.epoch, acked.batchId);
            updateEndedEpoch();
        }
    }

    /** {@code c} is over: its session (if still its own) is detached and starts its expiry clock. */
    void detach(ClientConnection c) {
        lock.lock();
        try {
            c.gone = true;
            ClientSession s = c.session;
            if (s != null && s.connection == c) {
                s.connection = null;
                s.credits.reset();
                s.detachedAt = System.nanoTime();
                if (s.holdsNothing()) {
                    // Nothing to resume: forget the session at once.
                    sessions.remove(s);
                } else if (options.sessionTimeout().isZero()) {
                    sessions.remove(s);
                    requeue(s);
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Hands the unacknowledged messages of sessions whose client stayed away too long back to the buffer. */
    void expireSessions() {
        lock.lock();
        try {
            for (ClientSession s : sessions.expire(System.nanoTime(), options.sessionTimeout().toNanos())) {
                int n = requeue(s);
                if (n > 0) {
                    LOG.info("{}: session {} expired; {} unacknowledged messages go back to the buffer", name, Long.toHexString(s.id), n);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Caller holds the lock. Everything {@code s} holds back to the front of the buffer, in order. */
    private int requeue(ClientSession s) {
        List<EncodedMessage> back = s.takeAll();
        held.requeueFront(back);
        changed.signalAll();
        return back.size();
    }

    // ---- statistics --------------------------------------------------------------------------

    void setListener(ChannelEndpoint.Listener listener) {
        this.listener = listener;
    }

    /** A MESSAGE frame was written: counted and told to the listener (outside the lock). */
    void recordSent(int payloadBytes, long latencyNanos) {
        delivered.incrementAndGet();
        ChannelEndpoint.Listener l = listener;
        if (l != null) {
            l.onSent(payloadBytes);
            l.onFetchLatency(latencyNanos);
        }
    }

    long delivered() {
        return delivered.get();
    }

    int buffered() {
        lock.lock();
        try {
            return held.buffered();
        } finally {
            lock.unlock();
        }
    }

    long bufferedBytes() {
        lock.lock();
        try {
            return held.bufferedBytes();
        } finally {
            lock.unlock();
        }
    }

    int held() {
        lock.lock();
        try {
            return held.count();
        } finally {
            lock.unlock();
        }
    }

    long heldBytes() {
        lock.lock();
        try {
            return held.bytes();
        } finally {
            lock.unlock();
        }
    }

    long peakHeldBytes() {
        lock.lock();
        try {
            return held.peakBytes();
        } finally {
            lock.unlock();
        }
    }

    int endedEpoch() {
        lock.lock();
        try {
            return epochs.ended();
        } finally {
            lock.unlock();
        }
    }

    int watermarkEpoch() {
        lock.lock();
        try {
            return epochs.watermark();
        } finally {
            lock.unlock();
        }
    }
}
