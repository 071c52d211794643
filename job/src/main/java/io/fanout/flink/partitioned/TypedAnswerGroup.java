package io.fanout.flink.partitioned;

/**
 * An {@link AnswerGroup} of one edge type's lookup, back to its typed batch (a Flink POJO keyed by
 * {@link #batchKey}): the hop stage applies the edge types in name order, so it must know which one answered.
 */
public class TypedAnswerGroup {
    public long batchKey;
    /** The edge type's index in name order ({@link TypedLayout#edgeTypes}). */
    public int edgeType;
    public AnswerGroup answers;

    public TypedAnswerGroup() {}

    public TypedAnswerGroup(int edgeType, AnswerGroup answers) {
        this.batchKey = answers.batchKey;
        this.edgeType = edgeType;
        this.answers = answers;
    }

    /** Number of frontier nodes answered. */
    public int size() {
        return answers.size();
    }
}
