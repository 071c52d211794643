package io.fanout.sampling.ppr;

import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The typed PPR of one batch when rows are fetched in rounds (a partitioned store): per distinct seed one
 * {@link FetchingPush} per channel, each reading its channel's list of a node, which is built from the node's
 * fetched {@link TypedNodeRows} exactly as {@link TypedPprSampler} builds a channel's walk graph (the rows of the
 * channel's edge types in name order, degrees summed over them). A push over the same list in the same FIFO order
 * computes what {@link ForwardPush} computes, so with rounds enough every score, residual and hop is the memory
 * store's; the selection is the same {@link TypedPprSelection}, and the result is laid out as
 * {@link TypedPprSubgraph} lays it out. One fetch per node serves every channel and seed.
 *
 * <p>Nodes are keys {@link #key}{@code (type ordinal, id)}: node type in the high 16 bits, so keys order as the memory
 * store's global indices (types in name order, then index) when ids within a type order as their indices do, and
 * ties rank alike. Pure Java; the state is written and read whole ({@link #toBytes}, {@link #fromBytes}) for keyed
 * state between rounds.
 */
public final class TypedPprBatchPush {
    private static final int TYPE_SHIFT = 48;

    private final long[] seeds;
    private final int numNodeTypes;
    /** Per edge type (name order): the node type ordinal of its rows' keys. */
    private final int[] keyType;
    private final int[][] channelEdgeTypes;
    private final boolean includeSampledEdges;
    private final int[] targets;
    private final boolean typed;
    private final int maxPprNodes;
    private final boolean residualTopUp;
    private final TypedPprSelection selection;
    /** pushes[seed][channel]. */
    private final FetchingPush[][] pushes;
    /** The nodes the pushes and channel lists name by slot. */
    private final PushNodes nodes;
    private final Long2ObjectOpenHashMap<TypedNodeRows> rows = new Long2ObjectOpenHashMap<>();
    /** Per channel, each slot's list bound to {@link #nodes} (built when the node's rows are added); null until then. */
    private final SlotLists[] channelLists;
    /**
     * The rows section of the state this batch was read from ({@link #fromBytes}: {@code loadedRowCount} entries in
     * {@code [loadedRowsAt, loadedRowsEnd)} of {@code loadedRows}), written back as it is by {@link #toBytes}; only the
     * rows added since ({@link #addedRows}) are encoded. Re-encoding every row each round took about 8 % of a typed
     * PPR job's CPU (cora_hetero, heap backend).
     */
    private byte[] loadedRows;
    private int loadedRowsAt;
    private int loadedRowsEnd;
    private int loadedRowCount;
    /** Nodes whose rows came by {@link #addRows} (not from the state), in arrival order. */
    private final LongArrayList addedRows = new LongArrayList();

    /**
     * @param seedKeys the batch's seeds as node keys (a repeated seed is pushed once)
     * @param keyType per edge type (name order), the ordinal of its key node type (the type its rows leave)
     * @param channels the channels, or null for one walk over every edge type
     * @param edgeTypeNames the edge types' names, in name order (to place the channels' edge types)
     */
    public TypedPprBatchPush(long[] seedKeys, int numNodeTypes, int[] keyType, java.util.List<String> edgeTypeNames,
            PprChannels channels, double alpha, double eps, int maxPprNodes, boolean residualTopUp,
            boolean includeSampledEdges) {
        if (maxPprNodes < 1) {
            throw new IllegalArgumentException("maxPprNodes must be >= 1, got " + maxPprNodes);
        }
        Set<Long> distinct = new LinkedHashSet<>();
        for (long s : seedKeys) {
            distinct.add(s);
        }
        this.seeds = distinct.stream().mapToLong(Long::longValue).toArray();
        this.numNodeTypes = numNodeTypes;
        this.keyType = keyType.clone();
        this.includeSampledEdges = includeSampledEdges;
        int e = keyType.length;
        int[] targets;
        if (channels != null) {
            channelEdgeTypes = new int[channels.size()][];
            for (int c = 0; c < channels.size(); c++) {
                channelEdgeTypes[c] = channels.channels().get(c).edgeTypes.stream()
                        .mapToInt(t -> edgeTypeNames.indexOf(t.toString())).sorted().toArray();
                for (int m : channelEdgeTypes[c]) {
                    if (m < 0) {
                        throw new IllegalArgumentException("channel " + channels.channels().get(c)
                                + " has an edge type the graph does not have " + edgeTypeNames);
                    }
                }
            }
            targets = channels.targetCounts(maxPprNodes);
        } else {
            int[] all = new int[e];
            for (int i = 0; i < e; i++) {
                all[i] = i;
            }
            channelEdgeTypes = new int[][] {all};
            targets = new int[] {maxPprNodes};
        }
        this.targets = targets;
        this.typed = channels != null;
        this.maxPprNodes = maxPprNodes;
        this.residualTopUp = residualTopUp;
        int c = channelEdgeTypes.length;
        this.selection = new TypedPprSelection(c, typed, targets, maxPprNodes, residualTopUp, maxPprNodes);
        this.nodes = new PushNodes();
        this.pushes = new FetchingPush[seeds.length][c];
        for (int i = 0; i < seeds.length; i++) {
            for (int ch = 0; ch < c; ch++) {
                pushes[i][ch] = new FetchingPush(nodes, seeds[i], alpha, eps, -1);
            }
        }
        this.channelLists = channelLists(c, nodes.size());
    }

    private TypedPprBatchPush(long[] seeds, int numNodeTypes, int[] keyType, int[][] channelEdgeTypes, int[] targets,
            boolean typed, int maxPprNodes, boolean residualTopUp, boolean includeSampledEdges, PushNodes nodes,
            FetchingPush[][] pushes) {
        this.seeds = seeds;
        this.numNodeTypes = numNodeTypes;
        this.keyType = keyType;
        this.channelEdgeTypes = channelEdgeTypes;
        this.targets = targets;
        this.typed = typed;
        this.maxPprNodes = maxPprNodes;
        this.residualTopUp = residualTopUp;
        this.includeSampledEdges = includeSampledEdges;
        this.selection = new TypedPprSelection(channelEdgeTypes.length, typed, targets, maxPprNodes, residualTopUp,
                maxPprNodes);
        this.nodes = nodes;
        this.pushes = pushes;
        this.channelLists = channelLists(channelEdgeTypes.length, nodes.size());
    }

    /** Empty lists of {@code channels} channels, with room for {@code slots} slots each. */
    private static SlotLists[] channelLists(int channels, int slots) {
        SlotLists[] out = new SlotLists[channels];
        for (int ch = 0; ch < channels; ch++) {
            out[ch] = new SlotLists(slots);
        }
        return out;
    }

    /** The key of node {@code id} of the node type with ordinal {@code typeOrdinal} (ids in [0, 2^48)). */
    public static long key(int typeOrdinal, long id) {
        if (id < 0 || id >>> TYPE_SHIFT != 0 || typeOrdinal < 0 || typeOrdinal >= 1 << 15) {
            throw new IllegalArgumentException("node id " + id + " of type " + typeOrdinal
                    + " does not fit a typed PPR key (ids 0..2^48-1)");
        }
        return (long) typeOrdinal << TYPE_SHIFT | id;
    }

    public static int typeOf(long key) {
        return (int) (key >>> TYPE_SHIFT);
    }

    public static long idOf(long key) {
        return key & ((1L << TYPE_SHIFT) - 1);
    }

    /**
     * Records a node's fetched rows (a second copy is ignored: rows are fixed per node) and builds its list in every
     * channel, bound to the batch's slots (no slot may be added while pushes advance).
     */
    public void addRows(long node, TypedNodeRows nodeRows) {
        if (bindRows(node, nodeRows)) {
            addedRows.add(node);
        }
    }

    /** Records and binds {@code node}'s rows unless known; whether they were new. */
    private boolean bindRows(long node, TypedNodeRows nodeRows) {
        if (rows.putIfAbsent(node, nodeRows) != null) {
            return false;
        }
        int s = nodes.slot(node);
        for (int ch = 0; ch < channelLists.length; ch++) {
            channelLists[ch].add(s, nodeRows.channelList(channelEdgeTypes[ch]), nodes);
        }
        return true;
    }

    /**
     * Advances every push with the rows known so far.
     *
     * @param mayFetch whether another fetch round follows (if not, every push finishes with the rows it has)
     * @return the nodes whose rows to fetch next, ascending and distinct; empty when every push is finished
     */
    public long[] advance(boolean mayFetch) {
        LongOpenHashSet missing = new LongOpenHashSet();
        for (FetchingPush[] seedPushes : pushes) {
            for (int ch = 0; ch < seedPushes.length; ch++) {
                FetchingPush push = seedPushes[ch];
                if (!push.advance(channelLists[ch], mayFetch)) {
                    push.forEachMissing(channelLists[ch], slot -> missing.add(nodes.id(slot)));
                }
            }
        }
        long[] out = missing.toLongArray();
        Arrays.sort(out);
        return out;
    }

    /** The push of the i-th distinct seed in channel {@code ch}. */
    public FetchingPush push(int i, int ch) {
        return pushes[i][ch];
    }

    /**
     * Each seed's typed PPR neighbours, laid out as {@link TypedPprSampler#sample} lays them out (node keys instead
     * of indices; a sampled edge's position is within its key node's row).
     */
    public Result select() {
        final int t = numNodeTypes;
        final int c = channelEdgeTypes.length;
        final int w = selection.columns();
        LongArrayList[] nodes = new LongArrayList[t];
        IntArrayList[] src = new IntArrayList[t];
        IntArrayList[] dst = new IntArrayList[t];
        IntArrayList[] channel = new IntArrayList[t];
        DoubleArrayList[] weights = new DoubleArrayList[t];
        for (int i = 0; i < t; i++) {
            nodes[i] = new LongArrayList();
            src[i] = new IntArrayList();
            dst[i] = new IntArrayList();
            channel[i] = new IntArrayList();
            weights[i] = new DoubleArrayList();
        }
        Long2IntOpenHashMap local = new Long2IntOpenHashMap();
        local.defaultReturnValue(-1);
        for (long s : seeds) {
            local.put(s, nodes[typeOf(s)].size());
            nodes[typeOf(s)].add(s);
        }
        int e = keyType.length;
        LongArrayList[] readRows = new LongArrayList[e];
        LongOpenHashSet[] read = new LongOpenHashSet[e];
        for (int i = 0; i < e; i++) {
            readRows[i] = new LongArrayList();
            read[i] = new LongOpenHashSet();
        }
        long pushCount = 0;
        Long2IntOpenHashMap cand = new Long2IntOpenHashMap();
        cand.defaultReturnValue(-1);
        for (int si = 0; si < seeds.length; si++) {
            selection.clear();
            cand.clear();
            for (int ch = 0; ch < c; ch++) {
                FetchingPush p = pushes[si][ch];
                pushCount += p.pushes();
                for (int v = 0; v < p.numTouched(); v++) {
                    long node = p.id(v);
                    int ci = cand.get(node);
                    if (ci < 0) {
                        ci = selection.addCandidate(node);
                        cand.put(node, ci);
                    }
                    selection.set(ci, ch, p.score(v), p.residual(v), p.hop(v));
                }
            }
            int count = selection.select();
            if (includeSampledEdges) {
                // The rows the seed's pushes read, in the memory store's order: channel, then discovery order.
                for (int ch = 0; ch < c; ch++) {
                    FetchingPush p = pushes[si][ch];
                    for (int v = 0; v < p.numTouched(); v++) {
                        if (p.score(v) == 0) {
                            continue;
                        }
                        long node = p.id(v);
                        for (int m : channelEdgeTypes[ch]) {
                            if (keyType[m] == typeOf(node) && read[m].add(node)) {
                                readRows[m].add(node);
                            }
                        }
                    }
                }
            }
            for (int j = 0; j < count; j++) {
                long node = selection.selectedNode(j);
                int type = typeOf(node);
                int loc = local.get(node);
                if (loc < 0) {
                    loc = nodes[type].size();
                    local.put(node, loc);
                    nodes[type].add(node);
                }
                src[type].add(si);
                dst[type].add(loc);
                channel[type].add(selection.selectedChannel(j));
                for (int col = 0; col < w; col++) {
                    weights[type].add(selection.selectedWeight(j, col));
                }
            }
        }
        long[][] outNodes = new long[t][];
        int[][] edgeIndex = new int[t][];
        for (int i = 0; i < t; i++) {
            outNodes[i] = nodes[i].toLongArray();
            int n = src[i].size();
            edgeIndex[i] = new int[2 * n];
            src[i].getElements(0, edgeIndex[i], 0, n);
            dst[i].getElements(0, edgeIndex[i], n, n);
        }
        int[][] sampledRows = new int[e][];
        int[][] sampledCols = new int[e][];
        int[][] sampledPositions = new int[e][];
        for (int m = 0; m < e; m++) {
            IntArrayList r = new IntArrayList();
            IntArrayList cl = new IntArrayList();
            IntArrayList pos = new IntArrayList();
            if (includeSampledEdges) {
                for (int i = 0; i < readRows[m].size(); i++) {
                    long u = readRows[m].getLong(i);
                    int lu = local.get(u);
                    if (lu < 0) {
                        continue;
                    }
                    TypedNodeRows ur = rows.get(u);
                    long[] nb = ur.neighbors(m);
                    int[] up = ur.positions(m);
                    for (int q = 0; q < nb.length; q++) {
                        int lw = local.get(nb[q]);
                        if (lw >= 0) {
                            r.add(lw);
                            cl.add(lu);
                            pos.add(up[q]);
                        }
                    }
                }
            }
            sampledRows[m] = r.toIntArray();
            sampledCols[m] = cl.toIntArray();
            sampledPositions[m] = pos.toIntArray();
        }
        double[][] outWeights = new double[t][];
        int[][] outChannel = new int[t][];
        for (int i = 0; i < t; i++) {
            outWeights[i] = weights[i].toDoubleArray();
            outChannel[i] = channel[i].toIntArray();
        }
        return new Result(seeds.length, outNodes, edgeIndex, outWeights, outChannel, w, sampledRows, sampledCols,
                sampledPositions, pushCount);
    }

    /**
     * The whole state as bytes (options, every push, the rows fetched so far: those read from the state as they were,
     * then the new ones by node; the channel lists are rebuilt from the rows), for keyed state between fetch rounds.
     *
     * @throws PprStateTooLargeException over {@link PprBatchPush#MAX_STATE_BYTES}: fewer seeds per batch or a larger
     *     eps bound it
     */
    public byte[] toBytes() {
        int e = keyType.length;
        long[] rowNodes = addedRows.toLongArray(); // the rows read from the state go as they are, in front
        Arrays.sort(rowNodes);
        long size = 4L * 6 + 3 + 4L * e + 8L * seeds.length + this.nodes.serializedSize();
        for (int[] members : channelEdgeTypes) {
            size += 4 + 4 + 4L * members.length;
        }
        for (FetchingPush[] seedPushes : pushes) {
            for (FetchingPush p : seedPushes) {
                size += p.serializedSize();
            }
        }
        size += loadedRowsEnd - loadedRowsAt;
        for (long node : rowNodes) {
            size += 8 + rows.get(node).bodyBytes();
        }
        if (size > PprBatchPush.MAX_STATE_BYTES) {
            throw new PprStateTooLargeException(String.format(java.util.Locale.ROOT, "the typed PPR state of one batch"
                    + " of %d seeds (%d channels, %d rows) would take %,d bytes, over the %,d one batch can hold: use"
                    + " fewer seeds per batch (--batch-size) or a larger --eps", seeds.length, channelEdgeTypes.length,
                    rows.size(), size, PprBatchPush.MAX_STATE_BYTES));
        }
        ByteBuffer out = ByteBuffer.allocate((int) size).order(PushNodes.STATE_ORDER);
        out.putInt(numNodeTypes).putInt(e);
        for (int k : keyType) {
            out.putInt(k);
        }
        out.putInt(channelEdgeTypes.length);
        for (int ch = 0; ch < channelEdgeTypes.length; ch++) {
            out.putInt(targets[ch]).putInt(channelEdgeTypes[ch].length);
            for (int m : channelEdgeTypes[ch]) {
                out.putInt(m);
            }
        }
        out.put((byte) (typed ? 1 : 0)).putInt(maxPprNodes).put((byte) (residualTopUp ? 1 : 0))
                .put((byte) (includeSampledEdges ? 1 : 0));
        out.putInt(seeds.length);
        for (long s : seeds) {
            out.putLong(s);
        }
        this.nodes.write(out);
        for (FetchingPush[] seedPushes : pushes) {
            for (FetchingPush p : seedPushes) {
                p.write(out);
            }
        }
        out.putInt(loadedRowCount + rowNodes.length);
        if (loadedRows != null) {
            out.put(loadedRows, loadedRowsAt, loadedRowsEnd - loadedRowsAt);
        }
        for (long node : rowNodes) {
            out.putLong(node);
            rows.get(node).write(out);
        }
        if (out.hasRemaining()) {
            throw new IllegalStateException(out.remaining() + " bytes left of the typed PPR state's " + size);
        }
        return out.array();
    }

    /** The state {@link #toBytes} wrote. */
    public static TypedPprBatchPush fromBytes(byte[] state) {
        ByteBuffer in = ByteBuffer.wrap(state).order(PushNodes.STATE_ORDER);
        int numNodeTypes = in.getInt();
        int e = in.getInt();
        int[] keyType = new int[e];
        for (int m = 0; m < e; m++) {
            keyType[m] = in.getInt();
        }
        int c = in.getInt();
        int[] targets = new int[c];
        int[][] members = new int[c][];
        for (int ch = 0; ch < c; ch++) {
            targets[ch] = in.getInt();
            members[ch] = new int[in.getInt()];
            for (int i = 0; i < members[ch].length; i++) {
                members[ch][i] = in.getInt();
            }
        }
        boolean typed = in.get() != 0;
        int maxPprNodes = in.getInt();
        boolean residualTopUp = in.get() != 0;
        boolean includeSampledEdges = in.get() != 0;
        long[] seeds = new long[in.getInt()];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = in.getLong();
        }
        PushNodes nodes = PushNodes.read(in);
        FetchingPush[][] pushes = new FetchingPush[seeds.length][c];
        for (int i = 0; i < seeds.length; i++) {
            for (int ch = 0; ch < c; ch++) {
                pushes[i][ch] = FetchingPush.read(in, nodes);
            }
        }
        TypedPprBatchPush batch = new TypedPprBatchPush(seeds, numNodeTypes, keyType, members, targets, typed,
                maxPprNodes, residualTopUp, includeSampledEdges, nodes, pushes);
        int numRows = in.getInt();
        int rowsAt = in.position();
        for (int i = 0; i < numRows; i++) {
            long node = in.getLong();
            if (!batch.bindRows(node, TypedNodeRows.read(in, e))) {
                throw new IllegalArgumentException("node " + node + "'s rows twice in the typed PPR batch state");
            }
        }
        batch.loadedRows = state;
        batch.loadedRowsAt = rowsAt;
        batch.loadedRowsEnd = in.position();
        batch.loadedRowCount = numRows;
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after the typed PPR batch state");
        }
        return batch;
    }

    /** One batch's typed PPR neighbourhoods: {@link TypedPprSubgraph}'s layout with node keys, by ordinal. */
    public static final class Result {
        public final int numSeeds;
        /** Per node type ordinal: node keys, the seeds first in the seed type. */
        public final long[][] nodes;
        /** Per node type ordinal: {@code [seed locals..., node locals...]}. */
        public final int[][] edgeIndex;
        /** Per node type ordinal: {@code [numEdges * columns]} weight rows. */
        public final double[][] weights;
        /** Per node type ordinal: each PPR edge's attributed channel. */
        public final int[][] channel;
        public final int columns;
        /** Per edge type (name order): sampled edges' neighbour locals (value type), key locals and row positions. */
        public final int[][] sampledRows;
        public final int[][] sampledCols;
        public final int[][] sampledPositions;
        public final long pushes;

        Result(int numSeeds, long[][] nodes, int[][] edgeIndex, double[][] weights, int[][] channel, int columns,
                int[][] sampledRows, int[][] sampledCols, int[][] sampledPositions, long pushes) {
            this.numSeeds = numSeeds;
            this.nodes = nodes;
            this.edgeIndex = edgeIndex;
            this.weights = weights;
            this.channel = channel;
            this.columns = columns;
            this.sampledRows = sampledRows;
            this.sampledCols = sampledCols;
            this.sampledPositions = sampledPositions;
            this.pushes = pushes;
        }
    }
}
