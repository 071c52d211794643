package io.fanout.flink.partitioned;

/** The sampled neighbours of one frontier node, back to its batch (a Flink POJO keyed by {@link #batchKey}). */
public class HopAnswer {
    public long batchKey;
    public int position;
    /** Neighbour ids in draw order. */
    public long[] neighbors;

    public HopAnswer() {}

    public HopAnswer(long batchKey, int position, long[] neighbors) {
        this.batchKey = batchKey;
        this.position = position;
        this.neighbors = neighbors;
    }
}
