package io.fanout.flink.partitioned;

import java.util.function.Consumer;

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

    /** One request per node of a batch's {@code ids}, each with its position there. */
    static void sendAll(long[] ids, long batchKey, Consumer<NodeDataRequest> out) {
        for (int i = 0; i < ids.length; i++) {
            out.accept(new NodeDataRequest(ids[i], batchKey, i));
        }
    }
}
