package io.fanout.sampling.link;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.graph.GraphFiles;
import io.fanout.graph.GraphFormatException;
import io.fanout.graph.NodeIdMap;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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
public final class SupervisionEdges implements Serializable {
    private static final long serialVersionUID = 1L;

    /**
     * GiGL's label edge types of a homogeneous graph ({@code message_passing_to_positive_label} of
     * {@code DEFAULT_HOMOGENEOUS_EDGE_TYPE}), which name a plain graph's labels in messages.
     */
    public static final EdgeType HOMOGENEOUS_POSITIVE = new EdgeType("default_homogeneous_node_type",
            "to_gigl_positive", "default_homogeneous_node_type");
    /** As {@link #HOMOGENEOUS_POSITIVE}, negative. */
    public static final EdgeType HOMOGENEOUS_NEGATIVE = new EdgeType("default_homogeneous_node_type",
            "to_gigl_negative", "default_homogeneous_node_type");

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

    /**
     * Reads a plain graph's label-edge file: {@code anchor<TAB>label} node ids per line ({@code #} lines skipped),
     * both nodes of the graph; a label edge given twice counts once.
     *
     * @throws GraphFormatException naming the line of a malformed row or of an id that is not a node of the graph
     */
    public static SupervisionEdges read(Path file, NodeIdMap ids, EdgeType type) throws IOException {
        IntArrayList anchors = new IntArrayList();
        IntArrayList nodes = new IntArrayList();
        long lineNo = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(GraphFiles.open(file),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lineNo++;
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                String[] f = line.strip().split("[\t ]+");
                if (f.length != 2) {
                    throw new GraphFormatException(file, lineNo, "expected anchor<TAB>label node ids, got "
                            + f.length + " columns: '" + line + "'");
                }
                anchors.add(index(file, lineNo, f[0], ids));
                nodes.add(index(file, lineNo, f[1], ids));
            }
        }
        if (anchors.isEmpty()) {
            throw new GraphFormatException(file, "no label edges (expected anchor<TAB>label lines)");
        }
        return of(type, anchors.toIntArray(), nodes.toIntArray(), ids.size());
    }

    private static int index(Path file, long lineNo, String text, NodeIdMap ids) throws GraphFormatException {
        return LinkSeeds.index(file, lineNo, text, ids, "a node of the graph (label edges join nodes of the graph;"
                + " they are never traversed)");
    }

    /** Label edges {@code anchors[i] -> labels[i]} (node indices) indexed by anchor, distinct and sorted. */
    static SupervisionEdges of(EdgeType type, int[] anchors, int[] labels, int numAnchorNodes) {
        int[] counts = new int[numAnchorNodes + 1];
        for (int a : anchors) {
            counts[a + 1]++;
        }
        for (int a = 0; a < numAnchorNodes; a++) {
            counts[a + 1] += counts[a];
        }
        int[] fill = Arrays.copyOf(counts, numAnchorNodes);
        int[] sorted = new int[labels.length];
        for (int i = 0; i < anchors.length; i++) {
            sorted[fill[anchors[i]]++] = labels[i];
        }
        int[] offsets = new int[numAnchorNodes + 1];
        int out = 0;
        for (int a = 0; a < numAnchorNodes; a++) {
            Arrays.sort(sorted, counts[a], counts[a + 1]);
            offsets[a] = out;
            for (int i = counts[a]; i < counts[a + 1]; i++) {
                if (i == counts[a] || sorted[i] != sorted[i - 1]) {
                    sorted[out++] = sorted[i];
                }
            }
        }
        offsets[numAnchorNodes] = out;
        return new SupervisionEdges(type, offsets, Arrays.copyOf(sorted, out));
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
