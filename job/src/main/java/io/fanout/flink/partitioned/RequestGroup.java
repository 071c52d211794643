package io.fanout.flink.partitioned;

/**
 * One hop's requests of one batch for the frontier nodes one lookup subtask owns (a Flink POJO keyed by
 * {@link #node}, the group's first node, so the keyed exchange routes it to that subtask): one network record and
 * one answer per (batch, hop, subtask) instead of one per frontier node. Built by {@link RequestRouting}.
 */
public class RequestGroup {
    /** The routing key: {@code nodes[0]}. */
    public long node;
    public long batchKey;
    public int epoch;
    public int batchId;
    public int hop;
    /** The graph version to answer at (the batch's; 0 without graph updates). */
    public long version;
    /** The frontier nodes asked about, all owned by one lookup subtask, in frontier order. */
    public long[] nodes;
    /** Each node's position in the batch's frontier for this hop: where its answer goes. */
    public int[] positions;
    /** Disjoint trees ({@code --disjoint}): each node's tree, whose stream it draws from; else null. */
    public int[] trees;
    /** Temporal sampling: the seed time of each node's tree (edges up to it are drawn from); else null. */
    public long[] times;
    /**
     * Induced subgraphs ({@link InduceStageFunction}): the batch's node ids, sorted; the lookup answers each node's
     * whole list kept to these. Else null.
     */
    public long[] members;

    public RequestGroup() {}

    public RequestGroup(long batchKey, int epoch, int batchId, int hop, long version, long[] nodes, int[] positions) {
        this.node = nodes[0];
        this.batchKey = batchKey;
        this.epoch = epoch;
        this.batchId = batchId;
        this.hop = hop;
        this.version = version;
        this.nodes = nodes;
        this.positions = positions;
    }

    /**
     * Sets each node's tree from the frontier's ({@code frontierTrees[positions[i]]}) and, with {@code seedTimes},
     * its time its tree's ({@code seedTimes[trees[i]]}); returns this. Null trees (not disjoint): none; null seed
     * times (not temporal): no times.
     */
    RequestGroup inTrees(int[] frontierTrees, long[] seedTimes) {
        if (frontierTrees != null) {
            trees = new int[positions.length];
            for (int i = 0; i < positions.length; i++) {
                trees[i] = frontierTrees[positions[i]];
            }
            if (seedTimes != null) {
                times = new long[positions.length];
                for (int i = 0; i < positions.length; i++) {
                    times[i] = seedTimes[trees[i]];
                }
            }
        }
        return this;
    }

    /** Number of frontier nodes asked about. */
    public int size() {
        return nodes.length;
    }
}
