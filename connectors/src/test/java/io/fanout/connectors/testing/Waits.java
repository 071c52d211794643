package io.fanout.connectors.testing;

import java.time.Duration;

/** Waits on a condition with a deadline, failing with what did not happen: the one place tests poll. */
public final class Waits {
    /** How often a condition is looked at: short against the deadlines, long enough not to spin a core. */
    private static final long POLL_MILLIS = 5;

    private Waits() {}

    /** A condition that may throw (a REST call, a file read). */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /**
     * Returns once {@code condition} holds; throws an {@link AssertionError} naming {@code what} (the
     * event waited for, e.g. "the writer blocked on the bound") if it still does not at the deadline.
     */
    public static void until(String what, Duration deadline, Condition condition) throws Exception {
        long end = System.nanoTime() + deadline.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out after " + deadline.toMillis() + " ms waiting until " + what);
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /** Returns once {@code thread} is in {@code state} (e.g. WAITING: blocked on a bound, parked on a condition). */
    public static void untilState(String what, Duration deadline, Thread thread, Thread.State state) throws Exception {
        until(what + " (thread " + thread.getName() + " " + state + ")", deadline,
                () -> thread.getState() == state);
    }
}
