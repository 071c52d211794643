package io.fanout.flink.partitioned;

/** A batch's request for one node's PPR neighbour list in one fetch round: a Flink POJO keyed by {@link #node}. */
public class PprFetchRequest {
    public long node;
    public long batchKey;

    public PprFetchRequest() {}

    public PprFetchRequest(long node, long batchKey) {
        this.node = node;
        this.batchKey = batchKey;
    }
}
