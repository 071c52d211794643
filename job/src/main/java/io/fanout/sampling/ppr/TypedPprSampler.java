package io.fanout.sampling.ppr;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * PPR neighbour sampler of a typed graph (GiGL's heterogeneous {@code DistPPRNeighborSampler}): for every seed
 * (all of one node type), the {@code maxPprNodes} nodes of any type with the highest approximate PPR.
 *
 * <h2>Walk</h2>
 * The node types are laid out in one index space (type by type, in name order), so that a channel is a plain
 * {@link CsrGraph} that {@link ForwardPush} walks: a node's row holds its neighbours along every edge type of the
 * channel that leaves its type in the sampling direction ({@code out}: edge source to destination; {@code in}:
 * destination to source). Without channels there is one channel of every edge type. Each channel's scores are
 * therefore the forward-push PPR of the subgraph of its edge types, with its error bound (see ForwardPush); a
 * node without a channel edge in the walked direction is dangling and sends its mass back to the seed.
 *
 * <p>With {@code maxNeighbors = k > 0} (GiGL's {@code num_neighbors_per_hop}, per node and edge type), a node
 * with more than k neighbours of one edge type keeps a fixed seeded uniform sample of k of them (SplitMix64
 * stream per edge type and node id); the queue threshold still uses its true degree in the channel.
 *
 * <h2>Selection (GiGL's typed merge)</h2>
 * Per seed each channel's push runs to completion. Without channels the selection is {@link PprSampler}'s. With
 * channels (target counts from {@link PprChannels#targetCounts}):
 * <ol>
 *   <li>a node pushed in any channel is attributed to the channel where its settled score is highest; with the
 *       residual top-up, a node only discovered (never pushed) to the channel where its residual is highest
 *       (ties: the earlier channel);</li>
 *   <li>each channel takes its best attributed pushed nodes up to its target, then (top-up) its best
 *       discovered-only nodes up to what is left of its target;</li>
 *   <li>slots still free (channels short of their targets) go to the best remaining pushed nodes of any channel,
 *       then (top-up) to the best remaining discovered-only nodes.</li>
 * </ol>
 * Discovered-only nodes never displace pushed ones within a channel's target or among the free slots.
 * A seed's edges are ordered by reported score, best first, ties by type then index.
 *
 * <h2>Weights</h2>
 * A channel's value of a node is its settled score, plus its residual with the top-up. Without channels a weight
 * row is {@code [score, 1/(1+hop)]}. With C channels it is {@code [best, 1/(1+hop), (score_c, 1/(1+hop_c),
 * presence_c) for each channel]}: best is the highest channel value, hop the fewest pushes over the channels
 * that reached the node; a channel that did not reach it has score, proximity and presence 0.
 *
 * <h2>Sampled edges</h2>
 * With {@code includeSampledEdges}, the original edges the pushes read (rows of nodes pushed in a channel that
 * has their edge type) whose two ends are both selected nodes of the batch, once each, reported as k-hop reports
 * them ({@link EdgeType#reversed()} for {@code out}).
 *
 * <p>The result depends only on the graph, the options and the seeds, never on the batch's neighbours in the
 * stream, the thread or the parallelism. Not thread-safe: one instance per operator subtask.
 */
public final class TypedPprSampler {
    private final List<String> nodeTypes;
    private final int[] typeBase;
    private final NodeIdMap[] typeIds;
    private final String seedType;
    private final int seedOrdinal;
    private final int numNodes;

    private final boolean typed;
    private final int numChannels;
    private final int[] targets;
    private final int maxPprNodes;
    private final boolean residualTopUp;
    private final boolean includeSampledEdges;
    private final ForwardPush[] pushes;

    /** Per edge type (name order): its adjacency, reported type, key/value type ordinals and sparsified rows. */
    private final TypedAdjacency[] adjacency;
    private final EdgeType[] reported;
    private final int[] keyOrdinal;
    private final int[][] rowOffsets;
    private final int[][] rowTargets;
    private final int[][] rowPositions;
    /** channelEdgeTypes[c] = the edge type indices of channel c (name order). */
    private final int[][] channelEdgeTypes;

    /** Per global node: batch stamp (high 32 bits) and local index within its type (low 32 bits). */
    private final long[] slots;
    private int stamp;
    /** Per edge type and key node: batch stamp when a push of the batch read its row. */
    private final int[][] readStamp;
    private final IntArrayList[] readRows;

    /** Candidate scratch of one seed: per global node its candidate index, stamped per seed. */
    private final int[] candStamp;
    private final int[] candIndex;
    private int seedStamp;
    private final TypedPprSelection selection;

    /**
     * @param adjacency edge type -> adjacency in the sampling direction (every edge type of the graph)
     * @param nodeIds node type -> ids (every node type of the graph)
     * @param channels the channels, or null for one walk over every edge type
     * @param maxNeighbors neighbours read per node and edge type: -1 = all, else >= 1
     * @param seed the job seed (drives only the neighbour sample of maxNeighbors)
     */
    public TypedPprSampler(Map<EdgeType, TypedAdjacency> adjacency, Map<String, NodeIdMap> nodeIds, String seedType,
            PprChannels channels, double alpha, double eps, int maxPprNodes, int maxNeighbors, boolean residualTopUp,
            boolean includeSampledEdges, long seed) {
        Objects.requireNonNull(adjacency, "adjacency");
        this.nodeTypes = new ArrayList<>(new TreeMap<>(nodeIds).keySet());
        if (!nodeTypes.contains(seedType)) {
            throw new IllegalArgumentException("seed type " + seedType + " is not a node type of the graph " + nodeTypes);
        }
        if (maxPprNodes < 1) {
            throw new IllegalArgumentException("maxPprNodes must be >= 1, got " + maxPprNodes);
        }
        if (maxNeighbors < 1 && maxNeighbors != -1) {
            throw new IllegalArgumentException("maxNeighbors must be >= 1 or -1 (all neighbours), got " + maxNeighbors);
        }
        int t = nodeTypes.size();
        this.typeBase = new int[t + 1];
        this.typeIds = new NodeIdMap[t];
        long total = 0;
        for (int i = 0; i < t; i++) {
            typeIds[i] = nodeIds.get(nodeTypes.get(i));
            typeBase[i] = (int) total;
            total += typeIds[i].size();
        }
        if (total > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("typed PPR needs fewer than 2^31 nodes over all types, got " + total);
        }
        this.numNodes = (int) total;
        typeBase[t] = numNodes;
        this.seedType = seedType;
        this.seedOrdinal = nodeTypes.indexOf(seedType);
        this.maxPprNodes = maxPprNodes;
        this.residualTopUp = residualTopUp;
        this.includeSampledEdges = includeSampledEdges;

        Map<EdgeType, TypedAdjacency> byName = new TreeMap<>(adjacency);
        int e = byName.size();
        this.adjacency = byName.values().toArray(new TypedAdjacency[0]);
        List<EdgeType> edgeTypes = new ArrayList<>(byName.keySet());
        this.reported = new EdgeType[e];
        this.keyOrdinal = new int[e];
        this.rowOffsets = new int[e][];
        this.rowTargets = new int[e][];
        this.rowPositions = new int[e][];
        Map<EdgeType, EdgeType> reportedBy = new TreeMap<>();
        for (int i = 0; i < e; i++) {
            TypedAdjacency a = this.adjacency[i];
            reported[i] = a.csr().direction() == EdgeDirection.OUT ? a.type().reversed() : a.type();
            EdgeType clash = reportedBy.put(reported[i], a.type());
            if (clash != null && includeSampledEdges) {
                throw new IllegalArgumentException("edge types " + clash + " and " + a.type() + " are both reported as "
                        + reported[i] + " (GLT's reversed name); rename one relation");
            }
            keyOrdinal[i] = nodeTypes.indexOf(a.keyType());
            sparsify(i, nodeTypes.indexOf(a.valueType()), maxNeighbors, seed);
        }

        this.typed = channels != null;
        int[][] members;
        if (typed) {
            members = new int[channels.size()][];
            for (int c = 0; c < channels.size(); c++) {
                members[c] = channels.channels().get(c).edgeTypes.stream().mapToInt(edgeTypes::indexOf).sorted().toArray();
                for (int m : members[c]) {
                    if (m < 0) {
                        throw new IllegalArgumentException("channel " + channels.channels().get(c)
                                + " has an edge type the graph does not have " + edgeTypes);
                    }
                }
            }
            this.targets = channels.targetCounts(maxPprNodes);
        } else {
            int[] all = new int[e];
            for (int i = 0; i < e; i++) {
                all[i] = i;
            }
            members = new int[][] {all};
            this.targets = new int[] {maxPprNodes};
        }
        this.channelEdgeTypes = members;
        this.numChannels = members.length;
        this.pushes = new ForwardPush[numChannels];
        for (int c = 0; c < numChannels; c++) {
            int[] degrees = new int[numNodes];
            CsrGraph csr = channelGraph(members[c], degrees);
            pushes[c] = new ForwardPush(csr, null, alpha, eps, -1, seed, degrees);
        }
        this.slots = new long[numNodes];
        this.readStamp = new int[e][];
        this.readRows = new IntArrayList[e];
        for (int i = 0; i < e; i++) {
            readStamp[i] = includeSampledEdges ? new int[this.adjacency[i].numKeyNodes()] : new int[0];
            readRows[i] = new IntArrayList();
        }
        this.candStamp = new int[numNodes];
        this.candIndex = new int[numNodes];
        this.selection = new TypedPprSelection(numChannels, typed, targets, maxPprNodes, residualTopUp,
                Math.min(maxPprNodes, Math.max(numNodes, 1)));
    }

    /** Keeps every row of edge type i, or a fixed seeded sample of maxNeighbors positions of the longer ones. */
    private void sparsify(int i, int valueOrdinal, int k, long seed) {
        TypedAdjacency a = adjacency[i];
        CsrGraph csr = a.csr();
        int keys = a.numKeyNodes();
        int[] offsets = csr.offsets();
        int[] targets = csr.targets();
        int valueBase = a.valueBase();
        int globalBase = typeBase[valueOrdinal];
        long[] ids = typeIds[keyOrdinal[i]].idsOrNull();
        String typeName = a.type().toString();
        int[] outOffsets = new int[keys + 1];
        IntArrayList outTargets = new IntArrayList();
        IntArrayList outPositions = new IntArrayList();
        for (int v = 0; v < keys; v++) {
            int start = offsets[v];
            int d = offsets[v + 1] - start;
            if (k > 0 && d > k) {
                // The one cut a partitioned store makes too (TypedNodeRows.readPositions).
                for (int chosen : TypedNodeRows.readPositions(typeName, ids == null ? v : ids[v], d, k, seed)) {
                    outTargets.add(globalBase + targets[start + chosen] - valueBase);
                    outPositions.add(start + chosen);
                }
            } else {
                for (int p = start; p < start + d; p++) {
                    outTargets.add(globalBase + targets[p] - valueBase);
                    outPositions.add(p);
                }
            }
            outOffsets[v + 1] = outTargets.size();
        }
        rowOffsets[i] = outOffsets;
        rowTargets[i] = outTargets.toIntArray();
        rowPositions[i] = outPositions.toIntArray();
    }

    /** The walk graph of one channel over all nodes; fills each node's true degree in the channel. */
    private CsrGraph channelGraph(int[] members, int[] degrees) {
        int[] offsets = new int[numNodes + 1];
        for (int m : members) {
            int base = typeBase[keyOrdinal[m]];
            int[] ro = rowOffsets[m];
            int[] csrOffsets = adjacency[m].csr().offsets();
            for (int v = 0; v + 1 < ro.length; v++) {
                offsets[base + v + 1] += ro[v + 1] - ro[v];
                degrees[base + v] += csrOffsets[v + 1] - csrOffsets[v];
            }
        }
        for (int u = 0; u < numNodes; u++) {
            offsets[u + 1] += offsets[u];
        }
        int[] targets = new int[offsets[numNodes]];
        int[] fill = Arrays.copyOf(offsets, numNodes);
        for (int m : members) {
            int base = typeBase[keyOrdinal[m]];
            int[] ro = rowOffsets[m];
            int[] rt = rowTargets[m];
            for (int v = 0; v + 1 < ro.length; v++) {
                int len = ro[v + 1] - ro[v];
                System.arraycopy(rt, ro[v], targets, fill[base + v], len);
                fill[base + v] += len;
            }
        }
        return new CsrGraph(offsets, targets, null, null, EdgeDirection.OUT);
    }

    /** Number of channels (1 without channels). */
    public int numChannels() {
        return numChannels;
    }

    /** Each channel's target count (without channels: maxPprNodes). */
    public int[] targets() {
        return targets.clone();
    }

    /** The push of channel c (its state describes the last seed sampled); nodes are global indices. */
    public ForwardPush push(int c) {
        return pushes[c];
    }

    /** The global index of node {@code index} of {@code type}. */
    public int globalIndex(String type, int index) {
        return typeBase[nodeTypes.indexOf(type)] + index;
    }

    /** Width of a weight row. */
    public int columns() {
        return typed ? 2 + 3 * numChannels : 2;
    }

    // ---- one seed's selection -------------------------------------------------------------------------------

    /**
     * Runs every channel's push for one seed (a node index of the seed type) and selects its PPR neighbours; returns
     * how many. Read them with {@link #selectedNode}, {@link #selectedWeight} and {@link #selectedChannel}.
     */
    public int sampleSeed(int seedIndex) {
        int s = typeBase[seedOrdinal] + seedIndex;
        for (ForwardPush p : pushes) {
            p.run(s);
        }
        collectCandidates();
        return selection.select();
    }

    public int selectedNode(int i) {
        return (int) selection.selectedNode(i);
    }

    /** Column {@code col} of the i-th selected node's weight row. */
    public double selectedWeight(int i, int col) {
        return selection.selectedWeight(i, col);
    }

    /** The channel the i-th selected node is attributed to. */
    public int selectedChannel(int i) {
        return selection.selectedChannel(i);
    }

    private void collectCandidates() {
        if (++seedStamp == Integer.MAX_VALUE) {
            Arrays.fill(candStamp, 0);
            seedStamp = 1;
        }
        selection.clear();
        for (int ch = 0; ch < numChannels; ch++) {
            ForwardPush p = pushes[ch];
            int[] touched = p.touched();
            for (int i = 0, nt = p.numTouched(); i < nt; i++) {
                int v = touched[i];
                int ci;
                if (candStamp[v] != seedStamp) {
                    candStamp[v] = seedStamp;
                    ci = selection.addCandidate(v);
                    candIndex[v] = ci;
                } else {
                    ci = candIndex[v];
                }
                selection.set(ci, ch, p.score(v), p.residual(v), p.hop(v));
            }
        }
    }

    // ---- one batch --------------------------------------------------------------------------------------------

    /**
     * Samples the typed PPR neighbourhoods of one batch of seeds (node indices of the seed type; a repeated seed is
     * sampled once).
     *
     * @throws IllegalArgumentException if a seed is not a node of the seed type
     */
    public TypedPprSubgraph sample(int[] seeds) {
        Objects.requireNonNull(seeds, "seeds");
        if (++stamp == Integer.MAX_VALUE) {
            Arrays.fill(slots, 0L);
            for (int[] r : readStamp) {
                Arrays.fill(r, 0);
            }
            stamp = 1;
        }
        final long stampBits = (long) stamp << 32;
        final int t = nodeTypes.size();
        IntArrayList[] local = new IntArrayList[t];
        for (int i = 0; i < t; i++) {
            local[i] = new IntArrayList();
        }
        for (IntArrayList r : readRows) {
            r.clear();
        }
        int seedCount = typeIds[seedOrdinal].size();
        IntArrayList seedLocal = local[seedOrdinal];
        for (int i = 0; i < seeds.length; i++) {
            int s = seeds[i];
            if (s < 0 || s >= seedCount) {
                throw new IllegalArgumentException("seed " + s + " at position " + i + " is not a node of type "
                        + seedType + " (indices 0.." + (seedCount - 1) + ")");
            }
            int g = typeBase[seedOrdinal] + s;
            if ((int) (slots[g] >>> 32) != stamp) {
                slots[g] = stampBits | seedLocal.size();
                seedLocal.add(s);
            }
        }
        final int numSeeds = seedLocal.size();
        final int w = columns();
        IntArrayList[] src = new IntArrayList[t];
        IntArrayList[] dst = new IntArrayList[t];
        IntArrayList[] channel = new IntArrayList[t];
        DoubleArrayList[] weights = new DoubleArrayList[t];
        for (int i = 0; i < t; i++) {
            src[i] = new IntArrayList();
            dst[i] = new IntArrayList();
            channel[i] = new IntArrayList();
            weights[i] = new DoubleArrayList();
        }
        long pushCount = 0;
        for (int si = 0; si < numSeeds; si++) {
            int count = sampleSeed(seedLocal.getInt(si));
            for (ForwardPush p : pushes) {
                pushCount += p.pushes();
            }
            if (includeSampledEdges) {
                markReadRows();
            }
            for (int j = 0; j < count; j++) {
                int v = selectedNode(j);
                int type = typeOf(v);
                long slot = slots[v];
                int loc;
                if ((int) (slot >>> 32) == stamp) {
                    loc = (int) slot;
                } else {
                    loc = local[type].size();
                    slots[v] = stampBits | loc;
                    local[type].add(v - typeBase[type]);
                }
                src[type].add(si);
                dst[type].add(loc);
                channel[type].add(selection.selectedChannel(j));
                for (int col = 0; col < w; col++) {
                    weights[type].add(selection.selectedWeight(j, col));
                }
            }
        }
        Map<String, int[]> nodes = new LinkedHashMap<>();
        Map<String, TypedPprSubgraph.PprEdges> ppr = new LinkedHashMap<>();
        for (int i = 0; i < t; i++) {
            nodes.put(nodeTypes.get(i), local[i].toIntArray());
            int n = src[i].size();
            int[] edgeIndex = new int[2 * n];
            src[i].getElements(0, edgeIndex, 0, n);
            dst[i].getElements(0, edgeIndex, n, n);
            ppr.put(nodeTypes.get(i), new TypedPprSubgraph.PprEdges(edgeIndex, weights[i].toDoubleArray(),
                    channel[i].toIntArray()));
        }
        Map<EdgeType, TypedPprSubgraph.SampledEdges> sampled = new TreeMap<>();
        if (includeSampledEdges) {
            for (int e = 0; e < adjacency.length; e++) {
                sampled.put(reported[e], sampledEdges(e));
            }
        }
        return new TypedPprSubgraph(seedType, numSeeds, nodes, ppr, w, sampled, pushCount);
    }

    /** Records the rows the last seed's pushes read (nodes pushed in a channel, per edge type of the channel). */
    private void markReadRows() {
        for (int ch = 0; ch < numChannels; ch++) {
            ForwardPush p = pushes[ch];
            int[] touched = p.touched();
            for (int i = 0, nt = p.numTouched(); i < nt; i++) {
                int v = touched[i];
                if (p.score(v) == 0) {
                    continue;
                }
                int type = typeOf(v);
                for (int e : channelEdgeTypes[ch]) {
                    if (keyOrdinal[e] == type) {
                        int key = v - typeBase[type];
                        if (readStamp[e][key] != stamp) {
                            readStamp[e][key] = stamp;
                            readRows[e].add(key);
                        }
                    }
                }
            }
        }
    }

    private TypedPprSubgraph.SampledEdges sampledEdges(int e) {
        IntArrayList rows = new IntArrayList();
        IntArrayList cols = new IntArrayList();
        IntArrayList positions = new IntArrayList();
        int base = typeBase[keyOrdinal[e]];
        int[] ro = rowOffsets[e];
        int[] rt = rowTargets[e];
        int[] rp = rowPositions[e];
        IntArrayList read = readRows[e];
        for (int i = 0; i < read.size(); i++) {
            int key = read.getInt(i);
            long us = slots[base + key];
            if ((int) (us >>> 32) != stamp) {
                continue;
            }
            for (int q = ro[key]; q < ro[key + 1]; q++) {
                long ws = slots[rt[q]];
                if ((int) (ws >>> 32) == stamp) {
                    rows.add((int) ws);
                    cols.add((int) us);
                    positions.add(rp[q]);
                }
            }
        }
        return new TypedPprSubgraph.SampledEdges(adjacency[e], rows.toIntArray(), cols.toIntArray(),
                positions.toIntArray());
    }

    private int typeOf(int global) {
        int t = 0;
        while (global >= typeBase[t + 1]) {
            t++;
        }
        return t;
    }
}
