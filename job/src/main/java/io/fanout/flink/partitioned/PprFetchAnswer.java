package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.FetchedList;

/** One node's list as a PPR push reads it ({@link FetchedList}), back to the batch that asked: keyed by {@link #batchKey}. */
public class PprFetchAnswer {
    public long batchKey;
    public long node;
    public int degree;
    public long[] neighbors;
    public int[] neighborDegrees;

    public PprFetchAnswer() {}

    PprFetchAnswer(long batchKey, long node, FetchedList list) {
        this.batchKey = batchKey;
        this.node = node;
        this.degree = list.degree();
        this.neighbors = list.neighbors();
        this.neighborDegrees = list.neighborDegrees();
    }

    FetchedList list() {
        return new FetchedList(degree, neighbors, neighborDegrees);
    }
}
