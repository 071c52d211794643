package io.fanout.sampling.ppr;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
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

    private long[] ids;
    private int size;
    /** id -> slot; null after {@link #read} until a slot is asked for by id. */
    private Long2IntOpenHashMap slots;
    /** Slot -> the advancing push's local index, -1 everywhere between advances ({@link #localScratch}). */
    private int[] local = new int[0];

    public PushNodes() {
        this(new long[16], 0);
        slots = newMap(16);
    }

    private PushNodes(long[] ids, int size) {
        this.ids = ids;
        this.size = size;
    }

    private static Long2IntOpenHashMap newMap(int expected) {
        Long2IntOpenHashMap map = new Long2IntOpenHashMap(expected);
        map.defaultReturnValue(-1);
        return map;
    }

    /** The slot of node {@code id}, given the next free slot on first sight. */
    public int slot(long id) {
        if (slots == null) {
            // Room for as many new nodes as known ones: the next round's lists bring new neighbours.
            slots = newMap(Math.max(16, 2 * size));
            for (int s = 0; s < size; s++) {
                slots.put(ids[s], s);
            }
        }
        int s = slots.putIfAbsent(id, size);
        if (s >= 0) {
            return s;
        }
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, 2 * size);
        }
        ids[size] = id;
        return size++;
    }

    /** The node id of slot {@code slot}. */
    public long id(int slot) {
        return ids[slot];
    }

    /** Slots given so far ({@code 0..size()-1}). */
    public int size() {
        return size;
    }

    /**
     * A map of every slot to -1, for one push's local indices while it advances; the push sets its own entries and
     * puts them back to -1 before the next push takes the map. Sized for the slots given so far: no slot is added
     * while a push advances (lists are bound when they are added).
     */
    int[] localScratch() {
        if (local.length < size) {
            local = new int[Math.max(size, 2 * local.length)];
            Arrays.fill(local, -1);
        }
        return local;
    }

    /** Bytes {@link #write} writes. */
    long serializedSize() {
        return 4 + 8L * size;
    }

    /** Writes the ids in slot order. */
    void write(ByteBuffer out) {
        out.putInt(size);
        out.asLongBuffer().put(ids, 0, size);
        out.position(out.position() + Long.BYTES * size);
    }

    /** The nodes {@link #write} wrote, with the same slots (the id map is built when a slot is next asked for by id). */
    static PushNodes read(ByteBuffer in) {
        int n = in.getInt();
        long[] ids = new long[Math.max(16, n)];
        in.asLongBuffer().get(ids, 0, n);
        in.position(in.position() + Long.BYTES * n);
        return new PushNodes(ids, n);
    }
}
