package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.FetchedList;

/**
 * The lists asked for by one {@link PprFetchRequest}, back to its batch (a Flink POJO keyed by {@link #batchKey}):
 * node {@code nodes[i]} has true degree {@code degrees[i]} and reads the neighbours
 * {@code neighbors[ends[i-1] .. ends[i])} ({@code ends[-1]} = 0) with their degrees at the same places of
 * {@link #neighborDegrees} ({@link FetchedList}).
 *
 * <p>With graph updates a fetch cannot know its neighbours' degrees at the batch's version (they live under other
 * keys): its lists come with {@link #degreesFollow} and the degrees of their {@link #degreeRequests} distinct
 * neighbours come from degree lookups as further groups with {@link #degreeAnswer} ({@code nodes[i]} has degree
 * {@code degrees[i]}, no lists).
 */
public class PprAnswerGroup {
    public long batchKey;
    public long[] nodes;
    public int[] degrees;
    public int[] ends;
    public long[] neighbors;
    public int[] neighborDegrees;
    /** Lists whose {@link #neighborDegrees} are still to come (from degree lookups). */
    public boolean degreesFollow;
    /** With {@link #degreesFollow}: the distinct neighbours whose degrees were asked for. */
    public int degreeRequests;
    /** Degrees of nodes, not lists: {@link #nodes} and {@link #degrees} only. */
    public boolean degreeAnswer;

    public PprAnswerGroup() {}

    /** The degrees at the batch's version of {@code nodes}, from a degree lookup. */
    static PprAnswerGroup degrees(long batchKey, long[] nodes, int[] degrees) {
        PprAnswerGroup g = new PprAnswerGroup(batchKey, nodes, degrees, new int[0], new long[0], new int[0]);
        g.degreeAnswer = true;
        return g;
    }

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
}
