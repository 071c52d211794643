package io.fanout.sampling.ppr;

import io.fanout.sampling.TopK;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.IntConsumer;

/**
 * The PPR of one batch when neighbour lists are fetched in rounds (GiGL's distributed PPR): one
 * {@link FetchingPush} per distinct seed and the lists fetched so far, shared by the seeds (GiGL's per-batch
 * neighbour cache). Each round the caller adds the lists it fetched and {@link #advance advances} every push;
 * what the pushes miss is the next round's fetch, one request per node whatever the number of seeds asking.
 * Then {@link #select} picks each seed's PPR neighbours exactly as {@link PprSampler} does (top
 * {@code maxPprNodes} pushed nodes by score, residual top-up, ties by node id) and lays them out as its
 * {@link PprSubgraph} does, with node ids instead of indices.
 *
 * <p>Pure Java; the state is written and read whole ({@link #toBytes}, {@link #fromBytes}) so a keyed operator
 * can keep it between rounds. It stays bytes: each seed's record is read only to advance its push (into one reused
 * push) and written back at once, and the lists stay in the layout the state holds them in ({@link SlotLists}), so
 * a round copies them once each way (decoding every push and list into objects each round, and allocating and
 * regrowing their arrays, were most of a partitioned PPR round's CPU on pubmed). Nodes are the batch's slots
 * ({@link PushNodes}): each id is written once, and pushes and lists hold 4-byte slots. Everything depends only on
 * the seeds and the lists, not on the order lists arrive in (only the slots' numbering does).
 *
 * <p>Built with the selection's options ({@link #PprBatchPush(long[], double, double, int, boolean)}), a batch
 * <em>settles</em> each push as it finishes: a finished push never changes, so its selection is made at once and
 * only that is kept (k nodes instead of every node it touched: on R-MAT 2^16 a batch of 512 seeds touched 200 k
 * nodes, 9 MB carried through every later round), and once every push is settled the lists are dropped too. The
 * messages are the same; without those options every push is kept for inspection ({@link #push}).
 */
public final class PprBatchPush {
    /** Record tags: a push that may go on, and a settled push's selection. */
    private static final byte OPEN = 0;
    private static final byte SETTLED = 1;

    private final long[] seeds;
    /**
     * Each distinct seed's record as {@link #toBytes} writes it: a tag ({@link #OPEN} and the push's state, or
     * {@link #SETTLED} and its selection), {@code recordLength[i]} bytes from {@code recordAt[i]} of
     * {@code records[i]} (the state the batch was read from, or the buffer its last advance wrote). A push is read
     * from its record only to advance or inspect it, into one reused instance, and written back at once: between
     * rounds a batch holds its pushes as bytes, as the next round needs them.
     */
    private final byte[][] records;
    private final int[] recordAt;
    private final int[] recordLength;
    /** The selection's size for settling, or 0: finished pushes are kept. */
    private final int settleK;
    private final boolean settleTopUp;
    /** The nodes the pushes and lists name by slot. */
    private PushNodes nodes;
    /** The lists fetched so far, by slot of {@link #nodes}. */
    private SlotLists lists;
    /** The push that advances; every open push of the batch is read into it in turn. */
    private FetchingPush scratch;
    /**
     * The whole state as {@link #toBytes} returns it, when nothing changed since it was read ({@link #fromBytes}) or
     * written ({@link #advance}); null after a list is added.
     */
    private byte[] encoded;

    /**
     * A batch before any list is known that keeps every push, finished or not ({@link #push}); a seed listed twice
     * is pushed once (as {@link PprSampler} does).
     */
    public PprBatchPush(long[] batchSeeds, double alpha, double eps) {
        this(batchSeeds, alpha, eps, 0, false);
    }

