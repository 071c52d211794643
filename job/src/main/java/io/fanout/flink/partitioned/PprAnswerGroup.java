package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.FetchedList;
import java.util.Arrays;

/**
 * The lists asked for by one {@link PprFetchRequest}, back to its batch (a Flink POJO keyed by {@link #batchKey}):
 * node {@code nodes[i]} has true degree {@code degrees[i]} and reads the neighbours
 * {@code neighbors[ends[i-1] .. ends[i])} ({@code ends[-1]} = 0) with their degrees at the same places of
 * {@link #neighborDegrees} ({@link FetchedList}).
 */
public class PprAnswerGroup {
    public long batchKey;
    public long[] nodes;
    public int[] degrees;
    public int[] ends;
    public long[] neighbors;
    public int[] neighborDegrees;

    public PprAnswerGroup() {}

    PprAnswerGroup(long batchKey, long[] nodes, int[] degrees, int[] ends, long[] neighbors, int[] neighborDegrees) {
        this.batchKey = batchKey;
        this.nodes = nodes;
        this.degrees = degrees;
        this.ends = ends;
        this.neighbors = neighbors;
        this.neighborDegrees = neighborDegrees;
    }

    /** Number of lists answered. */
    public int size() {
        return nodes.length;
    }

    /** The i-th answered node's list. */
    FetchedList list(int i) {
        int from = i == 0 ? 0 : ends[i - 1];
        return new FetchedList(degrees[i], Arrays.copyOfRange(neighbors, from, ends[i]),
                Arrays.copyOfRange(neighborDegrees, from, ends[i]));
    }
}
