package io.fanout.connectors.channel.client;

import io.fanout.connectors.message.EncodedMessage;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The reader's epoch bookkeeping, consumer thread only: messages of later epochs parked until their
 * epoch is read, the batch ids handed out per open epoch (so a re-sent copy is dropped), and the
 * epoch every endpoint has ended (anything of it arriving later is a copy).
 */
final class EpochOrdering {
    /** Items of later epochs that arrived while reading an epoch, by epoch. */
    private final TreeMap<Integer, ArrayDeque<ReaderEvent.Item>> parked = new TreeMap<>();
    /** (batch ids) handed out per epoch still open; epochs every endpoint ended are pruned. */
    private final Map<Integer, Set<Integer>> seen = new HashMap<>();
    /** Every epoch up to this one is over at every endpoint. */
    private int closedEpoch = -1;

    /**
     * Holds back a message of a later epoch (from an endpoint that sent it before it learned the
     * epoch being read). Neither acknowledged nor credited until handed out: it counts against its
     * endpoint's credit window, so what the reader holds stays bounded.
     */
    void park(ReaderEvent.Item item) {
        parked.computeIfAbsent(item.sample().epoch, k -> new ArrayDeque<>()).add(item);
    }

    /** The earliest parked item of any epoch, or null. */
    ReaderEvent.Item pollAnyParked() {
        if (parked.isEmpty()) {
            return null;
        }
        ArrayDeque<ReaderEvent.Item> first = parked.firstEntry().getValue();
        ReaderEvent.Item item = first.poll();
        if (first.isEmpty()) {
            parked.pollFirstEntry();
        }
        return item;
    }

    /** A parked item of {@code epoch}, or null (then nothing of it is parked any more). */
    ReaderEvent.Item pollParked(int epoch) {
        ArrayDeque<ReaderEvent.Item> early = parked.get(epoch);
        ReaderEvent.Item item = early == null ? null : early.poll();
        if (item == null) {
            parked.remove(epoch);
        }
        return item;
    }

    boolean hasParked() {
        return !parked.isEmpty();
    }

    int parkedCount() {
        return parked.values().stream().mapToInt(ArrayDeque::size).sum();
    }

    /** Whether {@code s} was handed out before (or its epoch is over everywhere): a copy. */
    boolean isCopy(EncodedMessage s) {
        return s.epoch <= closedEpoch || seen.getOrDefault(s.epoch, Set.of()).contains(s.batchId);
    }

    /** {@code s} is handed out: later copies of it are dropped. */
    void handedOut(EncodedMessage s) {
        seen.computeIfAbsent(s.epoch, k -> new HashSet<>()).add(s.batchId);
    }

    /** Every endpoint has ended epochs up to {@code epoch}: their de-dup sets are no longer needed. */
    void closeUpTo(int epoch) {
        if (epoch > closedEpoch) {
            closedEpoch = epoch;
            seen.keySet().removeIf(e -> e <= epoch);
        }
    }
}
