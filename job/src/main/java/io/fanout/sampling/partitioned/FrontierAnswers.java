package io.fanout.sampling.partitioned;

import java.util.Arrays;

/**
 * One hop's answer groups, as lookups send them, indexed by frontier position: group {@code g} answered positions
 * {@code positions[g][i]} with {@code neighbors[g][ends[g][i-1] .. ends[g][i])} ({@code ends[g][-1]} = 0). Checked
 * once here, so an assembly reads each position's neighbours where they arrived instead of a copy per node.
 */
final class FrontierAnswers {
    private final long[][] neighbors;
    private final int[] groupOf;
    private final int[] fromOf;
    private final int[] toOf;
    private final long drawn;

    /**
     * @throws IllegalArgumentException unless every position of a frontier of {@code frontier} nodes is answered
     *     exactly once by well-formed groups
     */
    FrontierAnswers(int frontier, int[][] positions, int[][] ends, long[][] neighbors) {
        if (positions.length != ends.length || positions.length != neighbors.length) {
            throw new IllegalArgumentException("answer groups: " + positions.length + " position lists, " + ends.length
                    + " end lists, " + neighbors.length + " neighbour lists");
        }
        this.neighbors = neighbors;
        groupOf = new int[frontier];
        fromOf = new int[frontier];
        toOf = new int[frontier];
        Arrays.fill(groupOf, -1);
        long total = 0;
        for (int g = 0; g < positions.length; g++) {
            if (ends[g].length != positions[g].length
                    || (ends[g].length > 0 && ends[g][ends[g].length - 1] > neighbors[g].length)) {
                throw new IllegalArgumentException("answer group " + g + ": " + positions[g].length + " positions, "
                        + ends[g].length + " ends, " + neighbors[g].length + " neighbours");
            }
            for (int i = 0, from = 0; i < positions[g].length; from = ends[g][i++]) {
                int p = positions[g][i];
                if (p < 0 || p >= frontier || groupOf[p] >= 0) {
                    throw new IllegalArgumentException("frontier position " + p + " answered "
                            + (p < 0 || p >= frontier ? "but the frontier has " + frontier + " nodes" : "twice"));
                }
                if (ends[g][i] < from) {
                    throw new IllegalArgumentException("answer group " + g + ": ends decrease at " + i);
                }
                groupOf[p] = g;
                fromOf[p] = from;
                toOf[p] = ends[g][i];
                total += ends[g][i] - from;
            }
        }
        for (int p = 0; p < frontier; p++) {
            if (groupOf[p] < 0) {
                throw new IllegalArgumentException("frontier position " + p + " of " + frontier + " has no answer");
            }
        }
        drawn = total;
    }

    /** The answers of {@code inOrder[p]} for frontier position {@code p}, one group per position. */
    static FrontierAnswers perNode(long[][] inOrder) {
        int[][] positions = new int[inOrder.length][];
        int[][] ends = new int[inOrder.length][];
        for (int i = 0; i < inOrder.length; i++) {
            positions[i] = new int[] {i};
            ends[i] = new int[] {inOrder[i].length};
        }
        return new FrontierAnswers(inOrder.length, positions, ends, inOrder);
    }

    /** Neighbours drawn for the whole frontier. */
    int drawn() {
        return Math.toIntExact(drawn);
    }

    /** The array holding position {@code p}'s neighbours, at {@link #from}{@code (p)} up to {@link #to}{@code (p)}. */
    long[] list(int p) {
        return neighbors[groupOf[p]];
    }

    /** The group that answered position {@code p}. */
    int group(int p) {
        return groupOf[p];
    }

    int from(int p) {
        return fromOf[p];
    }

    int to(int p) {
        return toOf[p];
    }
}