    /**
     * A batch before any list is known that settles each push as it finishes, for {@link #select}{@code
     * (maxPprNodes, residualTopUp)}.
     */
    public PprBatchPush(long[] batchSeeds, double alpha, double eps, int maxPprNodes, boolean residualTopUp) {
        if (maxPprNodes < 0) {
            throw new IllegalArgumentException("maxPprNodes must be >= 0, got " + maxPprNodes);
        }
        Set<Long> distinct = new LinkedHashSet<>();
        for (long s : batchSeeds) {
            distinct.add(s);
        }
        seeds = distinct.stream().mapToLong(Long::longValue).toArray();
        nodes = new PushNodes();
        records = new byte[seeds.length][];
        recordAt = new int[seeds.length];
        recordLength = new int[seeds.length];
        RecordBuffer out = new RecordBuffer(64 * seeds.length);
        for (int i = 0; i < seeds.length; i++) {
            writeOpen(i, new FetchingPush(nodes, seeds[i], alpha, eps, -1), out);
        }
        settleK = maxPprNodes;
        settleTopUp = residualTopUp;
        lists = new SlotLists(nodes.size());
    }

    private PprBatchPush(long[] seeds, byte[][] records, int[] recordAt, int[] recordLength, int settleK,
            boolean settleTopUp, PushNodes nodes, SlotLists lists) {
        this.seeds = seeds;
        this.records = records;
        this.recordAt = recordAt;
        this.recordLength = recordLength;
        this.settleK = settleK;
        this.settleTopUp = settleTopUp;
        this.nodes = nodes;
        this.lists = lists;
    }

    private boolean isOpen(int i) {
        return records[i][recordAt[i]] == OPEN;
    }

    /** The record of seed {@code i}, past its tag. */
    private ByteBuffer record(int i) {
        return ByteBuffer.wrap(records[i], recordAt[i] + 1, recordLength[i] - 1).order(PushNodes.STATE_ORDER);
    }

    private void writeOpen(int i, FetchingPush push, RecordBuffer out) {
        push.write(startRecord(i, OPEN, push.serializedSize(), out));
    }

    private void writeSettled(int i, Settled selection, RecordBuffer out) {
        selection.write(startRecord(i, SETTLED, selection.serializedSize(), out));
    }

    /** Makes room in {@code out} for seed {@code i}'s new record, writes its tag and returns where its body goes. */
    private ByteBuffer startRecord(int i, byte tag, int bodyLength, RecordBuffer out) {
        int length = 1 + bodyLength;
        ByteBuffer to = out.reserve(length);
        records[i] = to.array();
        recordAt[i] = to.position();
        recordLength[i] = length;
        return to.put(tag);
    }

    /** Records a fetched list (a second list for the same node is ignored: lists are fixed per node). */
    public void addList(long node, FetchedList list) {
        encoded = null;
        lists.add(nodes.slot(node), list, nodes);
    }

    /**
     * Records fetched lists as one fetch answers them: node {@code nodes[i]} has true degree {@code degrees[i]} and
     * reads {@code neighbors[ends[i-1] .. ends[i])} ({@code ends[-1]} = 0), each with its degree at the same place of
     * {@code neighborDegrees}; each list as {@link #addList} records it, without a copy of its own.
     */
    public void addLists(long[] listNodes, int[] degrees, int[] ends, long[] neighbors, int[] neighborDegrees) {
        int n = listNodes.length;
        if (degrees.length != n || ends.length != n) {
            throw new IllegalArgumentException(n + " nodes, " + degrees.length + " degrees and " + ends.length
                    + " list ends");
        }
        encoded = null;
        int total = n == 0 ? 0 : ends[n - 1];
        lists.reserve(3L * n + 2L * total);
        int from = 0;
        for (int i = 0; i < n; i++) {
            if (ends[i] < from) {
                throw new IllegalArgumentException("list " + i + " ends at " + ends[i] + ", before its start " + from);
            }
            lists.add(nodes.slot(listNodes[i]), degrees[i], neighbors, neighborDegrees, from, ends[i], this.nodes);
            from = ends[i];
        }
    }

    public int numFetched() {
        return lists.count();
    }

