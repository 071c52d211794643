package io.fanout.connectors.channel.endpoint;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The endpoint's client sessions by id, and their expiry: a session whose client stayed away longer
 * than the session timeout is dropped (its messages go back to the buffer, see {@link EndpointDelivery}).
 * Guarded by the endpoint lock.
 */
final class SessionTable {
    private final Map<Long, ClientSession> sessions = new HashMap<>();

    /** The session {@code id} asks to resume, or null (none asked for, or forgotten). */
    ClientSession find(long id) {
        return id == ChannelProtocol.NEW_SESSION ? null : sessions.get(id);
    }

    /**
     * A detached session of data-parallel rank {@code rank} (a crashed trainer's), or null: a
     * replacement of that rank takes it over with its unacknowledged messages.
     */
    ClientSession detachedOfRank(int rank) {
        for (ClientSession s : sessions.values()) {
            if (s.rank == rank && s.connection == null) {
                return s;
            }
        }
        return null;
    }

    /** A new session with a fresh random id (never {@link ChannelProtocol#NEW_SESSION}) for {@code rank}'s share. */
    ClientSession create(int rank, int trainers) {
        long id;
        do {
            id = ThreadLocalRandom.current().nextLong();
        } while (id == ChannelProtocol.NEW_SESSION || sessions.containsKey(id));
        ClientSession s = new ClientSession(id, rank, trainers);
        sessions.put(id, s);
        return s;
    }

    void remove(ClientSession s) {
        sessions.remove(s.id);
    }

    Collection<ClientSession> all() {
        return sessions.values();
    }

    /** Removes and returns the sessions detached for at least {@code timeoutNanos} at {@code now}. */
    List<ClientSession> expire(long now, long timeoutNanos) {
        List<ClientSession> expired = new ArrayList<>();
        for (Iterator<ClientSession> it = sessions.values().iterator(); it.hasNext();) {
            ClientSession s = it.next();
            if (s.connection == null && now - s.detachedAt >= timeoutNanos) {
                it.remove();
                expired.add(s);
            }
        }
        return expired;
    }
}
