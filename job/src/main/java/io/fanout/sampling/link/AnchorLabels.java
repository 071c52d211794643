package io.fanout.sampling.link;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * One ABLP batch's labels (GiGL's {@code ABLPNodeSamplerInput} for a batch): per anchor its positive (and
 * optionally negative) supervision nodes as a [B, P] row-major matrix of node indices padded with {@link #PADDING}
 * (GiGL's {@code get_labels_for_anchor_nodes} layout, P = the most labels of an anchor in the batch), and the
 * sampler's seeds: the anchors, then the label nodes, per node type (GiGL samples around the supervision nodes too).
 */
public final class AnchorLabels {
    /** Fills rows of anchors with fewer labels than P (GiGL's {@code PADDING_NODE}). */
    public static final int PADDING = -1;

    /** Positive labels, row-major [anchors, positiveWidth]. */
    public final int[] positive;
    public final int positiveWidth;
    /** Negative labels, row-major [anchors, negativeWidth], or null without a negative type. */
    public final int[] negative;
    public final int negativeWidth;
    /** Node type -> seeds of the k-hop sample: anchors first, then positive, then negative label nodes. */
    public final Map<String, int[]> seeds;

    private AnchorLabels(int[] positive, int positiveWidth, int[] negative, int negativeWidth,
            Map<String, int[]> seeds) {
        this.positive = positive;
        this.positiveWidth = positiveWidth;
        this.negative = negative;
        this.negativeWidth = negativeWidth;
        this.seeds = seeds;
    }

    /**
     * @param anchors the batch's anchor node indices (of the supervision types' source type)
     * @param positives the positive label edges
     * @param negatives the negative label edges (same node types), or null
     */
    public static AnchorLabels of(int[] anchors, SupervisionEdges positives, SupervisionEdges negatives) {
        int posWidth = width(anchors, positives);
        int[] pos = matrix(anchors, positives, posWidth);
        int negWidth = negatives == null ? 0 : width(anchors, negatives);
        int[] neg = negatives == null ? null : matrix(anchors, negatives, negWidth);
        String anchorType = positives.type().src();
        String labelType = positives.type().dst();
        int[] labelSeeds = concat(unpadded(pos), neg == null ? new int[0] : unpadded(neg));
        Map<String, int[]> seeds = new TreeMap<>();
        if (anchorType.equals(labelType)) {
            seeds.put(anchorType, concat(anchors, labelSeeds));
        } else {
            seeds.put(anchorType, anchors.clone());
            seeds.put(labelType, labelSeeds);
        }
        return new AnchorLabels(pos, posWidth, neg, negWidth, seeds);
    }

    private static int width(int[] anchors, SupervisionEdges edges) {
        int width = 0;
        for (int a : anchors) {
            width = Math.max(width, edges.numLabels(a));
        }
        return width;
    }

    private static int[] matrix(int[] anchors, SupervisionEdges edges, int width) {
        int[] out = new int[anchors.length * width];
        Arrays.fill(out, PADDING);
        for (int i = 0; i < anchors.length; i++) {
            int[] labels = edges.labels(anchors[i]);
            System.arraycopy(labels, 0, out, i * width, labels.length);
        }
        return out;
    }

    private static int[] unpadded(int[] matrix) {
        return Arrays.stream(matrix).filter(v -> v != PADDING).toArray();
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
