package io.fanout.sampling.partitioned;

import io.fanout.random.SplitMix64;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.Arrays;

/**
 * A batch's nodes of disjoint trees in discovery order, one per (tree, node id), and the index from a (tree, id) to
 * its local index: {@link io.fanout.sampling.LocalIds} for {@code --disjoint}, where a node reached
 * from two seeds is two nodes. The table holds local indices and a probe compares against the lists themselves.
 *
 * <p>Not thread-safe; one per batch (and node type).
 */
public final class TreeLocalIds {
    private final LongArrayList ids;
    private final IntArrayList trees;
    /** Open addressing over (tree, id): the local index of each, -1 = empty slot; load at most 1/2. */
    private int[] slots;

    /** Room for {@code expected} nodes. */
    public TreeLocalIds(int expected) {
        ids = new LongArrayList(Math.max(expected, 4));
        trees = new IntArrayList(Math.max(expected, 4));
        slots = emptySlots(expected);
    }

    /** The nodes {@code (trees[i], ids[i])}, distinct, as local indices {@code 0 .. n-1}, with room for {@code more}. */
    public static TreeLocalIds of(long[] ids, int[] trees, int more) {
        if (trees.length != ids.length) {
            throw new IllegalArgumentException(ids.length + " nodes but " + trees.length + " tree indices");
        }
        TreeLocalIds local = new TreeLocalIds(ids.length + Math.max(more, 0));
        for (int i = 0; i < ids.length; i++) {
            if (local.add(trees[i], ids[i]) != i) {
                throw new IllegalArgumentException("node " + ids[i] + " twice in tree " + trees[i]);
            }
        }
        return local;
    }

    /** The local index of {@code id} in tree {@code tree}, added (as the next index) when the tree lacks it. */
    public int add(int tree, long id) {
        if ((ids.size() + 1) * 2L > slots.length) {
            ensureCapacity(ids.size() + 1 + (ids.size() >> 1));
        }
        int mask = slots.length - 1;
        for (int s = slot(tree, id, mask); ; s = (s + 1) & mask) {
            int local = slots[s];
            if (local < 0) {
                slots[s] = ids.size();
                ids.add(id);
                trees.add(tree);
                return slots[s];
            }
            if (ids.getLong(local) == id && trees.getInt(local) == tree) {
                return local;
            }
        }
    }

    /** Room for {@code capacity} nodes in all without rebuilding the table. */
    public void ensureCapacity(int capacity) {
        if (capacity * 2L <= slots.length) {
            return;
        }
        slots = emptySlots(capacity);
        int mask = slots.length - 1;
        for (int i = 0; i < ids.size(); i++) {
            int s = slot(trees.getInt(i), ids.getLong(i), mask);
            while (slots[s] >= 0) {
                s = (s + 1) & mask;
            }
            slots[s] = i;
        }
    }

    public int size() {
        return ids.size();
    }

    /** The tree of local index {@code index}. */
    public int tree(int index) {
        return trees.getInt(index);
    }

    /** The ids in {@code [from, to)}, a copy. */
    public long[] ids(int from, int to) {
        return Arrays.copyOfRange(ids.elements(), from, to);
    }

    /** The trees in {@code [from, to)}, a copy. */
    public int[] trees(int from, int to) {
        return Arrays.copyOfRange(trees.elements(), from, to);
    }

    private static int slot(int tree, long id, int mask) {
        return (int) SplitMix64.mix(id * 0x9E3779B97F4A7C15L + tree) & mask;
    }

    private static int[] emptySlots(int expected) {
        int[] slots = new int[Math.max(16, Integer.highestOneBit(Math.max(expected, 1) * 2 - 1) << 1)];
        Arrays.fill(slots, -1);
        return slots;
    }
}
