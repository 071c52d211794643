package io.fanout.sampling.ppr;

import java.nio.IntBuffer;
import java.util.Arrays;

/**
 * One batch's fetched neighbour lists by slot of its {@link PushNodes} (a push reads the list of its queue's head by
 * slot), in one int array: per list its slot, the node's true degree, the number {@code n} of neighbours a push reads,
 * their slots, then their true degrees ({@code 3 + 2n} ints). That is the layout a batch's state holds them in, so a
 * fetch round reads and writes every list as one copy (a pair of arrays per list, read back one by one, cost more
 * than the copies).
 */
final class SlotLists {
    /** By slot: where its list starts in {@link #entries}, or -1 when not fetched. */
    private int[] at;
    private int[] entries;
    private int used;
    private int count;

    /** No list yet, room for {@code slots} slots (at least 16). */
    SlotLists(int slots) {
        at = new int[Math.max(16, slots)];
        Arrays.fill(at, -1);
        entries = new int[64];
    }

    /** Where the list of {@code slot} starts in {@link #entries()}, or -1 when not fetched. */
    int at(int slot) {
        return slot < at.length ? at[slot] : -1;
    }

    boolean has(int slot) {
        return at(slot) >= 0;
    }

    /**
     * The lists: at {@code a = at(slot)}, the degree is {@code entries[a + 1]}, {@code n = entries[a + 2]}, the read
     * neighbours' slots {@code entries[a + 3 ...]} and their degrees {@code entries[a + 3 + n ...]}. The array is
     * replaced as lists are added, never while a push advances.
     */
    int[] entries() {
        return entries;
    }

    /** Lists held. */
    int count() {
        return count;
    }

    /** Ints the lists take ({@link #write}). */
    int size() {
        return used;
    }

    /**
     * Adds the list of {@code slot}, its neighbours as slots of {@code nodes} (new neighbours get theirs); a second list
     * for a slot is ignored (lists are fixed per node).
     *
     * @return whether the list was added
     */
    boolean add(int slot, FetchedList list, PushNodes nodes) {
        long[] neighbors = list.neighbors();
        return add(slot, list.degree(), neighbors, list.neighborDegrees(), 0, neighbors.length, nodes);
    }

    /**
     * As {@link #add(int, FetchedList, PushNodes)}, the list being {@code neighbors[from..to)} with their degrees at
     * the same places of {@code neighborDegrees} (a fetch answers a batch's lists in one pair of arrays; checked as
     * {@link FetchedList} checks a list).
     */
    boolean add(int slot, int degree, long[] neighbors, int[] neighborDegrees, int from, int to, PushNodes nodes) {
        int n = to - from;
        if (n < 0 || from < 0 || to > neighbors.length || to > neighborDegrees.length) {
            throw new IllegalArgumentException("neighbours [" + from + ", " + to + ") of " + neighbors.length
                    + " ids and " + neighborDegrees.length + " degrees");
        }
        FetchedList.checkRead(degree, n);
        if (has(slot)) {
            return false;
        }
        reserve(3 + 2 * n);
        int a = used;
        int[] entries = this.entries;
        entries[a] = slot;
        entries[a + 1] = degree;
        entries[a + 2] = n;
        for (int i = 0; i < n; i++) {
            entries[a + 3 + i] = nodes.slot(neighbors[from + i]);
        }
        System.arraycopy(neighborDegrees, from, entries, a + 3 + n, n);
        used = a + 3 + 2 * n;
        count++;
        if (slot >= at.length) {
            int old = at.length;
            at = Arrays.copyOf(at, Math.max(2 * old, Math.max(slot + 1, nodes.size())));
            Arrays.fill(at, old, at.length, -1);
        }
        at[slot] = a;
        return true;
    }

    /**
     * Room for {@code ints} more ints of lists ({@code 3 + 2n} a list of n neighbours) without regrowing: a round adds
     * its fetched lists after one reservation, not one doubling copy of every list held after another.
     */
    void reserve(long ints) {
        if (used + ints > entries.length) {
            long grown = Math.max(used + ints, Math.min(2L * entries.length, Integer.MAX_VALUE - 8));
            if (grown > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("lists of " + grown + " ints: over a Java array's limit");
            }
            entries = Arrays.copyOf(entries, (int) grown);
        }
    }

    /** Writes every list (the ints {@link #size} counts). */
    void write(IntBuffer out) {
        out.put(entries, 0, used);
    }

    /**
     * The {@code count} lists {@link #write} wrote, which are the rest of {@code in}, over {@code slots} slots.
     *
     * @throws IllegalArgumentException when they do not fill the rest exactly
     */
    static SlotLists read(IntBuffer in, int count, int slots) {
        return read(in, count, slots, 0);
    }

    /** As {@link #read(IntBuffer, int, int)}, with room for {@code moreInts} ints of lists ({@link #reserve}). */
    static SlotLists read(IntBuffer in, int count, int slots, long moreInts) {
        SlotLists lists = new SlotLists(slots);
        int used = in.remaining();
        lists.reserve((long) used + Math.max(0, moreInts));
        in.get(lists.entries, 0, used);
        int a = 0;
        for (int i = 0; i < count; i++) {
            if (a + 3 > used) {
                throw new IllegalArgumentException("list " + i + " of " + count + " ends past the state");
            }
            int slot = lists.entries[a];
            if (slot < 0 || slot >= slots) {
                throw new IllegalArgumentException("list " + i + " has slot " + slot + " of " + slots);
            }
            int n = lists.entries[a + 2];
            if (n < 0 || n > (used - a - 3) / 2) {
                throw new IllegalArgumentException("list " + i + " of " + count + " claims " + n
                        + " neighbours, past the state");
            }
            lists.at[slot] = a;
            a += 3 + 2 * n;
        }
        if (a != used) {
            throw new IllegalArgumentException((used - a) * Integer.BYTES + " bytes after the batch push state");
        }
        lists.used = used;
        lists.count = count;
        return lists;
    }
}
