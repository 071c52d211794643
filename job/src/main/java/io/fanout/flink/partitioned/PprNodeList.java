package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.FetchedList;

/**
 * One node's list as a PPR push reads it ({@link FetchedList}: true degree, the neighbours read, each one's degree),
 * built once by {@link PprListOperator} and kept by every round's {@link KeyedLookups#pprLists}: a Flink POJO keyed by
 * {@link #node}.
 */
public class PprNodeList {
    public long node;
    public int degree;
    public long[] neighbors;
    public int[] neighborDegrees;

    public PprNodeList() {}

    PprNodeList(long node, FetchedList list) {
        this.node = node;
        this.degree = list.degree();
        this.neighbors = list.neighbors();
        this.neighborDegrees = list.neighborDegrees();
    }
}