    /**
     * Advances every seed's push with the lists known so far.
     *
     * @param mayFetch whether another fetch round follows (if not, every push finishes with the lists it has)
     * @return the nodes to fetch next, distinct, in the order the pushes queued them (not sorted: the fetch routes
     *     each to its subtask, and no result depends on the order lists arrive in); empty when every push is
     *     finished
     */
    public long[] advance(boolean mayFetch) {
        IntArrayList missing = new IntArrayList();
        boolean[] asked = new boolean[nodes.size()];
        IntConsumer ask = s -> {
            if (!asked[s]) {
                asked[s] = true;
                missing.add(s);
            }
        };
        // The new state is written whole, in its final layout, into this thread's buffer and copied out once: the
        // records (open pushes and settled selections, unchanged ones copied) between the nodes and the lists, which
        // no push changes (a buffer of records and a second array for the whole state, both zeroed as allocated, were
        // most of a partitioned PPR round's allocation).
        long openBytes = 0;
        long recordBytes = 0;
        for (int i = 0; i < seeds.length; i++) {
            openBytes += isOpen(i) ? recordLength[i] : 0;
            recordBytes += recordLength[i];
        }
        long listBytes = 4 + 4L * lists.size();
        // Room for the open pushes to grow by half: most grow as they go on (a full buffer is copied into a larger
        // one).
        RecordBuffer out = scratchBuffer(4 + 1 + nodes.serializedSize() + 4 + recordBytes + openBytes / 2
                + listBytes + 1024);
        ByteBuffer head = out.reserve(0);
        head.putInt(settleK);
        head.put((byte) (settleTopUp ? 1 : 0));
        nodes.write(out.reserve((int) nodes.serializedSize()));
        out.reserve(4).putInt(seeds.length);
        int recordsFrom = out.position();
        boolean open = false;
        for (int i = 0; i < seeds.length; i++) {
            if (!isOpen(i)) {
                ByteBuffer to = out.reserve(recordLength[i]);
                int at = to.position();
                to.put(records[i], recordAt[i], recordLength[i]);
                records[i] = to.array();
                recordAt[i] = at;
                continue;
            }
            FetchingPush push = FetchingPush.read(record(i), nodes, scratch);
            scratch = push;
            if (!push.advance(lists, mayFetch)) {
                push.forEachMissing(lists, ask);
                open = true;
                writeOpen(i, push, out);
            } else if (settleK > 0) {
                writeSettled(i, Settled.of(push, settleK, settleTopUp), out);
            } else {
                open = true;
                writeOpen(i, push, out);
            }
        }
        long[] result = new long[missing.size()];
        for (int i = 0; i < result.length; i++) {
            result[i] = nodes.id(missing.getInt(i));
        }
        if (open) {
            ByteBuffer tail = out.reserve((int) listBytes);
            tail.putInt(lists.count());
            lists.write(tail.asIntBuffer());
            int size = tail.position() + 4 * lists.size();
            // Copied without zeroing first (Arrays.copyOf allocates and fills in one step); the records lie in it
            // where they were written.
            encoded = Arrays.copyOf(tail.array(), size);
            Arrays.fill(records, encoded);
        } else {
            // Every push settled: no list or slot is read again, and the state holds neither. Once a batch: the
            // records taken out of this thread's buffer, the state written around them as any state is.
            nodes = new PushNodes();
            lists = new SlotLists(0);
            scratch = null;
            byte[] written = Arrays.copyOfRange(out.reserve(0).array(), recordsFrom, out.position());
            Arrays.fill(records, written);
            for (int i = 0; i < seeds.length; i++) {
                recordAt[i] -= recordsFrom;
            }
            encoded = null;
            encoded = toBytes();
        }
        out.release();
        return result;
    }

    /**
     * The push of the i-th distinct seed as it stands (a copy: advancing the batch does not change it); null once
     * settled (only a batch built with the selection's options settles).
     */
    public FetchingPush push(int i) {
        return isOpen(i) ? FetchingPush.read(record(i), nodes) : null;
    }

