package io.fanout.sampling.ppr;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * {@link ForwardPush}'s push for one seed over node ids, for a store that fetches neighbour lists on demand (the
 * partitioned store): the same FIFO queue, the same push rule, the same arithmetic in the same order, so with
 * every list it asks for it computes exactly what {@link ForwardPush} computes (FetchingPushTest checks every
 * score, residual and hop on cora and pubmed).
 *
 * <p>The push pauses when the node at the head of the queue has no list yet ({@link #advance} returns false);
 * the caller then fetches the lists of every queued node that lacks one ({@link #forEachMissing}), GiGL's
 * per-round fetch of the drained queue, and resumes. When the caller may fetch no more ({@code mayFetch}
 * false, after GiGL's {@code max_fetch_iterations}) a queued node without a list is dropped from the queue
 * and keeps its residual (GiGL instead moves it into the node's score): the invariant
 * {@code pi = p + Pi(r) / alpha} of {@link ForwardPush} still holds, so every score stays within
 * {@code [pi - residualMass() / alpha, pi]}, and so does {@code p + r}.
 *
 * <p>State is per touched node (id, residual, score, hop, degree): it grows with the seed's neighbourhood, not
 * with the graph, and is written and read whole ({@link #write}, {@link #read}) between rounds, one column after
 * the other (bulk copies). Node ids map to local indices in a primitive hash map, since touching a node is the
 * push's innermost step; a read push builds that map only when it pushes again (rebuilding every push's map each
 * round, finished or not, was the largest part of a partitioned PPR round's CPU), with room for as many new nodes.
 */
public final class FetchingPush {
    private final double alpha;
    private final double eps;
    private final double alphaEps;

    /** Node id -> local index (-1 when absent); null until needed after a {@link #read}. */
    private Long2IntOpenHashMap local;
    private long[] ids;
    private double[] residual;
    private double[] score;
    private int[] hop;
    /** True degree of each touched node (for the queue threshold). */
    private int[] degree;
    private boolean[] inQueue;
    private int numTouched;
    /** FIFO: entries {@code [head, tail)} of {@code queue} (local indices). */
    private int[] queue;
    private int head;
    private int tail;
    private long pushes;

    /**
     * A push for {@code seed} that has not started: the seed (local 0) holds residual {@code alpha} and is queued,
     * to be pushed once whatever its residual, as in {@link ForwardPush}.
     *
     * @param seedDegree the seed's true degree, or -1 if not known yet (it is taken from the seed's list)
     */
    public FetchingPush(long seed, double alpha, double eps, int seedDegree) {
        this(alpha, eps, 16);
        local = newIndex(16);
        int s = touch(seed, seedDegree);
        residual[s] = alpha;
        hop[s] = 0;
        enqueue(s);
    }

    private FetchingPush(double alpha, double eps, int capacity) {
        if (!(alpha > 0 && alpha < 1)) {
            throw new IllegalArgumentException("alpha must be in (0, 1), got " + alpha);
        }
        if (!(eps > 0) || Double.isInfinite(eps)) {
            throw new IllegalArgumentException("eps must be a positive number, got " + eps);
        }
        this.alpha = alpha;
        this.eps = eps;
        this.alphaEps = alpha * eps;
        ids = new long[capacity];
        residual = new double[capacity];
        score = new double[capacity];
        hop = new int[capacity];
        degree = new int[capacity];
        inQueue = new boolean[capacity];
        queue = new int[capacity];
    }

    /**
     * Pushes from the head of the queue while the head node's list is known.
     *
     * @param lists a node's list, or null if it has not been fetched
     * @param mayFetch whether the caller can still fetch: if so the push pauses at a node without a list; if not
     *     such a node leaves the queue and keeps its residual
     * @return true when the queue is empty (the push is finished), false when it paused for lists
     */
    public boolean advance(LongFunction<FetchedList> lists, boolean mayFetch) {
        final double keep = 1 - alpha;
        final double alphaEps = this.alphaEps;
        if (head < tail) {
            index();
        }
        while (head < tail) {
            final int u = queue[head];
            final FetchedList list = lists.apply(ids[u]);
            if (list == null && mayFetch) {
                return false;
            }
            head++;
            inQueue[u] = false;
            if (list == null) {
                continue; // no more fetches: u keeps its residual
            }
            degree[u] = list.degree();
            final double ru = residual[u];
            score[u] += ru;
            residual[u] = 0;
            pushes++;
            final long[] neighbors = list.neighbors();
            final int[] neighborDegrees = list.neighborDegrees();
            final int d = neighbors.length;
            if (d == 0) {
                // Dangling: the walk restarts at the seed (the oracle's convention), as in ForwardPush.
                final double rs = residual[0] + keep * ru;
                residual[0] = rs;
                if (!inQueue[0] && rs >= alphaEps * Math.max(degree[0], 1)) {
                    enqueue(0);
                }
                continue;
            }
            final int nextHop = hop[u] + 1;
            final double share = keep * ru / d;
            for (int i = 0; i < d; i++) {
                final int w = touch(neighbors[i], neighborDegrees[i]);
                final int hw = hop[w];
                if (hw < 0) {
                    hop[w] = nextHop;
                } else if (hw > nextHop) {
                    hop[w] = nextHop;
                }
                final double rw = residual[w] + share;
                residual[w] = rw;
                if (!inQueue[w] && rw >= alphaEps * Math.max(degree[w], 1)) {
                    enqueue(w);
                }
            }
        }
        return true;
    }

    /** Every queued node whose list is missing, in queue order (each once: a node is queued at most once). */
    public void forEachMissing(LongFunction<FetchedList> lists, LongConsumer out) {
        for (int i = head; i < tail; i++) {
            long id = ids[queue[i]];
            if (lists.apply(id) == null) {
                out.accept(id);
            }
        }
    }

    private static Long2IntOpenHashMap newIndex(int expected) {
        Long2IntOpenHashMap map = new Long2IntOpenHashMap(expected);
        map.defaultReturnValue(-1);
        return map;
    }

    /** The id -> local index map, built from {@code ids} on first use after a {@link #read}. */
    private Long2IntOpenHashMap index() {
        if (local == null) {
            // Room for as many new nodes as known ones: a push that resumes touches new nodes, and growing a
            // large map by rehashing cost more than the room.
            local = newIndex(Math.max(16, 2 * numTouched));
            for (int v = 0; v < numTouched; v++) {
                local.put(ids[v], v);
            }
        }
        return local;
    }

    /** Local index of {@code id}, touching it (no score, no residual, hop -1) on first sight (index built). */
    private int touch(long id, int deg) {
        int known = local.get(id);
        if (known >= 0) {
            return known;
        }
        int v = numTouched;
        if (v == ids.length) {
            int grown = v * 2;
            ids = Arrays.copyOf(ids, grown);
            residual = Arrays.copyOf(residual, grown);
            score = Arrays.copyOf(score, grown);
            hop = Arrays.copyOf(hop, grown);
            degree = Arrays.copyOf(degree, grown);
            inQueue = Arrays.copyOf(inQueue, grown);
        }
        ids[v] = id;
        hop[v] = -1;
        degree[v] = deg;
        numTouched = v + 1;
        local.put(id, v);
        return v;
    }

    private void enqueue(int v) {
        if (tail == queue.length) {
            int queued = tail - head;
            if (queued * 2 > queue.length) {
                queue = Arrays.copyOf(queue, queue.length * 2);
            }
            System.arraycopy(queue, head, queue, 0, queued);
            head = 0;
            tail = queued;
        }
        queue[tail++] = v;
        inQueue[v] = true;
    }

    /** The seed's id. */
    public long seed() {
        return ids[0];
    }

    /** Pushes made so far. */
    public long pushes() {
        return pushes;
    }

    /** Nodes touched so far (the seed included); local indices are {@code 0..numTouched()-1} in discovery order. */
    public int numTouched() {
        return numTouched;
    }

    public long id(int v) {
        return ids[v];
    }

    public double score(int v) {
        return score[v];
    }

    public double residual(int v) {
        return residual[v];
    }

    public int hop(int v) {
        return hop[v];
    }

    /** Local index of a node id, or -1 if the push never touched it. */
    public int localIndex(long id) {
        return index().get(id);
    }

    /** Sum of the leftover residuals: {@code residualMass() / alpha} bounds every score's error. */
    public double residualMass() {
        double sum = 0;
        for (int v = 0; v < numTouched; v++) {
            sum += residual[v];
        }
        return sum;
    }

    /** Bytes {@link #write} writes. */
    int serializedSize() {
        return 8 + 8 + 4 + numTouched * (8 + 8 + 8 + 4 + 4) + 4 + 4 * (tail - head) + 8;
    }

    /** Writes the whole state (for keyed state between rounds), column after column. */
    void write(ByteBuffer out) {
        out.putDouble(alpha);
        out.putDouble(eps);
        int n = numTouched;
        out.putInt(n);
        out.asLongBuffer().put(ids, 0, n);
        skip(out, Long.BYTES, n);
        out.asDoubleBuffer().put(residual, 0, n);
        skip(out, Double.BYTES, n);
        out.asDoubleBuffer().put(score, 0, n);
        skip(out, Double.BYTES, n);
        out.asIntBuffer().put(hop, 0, n);
        skip(out, Integer.BYTES, n);
        out.asIntBuffer().put(degree, 0, n);
        skip(out, Integer.BYTES, n);
        int queued = tail - head;
        out.putInt(queued);
        out.asIntBuffer().put(queue, head, queued);
        skip(out, Integer.BYTES, queued);
        out.putLong(pushes);
    }

    /** The state {@link #write} wrote (the id map is built when the push resumes). */
    static FetchingPush read(ByteBuffer in) {
        double alpha = in.getDouble();
        double eps = in.getDouble();
        int n = in.getInt();
        FetchingPush p = new FetchingPush(alpha, eps, Math.max(16, n));
        in.asLongBuffer().get(p.ids, 0, n);
        skip(in, Long.BYTES, n);
        in.asDoubleBuffer().get(p.residual, 0, n);
        skip(in, Double.BYTES, n);
        in.asDoubleBuffer().get(p.score, 0, n);
        skip(in, Double.BYTES, n);
        in.asIntBuffer().get(p.hop, 0, n);
        skip(in, Integer.BYTES, n);
        in.asIntBuffer().get(p.degree, 0, n);
        skip(in, Integer.BYTES, n);
        p.numTouched = n;
        int queued = in.getInt();
        p.queue = new int[Math.max(16, queued)];
        in.asIntBuffer().get(p.queue, 0, queued);
        skip(in, Integer.BYTES, queued);
        for (int i = 0; i < queued; i++) {
            p.inQueue[p.queue[i]] = true;
        }
        p.tail = queued;
        p.pushes = in.getLong();
        return p;
    }

    /** Moves past a column just copied through a view ({@code asLongBuffer()} etc. leave the position as it was). */
    private static void skip(ByteBuffer buffer, int bytesPerValue, int values) {
        buffer.position(buffer.position() + bytesPerValue * values);
    }
}
