package io.fanout.sampling;

/**
 * The k best (node, key) pairs of a stream, best = larger key, ties to the smaller node id: a bounded
 * binary heap over primitive arrays whose root is the worst pair kept (no boxing, no allocation per offer).
 * PPR keeps its top-k scores with it, weighted k-hop sampling its exponential races ({@link WeightedDraws}).
 */
public final class TopK {
    /** Node ids (int indices of the memory store widen to them). */
    private long[] nodes;
    private double[] keys;
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

    /** Keeps (node, key) if it is among the k best seen since the last reset. */
    public void offer(long node, double key) {
        if (size < capacity) {
            int i = size++;
            // sift up: parents are worse-or-equal, i.e. the root is the worst
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (!better(keys[parent], nodes[parent], key, node)) {
                    break;
                }
                nodes[i] = nodes[parent];
                keys[i] = keys[parent];
                i = parent;
            }
            nodes[i] = node;
            keys[i] = key;
        } else if (capacity > 0 && better(key, node, keys[0], nodes[0])) {
            siftDown(node, key, size);
        }
    }

    /** Places (node, key) at the root and restores the heap over the first {@code n} entries. */
    private void siftDown(long node, double key, int n) {
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
            nodes[i] = nodes[child];
            keys[i] = keys[child];
            i = child;
        }
        nodes[i] = node;
        keys[i] = key;
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

    /** Where a drained node goes. */
    private interface NodeSink {
        void put(int pos, long node);
    }

    private int drain(NodeSink outNodes, double[] outKeys, int offset) {
        int count = size;
        for (int pos = offset + count - 1; size > 0; pos--) {
            long worstNode = nodes[0];
            double worstKey = keys[0];
            size--;
            if (size > 0) {
                siftDown(nodes[size], keys[size], size);
            }
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
