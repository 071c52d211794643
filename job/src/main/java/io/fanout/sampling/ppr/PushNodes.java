package io.fanout.sampling.ppr;

import io.fanout.sampling.LocalIds;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The nodes one batch's pushes have met, numbered densely in order of first sight (<em>slots</em>). Pushes and bound
 * lists ({@link SlotLists}) name nodes by slot, so a push's innermost steps (the list of the queue's head, the
 * local index of a neighbour) index arrays instead of hashing node ids, and the state kept between fetch rounds holds
 * each id once. Slots are numbered in the order lists arrive in; no result depends on that order.
 */
public final class PushNodes {
    /**
     * Byte order of a batch's push state between fetch rounds: little-endian, the order of the machines it runs on, so
     * its columns go in and out as plain copies (big-endian, ByteBuffer's default, byte-swapped every value of every
     * column on the way out and back in, each round).
     */
    static final ByteOrder STATE_ORDER = ByteOrder.LITTLE_ENDIAN;

    /**
     * The ids by slot and the index from id to slot ({@link LocalIds}: slot + 1 per bucket of a half-full table over
     * the ids; a map holding each id again, fastutil's, allocated and filled three times the memory each round). Read
     * from a state, the index is built at the first slot asked for by id.
     */
    private final LocalIds ids;
    /** Slot -> the advancing push's local index, -1 everywhere between advances ({@link #localScratch}). */
    private int[] local = new int[0];

    public PushNodes() {
        this(new LocalIds(16));
    }

    private PushNodes(LocalIds ids) {
        this.ids = ids;
    }

    /** The slot of node {@code id}, given the next free slot on first sight. */
    public int slot(long id) {
        return ids.add(id);
    }

    /** The node id of slot {@code slot}. */
    public long id(int slot) {
        return ids.id(slot);
    }

    /** Slots given so far ({@code 0..size()-1}). */
    public int size() {
        return ids.size();
    }

    /**
     * A map of every slot to -1, for one push's local indices while it advances; the push sets its own entries and
     * puts them back to -1 before the next push takes the map. Sized for the slots given so far: no slot is added
     * while a push advances (lists are bound when they are added).
     */
    int[] localScratch() {
        int size = ids.size();
        if (local.length < size) {
            local = new int[Math.max(size, 2 * local.length)];
            Arrays.fill(local, -1);
        }
        return local;
    }

    /** Bytes {@link #write} writes. */
    long serializedSize() {
        return 4 + 8L * ids.size();
    }

    /** Writes the ids in slot order. */
    void write(ByteBuffer out) {
        int size = ids.size();
        out.putInt(size);
        ids.putIds(out.asLongBuffer());
        out.position(out.position() + Long.BYTES * size);
    }

    /**
     * The nodes {@link #write} wrote, with the same slots (the index is built when a slot is next asked for by id),
     * with room for as many new nodes as known ones before the ids or the index regrow: the next round's lists bring
     * new neighbours.
     */
    static PushNodes read(ByteBuffer in) {
        int n = in.getInt();
        if (n < 0 || (long) n * Long.BYTES > in.remaining()) {
            throw new IllegalArgumentException(n + " nodes in " + in.remaining() + " bytes of a batch push state");
        }
        int room = Math.max(16, n);
        long[] ids = new long[(int) Math.min(LocalIds.MAX_IDS, (long) n + room)];
        in.asLongBuffer().get(ids, 0, n);
        in.position(in.position() + Long.BYTES * n);
        return new PushNodes(LocalIds.adopt(ids, n, room));
    }
}
