package io.fanout.connectors.channel.endpoint;

/**
 * The credits a client granted its session with FETCH frames: how many more MESSAGE frames it may be
 * sent, and since when the oldest unused credit waits (the fetch latency the server reports).
 * Guarded by the endpoint lock.
 */
final class CreditWindow {
    private long credits;
    /** When the oldest unused credit was granted (System.nanoTime), 0 if none. */
    private long since;

    /** Adds {@code n} credits granted at {@code now}. */
    void grant(long n, long now) {
        if (n > 0 && credits == 0) {
            since = now;
        }
        // Capped so a client granting absurd amounts cannot overflow the count.
        credits = Math.min(credits + n, Long.MAX_VALUE / 2);
    }

    boolean available() {
        return credits > 0;
    }

    /** Spends one credit on a message sent at {@code now}; returns how long that credit waited for it. */
    long spend(long now) {
        credits--;
        long latency = now - since;
        since = credits > 0 ? now : 0;
        return latency;
    }

    /** Credits of a connection that is gone are void: the next connection grants its own. */
    void reset() {
        credits = 0;
        since = 0;
    }
}