    public int numSeeds() {
        return seeds.length;
    }

    /**
     * Each seed's PPR neighbours, as {@link PprSampler#sample}: node ids (distinct seeds first, then new nodes in
     * order of selection), {@code edgeIndex = [seed positions..., node positions...]} and per edge
     * {@code [value, 1/(1+hop)]}; a seed's edges best first.
     */
    public Result select(int maxPprNodes, boolean residualTopUp) {
        if (maxPprNodes < 1) {
            throw new IllegalArgumentException("maxPprNodes must be >= 1, got " + maxPprNodes);
        }
        Long2IntOpenHashMap position = new Long2IntOpenHashMap(seeds.length * 2);
        position.defaultReturnValue(-1);
        long[] ids = new long[Math.max(16, seeds.length * 2)];
        int nids = 0;
        for (long s : seeds) {
            position.put(s, nids);
            ids[nids++] = s;
        }
        int cap = Math.max(16, seeds.length * Math.min(maxPprNodes, 64));
        int[] src = new int[cap];
        int[] dst = new int[cap];
        double[] attr = new double[2 * cap];
        int ne = 0;
        long pushCount = 0;
        if (settleK > 0 && (maxPprNodes != settleK || residualTopUp != settleTopUp)) {
            throw new IllegalArgumentException("pushes settled for " + settleK + " nodes, residual top-up "
                    + settleTopUp + ", selected for " + maxPprNodes + ", " + residualTopUp);
        }
        for (int si = 0; si < seeds.length; si++) {
            Settled seed = isOpen(si) ? Settled.of(FetchingPush.read(record(si), nodes, scratch), maxPprNodes,
                    residualTopUp) : Settled.read(record(si));
            pushCount += seed.pushes;
            int m = seed.ids.length;
            if (ne + m > src.length) {
                int grown = Math.max(src.length * 2, ne + m);
                src = Arrays.copyOf(src, grown);
                dst = Arrays.copyOf(dst, grown);
                attr = Arrays.copyOf(attr, 2 * grown);
            }
            for (int j = 0; j < m; j++) {
                long id = seed.ids[j];
                int at = position.get(id);
                if (at < 0) {
                    if (nids == ids.length) {
                        ids = Arrays.copyOf(ids, nids * 2);
                    }
                    at = nids;
                    position.put(id, at);
                    ids[nids++] = id;
                }
                src[ne] = si;
                dst[ne] = at;
                attr[2 * ne] = seed.values[j];
                attr[2 * ne + 1] = seed.proximity[j];
                ne++;
            }
        }
        int[] edgeIndex = new int[2 * ne];
        System.arraycopy(src, 0, edgeIndex, 0, ne);
        System.arraycopy(dst, 0, edgeIndex, ne, ne);
        return new Result(Arrays.copyOf(ids, nids), seeds.length, edgeIndex, Arrays.copyOf(attr, 2 * ne), pushCount);
    }

    /** PprSampler's selection over one push's local indices, best first. */
    static int[] selectLocal(FetchingPush push, int k, boolean residualTopUp) {
        // The memory store's TopK order (larger key, ties to the smaller node id), each local index as the tag of its
        // id: no map from the winners back to local indices.
        int n = push.numTouched();
        TopK top = new TopK(k);
        top.reset(k);
        // A node's id is read (through the slot table) only when the heap may keep it: most touched nodes score below
        // the k-th best, and their ids were a cache miss each for nothing.
        for (int v = 0; v < n; v++) {
            double score = push.score(v);
            if (score > 0 && top.mayKeep(score)) {
                top.offerTagged(push.id(v), score, v);
            }
        }
        int[] pushed = drain(top);
        if (!residualTopUp) {
            return pushed;
        }
        int[] selected = pushed;
        if (pushed.length < k) {
            // Free slots: discovered nodes that were never pushed, by leftover residual.
            top.reset(k - pushed.length);
            for (int v = 0; v < n; v++) {
                double residual = push.residual(v);
                if (push.score(v) == 0 && residual > 0 && top.mayKeep(residual)) {
                    top.offerTagged(push.id(v), residual, v);
                }
            }
            int[] more = drain(top);
            selected = Arrays.copyOf(pushed, pushed.length + more.length);
            System.arraycopy(more, 0, selected, pushed.length, more.length);
        }
        top.reset(selected.length);
        for (int v : selected) {
            top.offerTagged(push.id(v), push.score(v) + push.residual(v), v);
        }
        return drain(top);
    }

