package io.fanout.flink.partitioned;

/** Asks the owner of {@link #node} for its features and label, for one batch's message (a Flink POJO). */
public class NodeDataRequest {
    public long node;
    public long batchKey;
    /** The node's position in the batch's {@code ids}: where its row goes. */
    public int position;

    public NodeDataRequest() {}

    public NodeDataRequest(long node, long batchKey, int position) {
        this.node = node;
        this.batchKey = batchKey;
        this.position = position;
    }
}
