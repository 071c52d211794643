package io.fanout.flink.partitioned;

/** A {@link NodeDataAnswer} of one node type's node-data lookup, back to its typed batch (a Flink POJO). */
public class TypedNodeDataAnswer {
    public long batchKey;
    /** The node type's index in name order ({@link TypedLayout#nodeTypes}). */
    public int nodeType;
    public NodeDataAnswer answer;

    public TypedNodeDataAnswer() {}

    public TypedNodeDataAnswer(int nodeType, NodeDataAnswer answer) {
        this.batchKey = answer.batchKey;
        this.nodeType = nodeType;
        this.answer = answer;
    }
}
