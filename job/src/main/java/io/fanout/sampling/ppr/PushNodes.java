package io.fanout.sampling.ppr;

import it.unimi.dsi.fastutil.HashCommon;
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
    /**
     * id -> slot: open addressing over {@link #ids}, each bucket its slot + 1 (0 = empty), at most half full; null
     * after {@link #read} until a slot is asked for by id. Four bytes a bucket, the ids compared where they are: a
     * batch's map is rebuilt every fetch round, and a map holding each id again (fastutil's, 12 bytes a bucket at
     * three quarters full) allocated and filled three times the memory for the same probes.
     */
    private int[] table;
    private int mask;
    /** Slots expected beyond {@link #size} when the table is next built ({@link #read(ByteBuffer, int)}). */
    private int expected;
    /** Slot -> the advancing push's local index, -1 everywhere between advances ({@link #localScratch}). */
    private int[] local = new int[0];

    public PushNodes() {
        this(new long[16], 0);
        buildTable(16);
    }

    private PushNodes(long[] ids, int size) {
        this.ids = ids;
        this.size = size;
    }

    /** A table for {@code slots} slots at most half full, holding the slots given so far. */
    private void buildTable(int slots) {
        int capacity = HashCommon.nextPowerOfTwo(Math.max(32, 2 * slots));
        int[] t = new int[capacity];
        int m = capacity - 1;
        long[] ids = this.ids;
        for (int s = 0; s < size; s++) {
            int h = (int) HashCommon.mix(ids[s]) & m;
            while (t[h] != 0) {
                h = (h + 1) & m;
            }
            t[h] = s + 1;
        }
        table = t;
        mask = m;
    }

    /** The slot of node {@code id}, given the next free slot on first sight. */
    public int slot(long id) {
        if (table == null) {
            // Room for as many new nodes as known ones, or as expected: the next round's lists bring new neighbours.
            buildTable(Math.max(2 * size, size + expected));
            expected = 0;
        }
        final int[] t = table;
        final int m = mask;
        int h = (int) HashCommon.mix(id) & m;
        int e;
        while ((e = t[h]) != 0) {
            if (ids[e - 1] == id) {
                return e - 1;
            }
            h = (h + 1) & m;
        }
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, 2 * size);
        }
        int s = size++;
        ids[s] = id;
        t[h] = s + 1;
        if (2 * size > t.length) {
            buildTable(2 * size);
        }
        return s;
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
        return read(in, 0);
    }

    /** As {@link #read(ByteBuffer)}, with room for {@code more} new slots before the ids or the map regrow. */
    static PushNodes read(ByteBuffer in, int more) {
        int n = in.getInt();
        if (n < 0 || (long) n * Long.BYTES > in.remaining()) {
            throw new IllegalArgumentException(n + " nodes in " + in.remaining() + " bytes of a batch push state");
        }
        long[] ids = new long[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(16L, (long) n + Math.max(0, more)))];
        in.asLongBuffer().get(ids, 0, n);
        in.position(in.position() + Long.BYTES * n);
        PushNodes nodes = new PushNodes(ids, n);
        nodes.expected = Math.max(0, more);
        return nodes;
    }
}
