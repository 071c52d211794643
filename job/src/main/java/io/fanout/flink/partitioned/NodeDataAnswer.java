package io.fanout.flink.partitioned;

/** A node's features and label, back to its batch (a Flink POJO keyed by {@link #batchKey}). */
public class NodeDataAnswer {
    public long batchKey;
    public int position;
    public int label;
    public byte[] row;

    public NodeDataAnswer() {}

    public NodeDataAnswer(long batchKey, int position, int label, byte[] row) {
        this.batchKey = batchKey;
        this.position = position;
        this.label = label;
        this.row = row;
    }
}
