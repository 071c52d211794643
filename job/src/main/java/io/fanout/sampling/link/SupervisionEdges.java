package io.fanout.sampling.link;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import java.util.Arrays;
import java.util.Objects;

/**
 * The label edges of one supervision edge type of ABLP (GiGL's positive or negative label edge type, given anchor
 * first: {@code (anchor type, rel, supervision type)}), indexed by anchor: each anchor's supervision nodes, distinct
 * and in index order, whatever {@code --edge-dir} the graph was loaded in. These edges are labels only: they are
 * never handed to a sampler, so message passing never walks them.
 *
 * <p>Memory: 4 bytes per anchor-type node plus 4 per distinct label edge.
 */
public final class SupervisionEdges {
    private final EdgeType type;
    private final int[] offsets;
    private final int[] labels;

    private SupervisionEdges(EdgeType type, int[] offsets, int[] labels) {
        this.type = type;
        this.offsets = offsets;
        this.labels = labels;
    }

    /**
     * Indexes the adjacency of a supervision edge type (either direction) by anchor (its source type).
     *
     * @param numAnchorNodes nodes of the type's source (anchor) type
     */
    public static SupervisionEdges of(TypedAdjacency adjacency, int numAnchorNodes) {
        Objects.requireNonNull(adjacency, "adjacency");
        CsrGraph csr = adjacency.csr();
        int base = adjacency.valueBase();
        boolean keyIsAnchor = csr.direction() == EdgeDirection.OUT;
        int[] counts = new int[numAnchorNodes + 1];
        int keys = adjacency.numKeyNodes();
        for (int k = 0; k < keys; k++) {
            for (int e = csr.start(k); e < csr.end(k); e++) {
                int anchor = keyIsAnchor ? k : csr.targets()[e] - base;
                counts[anchor + 1]++;
            }
        }
        for (int a = 0; a < numAnchorNodes; a++) {
            counts[a + 1] += counts[a];
        }
        int[] fill = Arrays.copyOf(counts, numAnchorNodes);
        int[] labels = new int[counts[numAnchorNodes]];
        for (int k = 0; k < keys; k++) {
            for (int e = csr.start(k); e < csr.end(k); e++) {
                int other = csr.targets()[e] - base;
                int anchor = keyIsAnchor ? k : other;
                labels[fill[anchor]++] = keyIsAnchor ? other : k;
            }
        }
        // Sort and de-duplicate each anchor's labels, compacting in place.
        int[] offsets = new int[numAnchorNodes + 1];
        int out = 0;
        for (int a = 0; a < numAnchorNodes; a++) {
            int from = counts[a];
            int to = counts[a + 1];
            Arrays.sort(labels, from, to);
            offsets[a] = out;
            for (int i = from; i < to; i++) {
                if (i == from || labels[i] != labels[i - 1]) {
                    labels[out++] = labels[i];
                }
            }
        }
        offsets[numAnchorNodes] = out;
        return new SupervisionEdges(adjacency.type(), offsets, Arrays.copyOf(labels, out));
    }

    /** The supervision edge type, anchor first. */
    public EdgeType type() {
        return type;
    }

    public int numAnchorNodes() {
        return offsets.length - 1;
    }

    /** Number of distinct label edges. */
    public int numEdges() {
        return labels.length;
    }

    /** The distinct supervision nodes of {@code anchor}, in index order (a fresh array). */
    public int[] labels(int anchor) {
        return Arrays.copyOfRange(labels, offsets[anchor], offsets[anchor + 1]);
    }

    public int numLabels(int anchor) {
        return offsets[anchor + 1] - offsets[anchor];
    }

    /** True when {@code anchor -> node} is a label edge of this type. */
    public boolean has(int anchor, int node) {
        return Arrays.binarySearch(labels, offsets[anchor], offsets[anchor + 1], node) >= 0;
    }

    /** Every node with at least one label edge, in index order: ABLP's default anchors. */
    public int[] anchors() {
        int n = 0;
        for (int a = 0; a < numAnchorNodes(); a++) {
            if (numLabels(a) > 0) {
                n++;
            }
        }
        int[] out = new int[n];
        n = 0;
        for (int a = 0; a < numAnchorNodes(); a++) {
            if (numLabels(a) > 0) {
                out[n++] = a;
            }
        }
        return out;
    }

    /** The first label edge of this type that is also one of {@code other}'s, as {anchor, node}, or null. */
    public int[] firstSharedEdge(SupervisionEdges other) {
        for (int a = 0; a < Math.min(numAnchorNodes(), other.numAnchorNodes()); a++) {
            for (int i = offsets[a]; i < offsets[a + 1]; i++) {
                if (other.has(a, labels[i])) {
                    return new int[] {a, labels[i]};
                }
            }
        }
        return null;
    }
}