    private static int[] drain(TopK top) {
        int[] out = new int[top.size()];
        top.drainTagsBestFirst(out);
        return out;
    }

    /** The most bytes one batch's state may take: a Java array's, and a RocksDB value's, limit. */
    static final long MAX_STATE_BYTES = Integer.MAX_VALUE - 8;

    /**
     * The whole state as bytes.
     *
     * @throws PprStateTooLargeException when it would take more than {@link #MAX_STATE_BYTES} (each open push holds
     *     every node it touched, up to about {@code 1 / (alpha * eps)} each): fewer seeds per batch or a larger
     *     eps bound it
     */
    public byte[] toBytes() {
        return toBytes(MAX_STATE_BYTES);
    }

    byte[] toBytes(long maxBytes) {
        if (encoded != null) {
            if (encoded.length > maxBytes) {
                throw tooLarge(encoded.length, maxBytes);
            }
            return encoded;
        }
        long size = 4 + 1 + nodes.serializedSize() + 4 + 4 + 4L * lists.size();
        for (int i = 0; i < seeds.length; i++) {
            size += recordLength[i];
        }
        if (size > maxBytes) {
            throw tooLarge(size, maxBytes);
        }
        ByteBuffer out = ByteBuffer.allocate((int) size).order(PushNodes.STATE_ORDER);
        out.putInt(settleK);
        out.put((byte) (settleTopUp ? 1 : 0));
        nodes.write(out);
        out.putInt(seeds.length);
        for (int i = 0; i < seeds.length; i++) {
            out.put(records[i], recordAt[i], recordLength[i]);
        }
        out.putInt(lists.count());
        lists.write(out.asIntBuffer());
        return out.array();
    }

    private PprStateTooLargeException tooLarge(long size, long maxBytes) {
        int open = 0;
        for (int i = 0; i < seeds.length; i++) {
            open += records[i] != null && isOpen(i) ? 1 : 0;
        }
        return new PprStateTooLargeException(String.format(java.util.Locale.ROOT, "the PPR state of one batch of %d"
                + " seeds (%d pushes open, %d lists) would take %,d bytes, over the %,d one batch can hold: use"
                + " fewer seeds per batch (--batch-size) or a larger --eps", seeds.length, open, lists.count(),
                size, maxBytes));
    }

    /** The state {@link #toBytes} wrote. */
    public static PprBatchPush fromBytes(byte[] state) {
        return fromBytes(state, 0, 0);
    }

