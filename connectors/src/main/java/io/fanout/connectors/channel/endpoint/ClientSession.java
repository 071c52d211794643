package io.fanout.connectors.channel.endpoint;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.message.EncodedMessage;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * A client's session: outlives its connection, so a client that reconnects (HELLO with the session
 * id) gets its unacknowledged messages again (its resend buffer). Guarded by the endpoint lock.
 */
final class ClientSession {
    /** A message sent in a session: its seq and the sample. */
    record Sent(long seq, EncodedMessage sample) {
        int epoch() {
            return sample.epoch;
        }
    }

    final long id;
    /** The data-parallel rank whose share the session gets, or {@link ChannelProtocol#NO_RANK}: any message. */
    final int rank;
    /** The job's trainers (batch id mod this is a batch's rank). */
    private final int trainers;
    /** Sent, not yet acknowledged, in seq order. */
    private final ArrayDeque<Sent> unacked = new ArrayDeque<>();
    /** Unacknowledged messages to send again after a resume, in seq order. */
    private final ArrayDeque<Sent> resend = new ArrayDeque<>();
    private long nextSeq = 1;
    final CreditWindow credits = new CreditWindow();
    /** The client takes messages of epochs up to this one (FETCH max_epoch, version 3). */
    int maxEpoch = ChannelProtocol.ANY_EPOCH;
    /** The connection serving the session, null while its client is away. */
    ClientConnection connection;
    /** When the client went away (System.nanoTime): the start of its expiry clock. */
    long detachedAt;
    /** END_OF_EPOCH told to the current connection up to this epoch. */
    int toldEndedEpoch = -1;

    ClientSession(long id, int rank, int trainers) {
        this.id = id;
        this.rank = rank;
        this.trainers = trainers;
    }

    /** Whether {@code m} is of this session's share: every message without a rank, else its rank's batches. */
    boolean takes(EncodedMessage m) {
        return rank < 0 || Math.floorMod(m.batchId, trainers) == rank;
    }

    /** The next message to send again after a resume that the client's epoch allows, or null. */
    Sent nextResend() {
        return EpochQueues.pollEligible(resend, Sent::epoch, maxEpoch);
    }

    /** Numbers a fresh message of this session. */
    Sent number(EncodedMessage sample) {
        return new Sent(nextSeq++, sample);
    }

    /** The message is on its way: unacknowledged until the client says otherwise. */
    void sent(Sent msg) {
        unacked.addLast(msg);
    }

    /** Whether {@code seq} is one this session could have sent. */
    boolean isValidAck(long seq) {
        return seq >= 0 && seq < nextSeq;
    }

    /** The highest seq sent so far. */
    long lastSeq() {
        return nextSeq - 1;
    }

    /**
     * Drops the acknowledged message {@code seq} and returns its sample; null for seq 0 (no ack) and
     * for a message no longer held (acknowledged twice: harmless).
     */
    EncodedMessage ack(long seq) {
        if (seq == 0) {
            return null;
        }
        EncodedMessage s = removeSeq(unacked, seq);
        return s != null ? s : removeSeq(resend, seq);
    }

    private static EncodedMessage removeSeq(ArrayDeque<Sent> q, long seq) {
        for (Iterator<Sent> it = q.iterator(); it.hasNext();) {
            Sent p = it.next();
            if (p.seq == seq) {
                it.remove();
                return p.sample;
            }
        }
        return null;
    }

    /**
     * A new connection resumes the session: unacknowledged messages go again, first and in order (the
     * client dropped the copies it had not consumed and acknowledges again those it had); credits of
     * the old connection are void.
     */
    void resume() {
        List<Sent> again = new ArrayList<>(unacked);
        again.addAll(resend);
        again.sort((a, b) -> Long.compare(a.seq, b.seq));
        unacked.clear();
        resend.clear();
        resend.addAll(again);
        credits.reset();
        toldEndedEpoch = -1;
    }

    /** Whether a message {@code share} accepts is unacknowledged or to be re-sent here. */
    boolean holdsAnyOf(java.util.function.Predicate<EncodedMessage> share) {
        for (Sent p : unacked) {
            if (share.test(p.sample)) {
                return true;
            }
        }
        for (Sent p : resend) {
            if (share.test(p.sample)) {
                return true;
            }
        }
        return false;
    }

    /** Nothing unacknowledged: nothing to resume. */
    boolean holdsNothing() {
        return unacked.isEmpty() && resend.isEmpty();
    }

    /** Whether a message of an epoch up to {@code maxEpoch} is unacknowledged or to be re-sent here. */
    boolean holdsEpochUpTo(int epoch) {
        return EpochQueues.holdsEpochUpTo(unacked, Sent::epoch, epoch) || EpochQueues.holdsEpochUpTo(resend, Sent::epoch, epoch);
    }

    /** Removes and returns every unacknowledged message: to be re-sent first, then the unacked, in order. */
    List<EncodedMessage> takeAll() {
        List<EncodedMessage> all = new ArrayList<>(resend.size() + unacked.size());
        addHeld(all);
        resend.clear();
        unacked.clear();
        return all;
    }

    /** Adds every unacknowledged message to {@code out}: to be re-sent first, then the unacked. */
    void addHeld(List<EncodedMessage> out) {
        for (Sent p : resend) {
            out.add(p.sample);
        }
        for (Sent p : unacked) {
            out.add(p.sample);
        }
    }
}
