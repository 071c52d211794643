package io.fanout.sampling;

/**
 * The k best (node, key) pairs of a stream, best = larger key, ties to the smaller node id: a bounded
 * binary heap over primitive arrays whose root is the worst pair kept (no boxing, no allocation per offer).
 * PPR keeps its top-k scores with it, weighted k-hop sampling its exponential races ({@link WeightedDraws}).
 * A pair may carry an int tag ({@link #offerTagged}), e.g. where the caller keeps the node.
 */
public final class TopK {
    /** Node ids (int indices of the memory store widen to them). */
    private long[] nodes;
    private double[] keys;
    /** Each kept pair's tag; null until a tagged offer (the untagged heaps move no tags). */
    private int[] tags;
    private int capacity;
    private int size;

    public TopK(int initialCapacity) {
        nodes = new long[Math.max(initialCapacity, 1)];
        keys = new double[Math.max(initialCapacity, 1)];
    }

    /** Empties the heap and sets how many pairs it keeps. */
    public void reset(int k) {
        if (nodes.length < k) {
            nodes = new long[k];
            keys = new double[k];
            tags = tags == null ? null : new int[k];
        }
        capacity = k;
        size = 0;
    }

    public int size() {
        return size;
    }

    /** True if (nodeA, keyA) ranks before (nodeB, keyB). */
    public static boolean better(double keyA, long nodeA, double keyB, long nodeB) {
        return keyA > keyB || (keyA == keyB && nodeA < nodeB);
    }

    /**
     * False when no node offered with {@code key} would be kept: the heap is full and its worst key is larger (a tie
     * depends on the node ids). Lets a caller skip finding the node of a key that cannot win.
     */
    public boolean mayKeep(double key) {
        return size < capacity || (capacity > 0 && key >= keys[0]);
    }

    /** Keeps (node, key) if it is among the k best seen since the last reset. */
    public void offer(long node, double key) {
        insert(node, key, 0);
    }

    /**
     * Keeps (node, key) with {@code tag} if it is among the k best seen since the last reset; {@link
     * #drainTagsBestFirst} gives the tags back. Tag every offer between two resets, or none (the first tagged offer
     * allocates the tags; from then on this heap moves them).
     */
    public void offerTagged(long node, double key, int tag) {
        if (tags == null) {
            tags = new int[nodes.length];
        }
        insert(node, key, tag);
    }

    /** {@link #offer}, with the tag kept where this heap keeps tags. */
    private void insert(long node, double key, int tag) {
        if (size < capacity) {
            int i = size++;
            // sift up: parents are worse-or-equal, i.e. the root is the worst
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (!better(keys[parent], nodes[parent], key, node)) {
                    break;
                }
                move(parent, i);
                i = parent;
            }
            put(i, node, key, tag);
        } else if (capacity > 0 && better(key, node, keys[0], nodes[0])) {
            siftDown(node, key, tag, size);
        }
    }

    private void move(int from, int to) {
        nodes[to] = nodes[from];
        keys[to] = keys[from];
        if (tags != null) {
            tags[to] = tags[from];
        }
    }

    private void put(int i, long node, double key, int tag) {
        nodes[i] = node;
        keys[i] = key;
        if (tags != null) {
            tags[i] = tag;
        }
    }

    /** Places (node, key, tag) at the root and restores the heap over the first {@code n} entries. */
    private void siftDown(long node, double key, int tag, int n) {
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            int right = child + 1;
            if (right < n && better(keys[child], nodes[child], keys[right], nodes[right])) {
                child = right; // the worse child
            }
            if (!better(key, node, keys[child], nodes[child])) {
                break;
            }
            move(child, i);
            i = child;
        }
        put(i, node, key, tag);
    }

    /**
     * Writes the kept pairs best first into {@code outNodes[offset..]} / {@code outKeys[offset..]}
     * (either may be null) and empties the heap; returns how many. For int node indices.
     */
    public int drainBestFirst(int[] outNodes, double[] outKeys, int offset) {
        return drain(outNodes == null ? null : (pos, node) -> outNodes[pos] = (int) node, outKeys, offset);
    }

    /** As above, for long node ids. */
    public int drainBestFirst(long[] outNodes, double[] outKeys, int offset) {
        return drain(outNodes == null ? null : (pos, node) -> outNodes[pos] = node, outKeys, offset);
    }

    /** Writes the kept pairs' tags best first into {@code outTags[0..]} and empties the heap; returns how many. */
    public int drainTagsBestFirst(int[] outTags) {
        int count = size;
        for (int pos = count - 1; size > 0; pos--) {
            outTags[pos] = tags[0];
            removeRoot();
        }
        return count;
    }

    /** Drops the root (the worst kept pair). */
    private void removeRoot() {
        size--;
        if (size > 0) {
            siftDown(nodes[size], keys[size], tags != null ? tags[size] : 0, size);
        }
    }

    /** Where a drained node goes. */
    private interface NodeSink {
        void put(int pos, long node);
    }

    private int drain(NodeSink outNodes, double[] outKeys, int offset) {
        int count = size;
        for (int pos = offset + count - 1; size > 0; pos--) {
            long worstNode = nodes[0];
            double worstKey = keys[0];
            removeRoot();
            if (outNodes != null) {
                outNodes.put(pos, worstNode);
            }
            if (outKeys != null) {
                outKeys[pos] = worstKey;
            }
        }
        return count;
    }
}