    /**
     * The state {@link #toBytes} wrote, with room for {@code moreLists} lists of {@code moreNeighbors} neighbours in
     * all, to be added ({@link #addLists}) without regrowing.
     */
    public static PprBatchPush fromBytes(byte[] state, int moreLists, long moreNeighbors) {
        long moreListInts = 3L * Math.max(0, moreLists) + 2L * Math.max(0, moreNeighbors);
        ByteBuffer in = ByteBuffer.wrap(state).order(PushNodes.STATE_ORDER);
        int settleK = in.getInt();
        boolean settleTopUp = in.get() != 0;
        PushNodes nodes = PushNodes.read(in);
        int numSeeds = in.getInt();
        long[] seeds = new long[numSeeds];
        byte[][] records = new byte[numSeeds][];
        int[] recordAt = new int[numSeeds];
        int[] recordLength = new int[numSeeds];
        // The records stay in the state as they are: only their lengths and seeds are read here.
        for (int i = 0; i < numSeeds; i++) {
            int at = in.position();
            byte tag = in.get(at);
            long length;
            if (tag == OPEN) {
                length = 1 + FetchingPush.serializedSizeAt(in, at + 1);
                seeds[i] = nodes.id(FetchingPush.seedSlotAt(in, at + 1));
            } else if (tag == SETTLED) {
                length = 1 + Settled.serializedSizeAt(in, at + 1);
                seeds[i] = Settled.seedAt(in, at + 1);
            } else {
                throw new IllegalArgumentException("seed record " + i + " has tag " + tag);
            }
            if (length > in.limit() - at) {
                throw new IllegalArgumentException("seed record " + i + " ends past the state's " + in.limit()
                        + " bytes");
            }
            records[i] = state;
            recordAt[i] = at;
            recordLength[i] = (int) length;
            in.position(at + (int) length);
        }
        int numLists = in.getInt();
        if (in.remaining() % Integer.BYTES != 0) {
            throw new IllegalArgumentException(in.remaining() % Integer.BYTES + " bytes after the batch push state");
        }
        SlotLists lists = SlotLists.read(in.asIntBuffer(), numLists, nodes.size(), moreListInts);
        PprBatchPush push = new PprBatchPush(seeds, records, recordAt, recordLength, settleK, settleTopUp, nodes,
                lists);
        push.encoded = state;
        return push;
    }

    /** Each thread's buffer for {@link #advance} (see {@link RecordBuffer}). */
    private static final ThreadLocal<byte[]> SCRATCH = new ThreadLocal<>();
    /**
     * The largest buffer a thread keeps between advances: each fetch round's task thread keeps one, so a TaskManager
     * slot holds at most rounds x this (a larger state, rarer, allocates its buffer each round as before).
     */
    private static final int MAX_KEPT_SCRATCH = 16 << 20;

    /** This thread's buffer, at least {@code capacity} bytes (at most the limit of one state), taken until released. */
    private RecordBuffer scratchBuffer(long capacity) {
        byte[] kept = SCRATCH.get();
        SCRATCH.remove();
        long want = Math.min(Math.max(64, capacity), MAX_STATE_BYTES);
        return new RecordBuffer(kept != null && kept.length >= want ? kept : new byte[(int) want], true);
    }

    /**
     * Where records are written: one array that grows by a copy of what it holds (a record written earlier keeps the
     * array it was written in, which is never written again where that record lies). The constructor's holds its
     * records; an advance's ({@link #scratchBuffer}) is its thread's buffer, reused by the next advance on that thread
     * once it is {@link #release released}, so an advance allocates no buffer of its own (a task thread runs one
     * operator's rounds; a buffer over {@link #MAX_KEPT_SCRATCH} bytes is not kept).
     */
    private final class RecordBuffer {
        private ByteBuffer buffer;
        private final boolean scratch;

        private RecordBuffer(byte[] array, boolean scratch) {
            buffer = ByteBuffer.wrap(array).order(PushNodes.STATE_ORDER);
            this.scratch = scratch;
        }

        RecordBuffer(long capacity) {
            buffer = ByteBuffer.wrap(allocate(Math.max(64, capacity), 0)).order(PushNodes.STATE_ORDER);
            scratch = false;
        }

        int position() {
            return buffer.position();
        }

        /** The buffer, at a position with {@code bytes} free after it. */
        ByteBuffer reserve(int bytes) {
            if (buffer.remaining() < bytes) {
                long needed = (long) buffer.position() + bytes;
                byte[] grown = allocate(Math.max(2L * buffer.capacity(), needed), needed);
                System.arraycopy(buffer.array(), 0, grown, 0, buffer.position());
                int at = buffer.position();
                buffer = ByteBuffer.wrap(grown).order(PushNodes.STATE_ORDER);
                buffer.position(at);
            }
            return buffer;
        }

        /** Done with a thread's buffer: the next advance on this thread may take it. */
        void release() {
            if (scratch && buffer.capacity() <= MAX_KEPT_SCRATCH) {
                SCRATCH.set(buffer.array());
            }
        }

