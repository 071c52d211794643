package io.fanout.sampling.ppr;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.IntConsumer;

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
 * <p>Nodes are slots of the batch's {@link PushNodes}, and lists name their neighbours by slot ({@link SlotLists}), so
 * the push's innermost steps index arrays: the head's list by slot, a neighbour's local index in the batch's scratch
 * map of slots, filled with this push's nodes while it advances and cleared after (hashed node ids there, a map per
 * push rebuilt each round, were most of a partitioned PPR round's CPU). State is per touched node (slot, residual,
 * score, hop, degree): it grows with the seed's neighbourhood, not with the graph, and is written and read whole
 * ({@link #write}, {@link #read}) between rounds, one column after the other (bulk copies).
 */
public final class FetchingPush {
    /** State bytes per touched node ({@link #write}): slot, residual, score, hop, degree. */
    private static final int BYTES_PER_NODE = 4 + 8 + 8 + 4 + 4;

    // Not final: a batch reads each of its pushes into one instance in turn (read(in, nodes, reuse)).
    private double alpha;
    private double eps;
    private double alphaEps;

    /** The batch's nodes, which {@link #slot} indexes. */
    private final PushNodes nodes;
    /** Each touched node's slot in {@link #nodes}. */
    private int[] slot;
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
     * @param nodes the batch's nodes, shared by its pushes (the seed gets a slot there)
     * @param seedDegree the seed's true degree, or -1 if not known yet (it is taken from the seed's list)
     */
    public FetchingPush(PushNodes nodes, long seed, double alpha, double eps, int seedDegree) {
        this(nodes, alpha, eps, 16);
        int s = touch(nodes.slot(seed), seedDegree);
        residual[s] = alpha;
        hop[s] = 0;
        enqueue(s);
    }

    private FetchingPush(PushNodes nodes, double alpha, double eps, int capacity) {
        if (!(alpha > 0 && alpha < 1)) {
            throw new IllegalArgumentException("alpha must be in (0, 1), got " + alpha);
        }
        if (!(eps > 0) || Double.isInfinite(eps)) {
            throw new IllegalArgumentException("eps must be a positive number, got " + eps);
        }
        this.alpha = alpha;
        this.eps = eps;
        this.alphaEps = alpha * eps;
        this.nodes = nodes;
        columns(capacity);
        queue = new int[capacity];
    }

    /** Fresh (zeroed) per-node columns for {@code capacity} touched nodes. */
    private void columns(int capacity) {
        slot = new int[capacity];
        residual = new double[capacity];
        score = new double[capacity];
        hop = new int[capacity];
        degree = new int[capacity];
        inQueue = new boolean[capacity];
    }

    /**
     * Pushes from the head of the queue while the head node's list is known.
     *
     * @param lists the batch's fetched lists by slot
     * @param mayFetch whether the caller can still fetch: if so the push pauses at a node without a list; if not
     *     such a node leaves the queue and keeps its residual
     * @return true when the queue is empty (the push is finished), false when it paused for lists
     */
    boolean advance(SlotLists lists, boolean mayFetch) {
        if (head == tail) {
            return true;
        }
        if (mayFetch && !lists.has(slot[queue[head]])) {
            return false; // paused before a push: no map to fill
        }
        final int[] localOf = nodes.localScratch();
        for (int v = 0; v < numTouched; v++) {
            localOf[slot[v]] = v;
        }
        try {
            return run(lists, mayFetch, localOf);
        } finally {
            for (int v = 0; v < numTouched; v++) {
                localOf[slot[v]] = -1;
            }
        }
    }

    /** {@link #advance} with this push's nodes in {@code localOf} (slot -> local index). */
    private boolean run(SlotLists lists, boolean mayFetch, int[] localOf) {
        final double keep = 1 - alpha;
        final double alphaEps = this.alphaEps;
        final int[] entries = lists.entries();
        while (head < tail) {
            final int u = queue[head];
            final int a = lists.at(slot[u]);
            if (a < 0 && mayFetch) {
                return false;
            }
            head++;
            inQueue[u] = false;
            if (a < 0) {
                continue; // no more fetches: u keeps its residual
            }
            degree[u] = entries[a + 1];
            final double ru = residual[u];
            score[u] += ru;
            residual[u] = 0;
            pushes++;
            final int d = entries[a + 2];
            final int neighbors = a + 3; // the neighbours' slots, then their degrees
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
            // Room for d new nodes and d queue entries first, so the loop below (about a third of a partitioned
            // PPR round's CPU) neither grows a column nor branches on the hop or the queue: as in ForwardPush,
            // whether a neighbour crosses its threshold is a coin toss the CPU cannot predict.
            reserve(d);
            final int[] slot = this.slot;
            final double[] residual = this.residual;
            final int[] hop = this.hop;
            final int[] degree = this.degree;
            final boolean[] inQueue = this.inQueue;
            final int[] queue = this.queue;
            int nt = numTouched;
            int tail = this.tail;
            for (int i = 0; i < d; i++) {
                final int s = entries[neighbors + i];
                final int known = localOf[s];
                final int w;
                if (known >= 0) {
                    w = known;
                } else { // new to this push: no score, no residual, hop -1 (the columns are zero past numTouched)
                    w = nt++;
                    slot[w] = s;
                    hop[w] = -1;
                    degree[w] = entries[neighbors + d + i];
                    localOf[s] = w;
                }
                // Untouched is -1, the largest hop unsigned, so the hop is an unsigned minimum; queue[tail] is a
                // free entry, written whether or not it is counted.
                final int hw = hop[w];
                hop[w] = Math.min(hw + Integer.MIN_VALUE, nextHop + Integer.MIN_VALUE) - Integer.MIN_VALUE;
                final double rw = residual[w] + share;
                residual[w] = rw;
                final boolean enqueue = !inQueue[w] & rw >= alphaEps * Math.max(degree[w], 1);
                inQueue[w] |= enqueue;
                queue[tail] = w;
                tail += enqueue ? 1 : 0;
            }
            numTouched = nt;
            this.tail = tail;
        }
        return true;
    }

    /**
     * The slot of every queued node whose list is missing, in queue order (each once: a node is queued at most
     * once).
     */
    void forEachMissing(SlotLists lists, IntConsumer out) {
        for (int i = head; i < tail; i++) {
            int s = slot[queue[i]];
            if (!lists.has(s)) {
                out.accept(s);
            }
        }
    }

    /** Touches the node of slot {@code s} (no score, no residual, hop -1), new to this push: the seed. */
    private int touch(int s, int deg) {
        reserveNodes(1);
        int v = numTouched;
        slot[v] = s;
        hop[v] = -1;
        degree[v] = deg;
        numTouched = v + 1;
        return v;
    }

    /**
     * Makes room for {@code n} more touched nodes (zeroed columns past {@link #numTouched}) and {@code n} more queue
     * entries after {@link #tail}.
     */
    private void reserve(int n) {
        reserveNodes(n);
        reserveQueue(n);
    }

    private void reserveNodes(int n) {
        if (numTouched + n > slot.length) {
            int grown = Math.max(slot.length * 2, numTouched + n);
            slot = Arrays.copyOf(slot, grown);
            residual = Arrays.copyOf(residual, grown);
            score = Arrays.copyOf(score, grown);
            hop = Arrays.copyOf(hop, grown);
            degree = Arrays.copyOf(degree, grown);
            inQueue = Arrays.copyOf(inQueue, grown);
        }
    }

    /** Room for {@code n} more entries after {@link #tail}: the queue moved to the front, grown if it is over half full. */
    private void reserveQueue(int n) {
        if (tail + n > queue.length) {
            int queued = tail - head;
            int[] to = (queued + n) * 2 > queue.length ? new int[Math.max(queue.length * 2, queued + n)] : queue;
            System.arraycopy(queue, head, to, 0, queued);
            queue = to;
            head = 0;
            tail = queued;
        }
    }

    private void enqueue(int v) {
        reserveQueue(1);
        queue[tail++] = v;
        inQueue[v] = true;
    }

    /** The seed's id. */
    public long seed() {
        return nodes.id(slot[0]);
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
        return nodes.id(slot[v]);
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
        return (int) serializedSize(numTouched, tail - head);
    }

    /** Bytes of a state of {@code touched} nodes and {@code queued} queue entries. */
    private static long serializedSize(long touched, long queued) {
        return 8 + 8 + 4 + touched * BYTES_PER_NODE + 4 + 4 * queued + 8;
    }

    /** Bytes of the state {@link #write} wrote at {@code at} of {@code in}, without reading it. */
    static long serializedSizeAt(ByteBuffer in, int at) {
        if (at < 0 || (long) at + 20 > in.limit()) { // the node count itself lies past the end
            throw new IllegalArgumentException("a push state at byte " + at + " of " + in.limit()
                    + ": its header is cut off");
        }
        int n = in.getInt(at + 16);
        long queuedAt = at + 20 + (long) BYTES_PER_NODE * n;
        if (n < 1 || queuedAt + 4 > in.limit()) {
            throw new IllegalArgumentException("a push state of " + n + " nodes at byte " + at + " of " + in.limit());
        }
        return serializedSize(n, in.getInt((int) queuedAt));
    }

    /** The slot of the seed of the state {@link #write} wrote at {@code at} of {@code in}. */
    static int seedSlotAt(ByteBuffer in, int at) {
        return in.getInt(at + 20);
    }

    /** Writes the whole state (for keyed state between rounds), column after column; nodes as slots of the batch's. */
    void write(ByteBuffer out) {
        out.putDouble(alpha);
        out.putDouble(eps);
        int n = numTouched;
        out.putInt(n);
        out.asIntBuffer().put(slot, 0, n);
        skip(out, Integer.BYTES, n);
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

    /** The state {@link #write} wrote, over the batch's nodes as they were written with it. */
    static FetchingPush read(ByteBuffer in, PushNodes nodes) {
        return read(in, nodes, null);
    }

    /**
     * As {@link #read(ByteBuffer, PushNodes)}, into {@code reuse} when it is a push over the same nodes: a batch
     * advances its pushes one at a time, and a fresh set of columns per push and round (allocated, zeroed, then
     * regrown as the push touched new nodes) was about a quarter of a partitioned PPR round's CPU.
     */
    static FetchingPush read(ByteBuffer in, PushNodes nodes, FetchingPush reuse) {
        double alpha = in.getDouble();
        double eps = in.getDouble();
        int n = in.getInt();
        FetchingPush p;
        if (reuse != null && reuse.nodes == nodes) {
            p = reuse;
            p.reset(alpha, eps, n);
        } else {
            // Room for as many new nodes as known ones: a push that resumes touches new nodes.
            p = new FetchingPush(nodes, alpha, eps, Math.max(16, 2 * n));
        }
        in.asIntBuffer().get(p.slot, 0, n);
        skip(in, Integer.BYTES, n);
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
        if (p.queue.length < queued) {
            p.queue = new int[Math.max(16, 2 * queued)];
        }
        in.asIntBuffer().get(p.queue, 0, queued);
        skip(in, Integer.BYTES, queued);
        for (int i = 0; i < queued; i++) {
            p.inQueue[p.queue[i]] = true;
        }
        p.head = 0;
        p.tail = queued;
        p.pushes = in.getLong();
        return p;
    }

    /**
     * Empties this push for a state of {@code n} touched nodes: the columns past {@code n} must be zero (a node new to
     * a push has no residual or score) and no node is queued, so what the last state left there is cleared.
     */
    private void reset(double alpha, double eps, int n) {
        this.alpha = alpha;
        this.eps = eps;
        this.alphaEps = alpha * eps;
        int old = numTouched;
        if (slot.length < n) {
            columns(Math.max(2 * n, 2 * slot.length));
        } else {
            if (old > n) {
                Arrays.fill(residual, n, old, 0);
                Arrays.fill(score, n, old, 0);
            }
            Arrays.fill(inQueue, 0, old, false);
        }
        numTouched = 0;
        head = 0;
        tail = 0;
        pushes = 0;
    }

    /** Moves past a column just copied through a view ({@code asLongBuffer()} etc. leave the position as it was). */
    private static void skip(ByteBuffer buffer, int bytesPerValue, int values) {
        buffer.position(buffer.position() + bytesPerValue * values);
    }
}
