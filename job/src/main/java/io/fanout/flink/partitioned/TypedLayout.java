package io.fanout.flink.partitioned;

import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.sampling.hetero.HeteroKHopSampler;
import io.fanout.sampling.partitioned.HeteroBatchAssembly;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The shape of a typed graph's partitioned k-hop, shared by its operators: node types and edge types in name order,
 * each edge type's key and value node type in the job's edge direction, the type it is reported under (GLT's) and
 * its fanout per hop. Indices into these lists are what batches and answers carry.
 */
final class TypedLayout implements Serializable {
    private static final long serialVersionUID = 1L;

    final List<String> nodeTypes;
    final List<EdgeType> edgeTypes;
    final List<EdgeType> reported;
    final int[] keyType;
    final int[] valueType;
    /** [edge type][hop - 1]: the fanout, 0 = the type is not walked at that hop. */
    final int[][] fanouts;
    final int seedType;
    final int hops;
    final long seed;

    /**
     * @param fanouts edge type name -> per-hop fanouts, every edge type, one length ({@code TypedFanouts#resolve})
     * @param seed the job seed (each (edge type, hop) draws under {@link HeteroKHopSampler#hopSeed})
     */
    TypedLayout(java.util.Collection<String> nodeTypes, java.util.Collection<EdgeType> edgeTypes,
            Map<String, int[]> fanouts, String seedType, EdgeDirection direction, long seed) {
        this.nodeTypes = List.copyOf(new java.util.TreeSet<>(nodeTypes));
        this.edgeTypes = List.copyOf(new java.util.TreeSet<>(edgeTypes));
        this.seedType = this.nodeTypes.indexOf(seedType);
        if (this.seedType < 0) {
            throw new IllegalArgumentException("seed type " + seedType + " is not a node type of the graph "
                    + this.nodeTypes);
        }
        int n = this.edgeTypes.size();
        keyType = new int[n];
        valueType = new int[n];
        this.fanouts = new int[n][];
        List<EdgeType> out = new ArrayList<>();
        Map<EdgeType, EdgeType> reportedBy = new TreeMap<>();
        int numHops = -1;
        for (int t = 0; t < n; t++) {
            EdgeType type = this.edgeTypes.get(t);
            boolean forward = direction == EdgeDirection.OUT;
            keyType[t] = this.nodeTypes.indexOf(forward ? type.src() : type.dst());
            valueType[t] = this.nodeTypes.indexOf(forward ? type.dst() : type.src());
            int[] f = fanouts.get(type.toString());
            if (f == null || f.length == 0 || (numHops >= 0 && f.length != numHops)) {
                throw new IllegalArgumentException("fanouts for " + type + ": " + Arrays.toString(f)
                        + " (every edge type needs the same, non-zero number of hops)");
            }
            numHops = f.length;
            this.fanouts[t] = f.clone();
            EdgeType shown = forward ? type.reversed() : type; // as HeteroKHopSampler reports it
            EdgeType clash = reportedBy.put(shown, type);
            if (clash != null) {
                throw new IllegalArgumentException("edge types " + clash + " and " + type + " would both be"
                        + " reported as " + shown + " (GLT's reversed name); rename one relation");
            }
            out.add(shown);
        }
        if (n == 0) {
            throw new IllegalArgumentException("a typed graph needs at least one edge type");
        }
        this.reported = List.copyOf(out);
        this.hops = numHops;
        this.seed = seed;
    }

    List<HeteroBatchAssembly.Relation> relations() {
        List<HeteroBatchAssembly.Relation> out = new ArrayList<>();
        for (int t = 0; t < edgeTypes.size(); t++) {
            out.add(new HeteroBatchAssembly.Relation(keyType[t], valueType[t]));
        }
        return out;
    }

    /** Whether edge type {@code t} is walked at {@code hop} (1-based). */
    boolean walks(int t, int hop) {
        return fanouts[t][hop - 1] != 0;
    }

    /** The seed of edge type {@code t}'s draws at {@code hop}, as the memory store's typed sampler draws. */
    long hopSeed(int t, int hop) {
        return HeteroKHopSampler.hopSeed(seed, edgeTypes.get(t), hop);
    }

    /** The assembly of {@code batch}'s state. */
    HeteroBatchAssembly assembly(TypedPartialBatch batch) {
        return new HeteroBatchAssembly(nodeTypes.size(), relations(), batch.seeds, batch.ids, batch.trees,
                batch.numSampledNodes, batch.rows, batch.cols, batch.numSampledEdges);
    }

    /** Side output of the requests of edge type {@code t} at {@code hop}. */
    static org.apache.flink.util.OutputTag<RequestGroup> requests(int hop, int t) {
        return SideOutputs.tag("typed-hop-" + hop + "-type-" + t + "-requests", RequestGroup.class);
    }

    /** Side output of the node-data requests of node type {@code type} (after the last hop). */
    static org.apache.flink.util.OutputTag<NodeDataRequest> nodeDataRequests(int type) {
        return SideOutputs.tag("typed-node-data-" + type + "-requests", NodeDataRequest.class);
    }

    /**
     * The node-data requests of a batch's {@code ids} per node type, for the types with {@code nodeData}, each on
     * its type's {@link #nodeDataRequests} through {@code out}.
     */
    static void sendNodeDataRequests(long[][] ids, boolean[] nodeData, long batchKey,
            org.apache.flink.api.common.TaskInfo task,
            java.util.function.BiConsumer<org.apache.flink.util.OutputTag<NodeDataRequest>, NodeDataRequest> out) {
        for (int type = 0; type < nodeData.length; type++) {
            if (nodeData[type]) {
                org.apache.flink.util.OutputTag<NodeDataRequest> tag = nodeDataRequests(type);
                NodeDataRequest.sendAll(ids[type], batchKey, task, r -> out.accept(tag, r));
            }
        }
    }

    /**
     * Sends the requests of every edge type walked at {@code hop} for {@code assembly}'s frontier, grouped per lookup
     * subtask ({@link RequestRouting}); returns how many frontier nodes will answer. Each request is hop 1 of its
     * (edge type, hop)'s stream, as the memory store's typed sampler runs each (edge type, hop) as one hop; a disjoint
     * batch's request carries each node's tree and the hop itself, as the memory store's disjoint typed sampler
     * draws ({@code seed(hopSeed, epoch, batch, hop, tree, id)}), and a temporal batch's each node's seed time.
     */
    int sendRequests(TypedPartialBatch batch, int hop, HeteroBatchAssembly assembly,
            org.apache.flink.api.common.TaskInfo task, RequestSink out) {
        int expected = 0;
        for (int t = 0; t < edgeTypes.size(); t++) {
            long[] frontier = assembly.frontier(keyType[t]);
            if (!walks(t, hop) || frontier.length == 0) {
                continue;
            }
            expected += frontier.length;
            int edgeType = t;
            int[] trees = assembly.frontierTrees(keyType[t]);
            RequestRouting.split(frontier, task, (nodes, positions) -> out.accept(edgeType, new RequestGroup(
                    batch.batchKey, batch.epoch, batch.batchId, trees == null ? 1 : hop, 0L, nodes, positions)
                    .inTrees(trees, batch.seedTimes)));
        }
        return expected;
    }

    /** Receives one request group of edge type {@code t}. */
    @FunctionalInterface
    interface RequestSink {
        void accept(int t, RequestGroup group);
    }
}