        private byte[] allocate(long capacity, long needed) {
            if (needed > MAX_STATE_BYTES) {
                throw tooLarge(needed, MAX_STATE_BYTES);
            }
            return new byte[(int) Math.min(capacity, MAX_STATE_BYTES)];
        }
    }

    /** A finished push's selection, best first: node ids, values and hop proximities as the message carries them. */
    static final class Settled {
        final long seed;
        final long pushes;
        final long[] ids;
        final double[] values;
        final double[] proximity;

        private Settled(long seed, long pushes, long[] ids, double[] values, double[] proximity) {
            this.seed = seed;
            this.pushes = pushes;
            this.ids = ids;
            this.values = values;
            this.proximity = proximity;
        }

        static Settled of(FetchingPush push, int k, boolean residualTopUp) {
            int[] selected = selectLocal(push, k, residualTopUp);
            int m = selected.length;
            long[] ids = new long[m];
            double[] values = new double[m];
            double[] proximity = new double[m];
            for (int j = 0; j < m; j++) {
                int v = selected[j];
                ids[j] = push.id(v);
                values[j] = residualTopUp ? push.score(v) + push.residual(v) : push.score(v);
                proximity[j] = 1.0 / (1 + push.hop(v));
            }
            return new Settled(push.seed(), push.pushes(), ids, values, proximity);
        }

        int serializedSize() {
            return (int) serializedSize(ids.length);
        }

        private static long serializedSize(long selected) {
            return 8 + 8 + 4 + 24 * selected;
        }

        /** Bytes of the selection {@link #write} wrote at {@code at} of {@code in}, without reading it. */
        static long serializedSizeAt(ByteBuffer in, int at) {
            if (at < 0 || (long) at + 20 > in.limit()) { // the node count itself lies past the end
                throw new IllegalArgumentException("a selection at byte " + at + " of " + in.limit()
                        + ": its header is cut off");
            }
            int selected = in.getInt(at + 16);
            if (selected < 0) {
                throw new IllegalArgumentException("a selection of " + selected + " nodes at byte " + at);
            }
            return serializedSize(selected);
        }

        /** The seed of the selection {@link #write} wrote at {@code at} of {@code in}. */
        static long seedAt(ByteBuffer in, int at) {
            return in.getLong(at);
        }

        void write(ByteBuffer out) {
            out.putLong(seed);
            out.putLong(pushes);
            out.putInt(ids.length);
            for (int j = 0; j < ids.length; j++) {
                out.putLong(ids[j]);
                out.putDouble(values[j]);
                out.putDouble(proximity[j]);
            }
        }

        static Settled read(ByteBuffer in) {
            long seed = in.getLong();
            long pushes = in.getLong();
            int m = in.getInt();
            long[] ids = new long[m];
            double[] values = new double[m];
            double[] proximity = new double[m];
            for (int j = 0; j < m; j++) {
                ids[j] = in.getLong();
                values[j] = in.getDouble();
                proximity[j] = in.getDouble();
            }
            return new Settled(seed, pushes, ids, values, proximity);
        }
    }

    /** One batch's PPR neighbourhoods: {@link PprSubgraph}'s layout with node ids. */
    public static final class Result {
        /** Node ids: the distinct seeds, then the other selected nodes. */
        public final long[] ids;
        public final int numSeeds;
        /** {@code [2 * numEdges]}: seed positions, then node positions. */
        public final int[] edgeIndex;
        /** {@code [numEdges * 2]}: per edge, value and hop proximity. */
        public final double[] edgeAttr;
        public final long pushes;

        Result(long[] ids, int numSeeds, int[] edgeIndex, double[] edgeAttr, long pushes) {
            this.ids = ids;
            this.numSeeds = numSeeds;
            this.edgeIndex = edgeIndex;
            this.edgeAttr = edgeAttr;
            this.pushes = pushes;
        }

        public int numEdges() {
            return edgeIndex.length / 2;
        }
    }
}
