package io.fanout.flink.partitioned;

/** Asks the owner of {@link #node} for its sampled neighbours at one hop of one batch (a Flink POJO). */
public class HopRequest {
    public long node;
    public long batchKey;
    public int epoch;
    public int batchId;
    public int hop;
    /** The node's position in the batch's frontier for this hop: where the answer goes. */
    public int position;
    /** The graph version to answer at (the batch's; 0 without graph updates). */
    public long version;

    public HopRequest() {}

    public HopRequest(long node, long batchKey, int epoch, int batchId, int hop, int position) {
        this.node = node;
        this.batchKey = batchKey;
        this.epoch = epoch;
        this.batchId = batchId;
        this.hop = hop;
        this.position = position;
    }
}
