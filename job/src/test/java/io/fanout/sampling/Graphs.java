package io.fanout.sampling;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import java.util.SplittableRandom;

/** Small CSR graphs built in tests, independent of any file loader. */
public final class Graphs {
    private Graphs() {
    }

    /**
     * A CSR over {@code numNodes} nodes from directed edges {@code src[i] -> dst[i]}, adjacency in edge
     * order: OUT lists each source's destinations, IN each destination's sources.
     */
    public static CsrGraph fromEdges(int numNodes, int[] src, int[] dst, EdgeDirection direction) {
        int[] from = direction == EdgeDirection.OUT ? src : dst;
        int[] to = direction == EdgeDirection.OUT ? dst : src;
        int[] offsets = new int[numNodes + 1];
        for (int v : from) {
            offsets[v + 1]++;
        }
        for (int v = 0; v < numNodes; v++) {
            offsets[v + 1] += offsets[v];
        }
        int[] next = java.util.Arrays.copyOf(offsets, numNodes);
        int[] targets = new int[from.length];
        for (int i = 0; i < from.length; i++) {
            targets[next[from[i]]++] = to[i];
        }
        return new CsrGraph(offsets, targets, null, null, direction);
    }

    /** Node 0 with edges to 1..degree (and nothing else). */
    static CsrGraph star(int degree) {
        int[] src = new int[degree];
        int[] dst = new int[degree];
        for (int i = 0; i < degree; i++) {
            dst[i] = i + 1;
        }
        return fromEdges(degree + 1, src, dst, EdgeDirection.OUT);
    }

    /** Random directed edge list with skewed degrees, self-loops and parallel edges; {@code [src, dst]}. */
    static int[][] randomEdges(int numNodes, int numEdges, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] src = new int[numEdges];
        int[] dst = new int[numEdges];
        for (int i = 0; i < numEdges; i++) {
            // Squaring a uniform skews sources towards low ids: some hubs far above the fanout, many leaves.
            double x = random.nextDouble();
            src[i] = (int) (x * x * numNodes);
            dst[i] = random.nextInt(numNodes);
            if (i % 50 == 0) {
                dst[i] = src[i]; // self-loop
            } else if (i % 37 == 0 && i > 0) {
                src[i] = src[i - 1]; // parallel edge
                dst[i] = dst[i - 1];
            }
        }
        return new int[][] {src, dst};
    }
}
