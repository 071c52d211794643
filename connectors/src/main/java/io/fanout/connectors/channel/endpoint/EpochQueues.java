package io.fanout.connectors.channel.endpoint;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/** Epoch-aware look-ups in a message queue: a client reading epoch e takes nothing of a later epoch. */
final class EpochQueues {
    private EpochQueues() {}

    /**
     * Removes and returns the first element of {@code q} whose epoch is at most {@code maxEpoch} (the
     * epoch its client reads), or null. Usually the head: only a client reading an earlier epoch
     * than some buffered messages makes the endpoint skip them, so its stragglers get past them.
     */
    static <T> T pollEligible(ArrayDeque<T> q, ToIntFunction<T> epoch, int maxEpoch) {
        return pollEligible(q, epoch, maxEpoch, t -> true);
    }

    /** As {@link #pollEligible(ArrayDeque, ToIntFunction, int)}, among the elements {@code share} accepts (a rank's). */
    static <T> T pollEligible(ArrayDeque<T> q, ToIntFunction<T> epoch, int maxEpoch, Predicate<T> share) {
        T head = q.peekFirst();
        if (head == null || (epoch.applyAsInt(head) <= maxEpoch && share.test(head))) {
            return q.pollFirst();
        }
        for (Iterator<T> it = q.iterator(); it.hasNext();) {
            T t = it.next();
            if (epoch.applyAsInt(t) <= maxEpoch && share.test(t)) {
                it.remove();
                return t;
            }
        }
        return null;
    }

    /** Whether {@code q} holds anything of an epoch up to {@code maxEpoch}. */
    static <T> boolean holdsEpochUpTo(ArrayDeque<T> q, ToIntFunction<T> epoch, int maxEpoch) {
        for (T t : q) {
            if (epoch.applyAsInt(t) <= maxEpoch) {
                return true;
            }
        }
        return false;
    }
}
