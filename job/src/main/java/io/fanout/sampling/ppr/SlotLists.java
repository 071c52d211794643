package io.fanout.sampling.ppr;

import java.util.Arrays;

/**
 * One batch's fetched neighbour lists by slot of its {@link PushNodes} (a push reads the list of its queue's head by
 * slot): null where no list was fetched yet, growing with the slots as lists bring new neighbours.
 */
final class SlotLists {
    private FetchedList[] lists;

    /** Room for {@code slots} slots (at least 16). */
    SlotLists(int slots) {
        lists = new FetchedList[Math.max(16, slots)];
    }

    /** The list of {@code slot}, or null when not fetched. */
    FetchedList get(int slot) {
        return slot < lists.length ? lists[slot] : null;
    }

    /** Sets the list of {@code slot}; {@code slots} is the batch's slot count now (the list's neighbours included). */
    void put(int slot, FetchedList list, int slots) {
        if (slots > lists.length) {
            lists = Arrays.copyOf(lists, Math.max(slots, 2 * lists.length));
        }
        lists[slot] = list;
    }

    /** Slots below which {@link #get} may return a list (for iterating over every list). */
    int bound() {
        return lists.length;
    }
}
