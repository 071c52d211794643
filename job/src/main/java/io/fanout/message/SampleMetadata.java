package io.fanout.message;

import io.fanout.connectors.message.Tensor;
import io.fanout.graph.NodeIdMap;
import io.fanout.sampling.link.AnchorLabels;
import io.fanout.sampling.link.LinkBatch;
import io.fanout.sampling.link.NegativeSampling;
import java.util.Arrays;

/**
 * What a batch's message carries beyond its subgraph, each part null when absent: a link batch's labels, an ABLP
 * batch's label nodes, the seeds' or seed edges' times, a typed link batch's input edge type, and the graph version
 * the batch was sampled at.
 */
public final class SampleMetadata {
    /**
     * A link batch's labels as PyG's {@code LinkNeighborLoader} and GLT give them: {@code edgeLabelIndex} [2, N] with,
     * for binary negatives, {@code edgeLabel} (1 for the positives, then 0); for triplets {@code srcIndex},
     * {@code dstPosIndex} and {@code dstNegIndex} instead.
     */
    public record LinkLabels(Tensor edgeLabelIndex, Tensor edgeLabel, Tensor srcIndex, Tensor dstPosIndex,
            Tensor dstNegIndex) {

        /**
         * The labels of {@code p} positives and their negatives, each pair's ends as local indices ({@code localSrc},
         * {@code localDst}: the positives first, then the negatives, triplet ones row-major [P, perPositive]);
         * triplet {@code dstNegIndex} is [P], or [P, k] for k > 1 negatives per positive, as PyG squeezes it.
         */
        public static LinkLabels of(NegativeSampling mode, int p, int perPositive, int[] localSrc, int[] localDst) {
            if (mode == NegativeSampling.TRIPLET) {
                return new LinkLabels(null, null, Tensor.ofInt64(localSrc),
                        Tensor.ofInt64(Arrays.copyOfRange(localDst, 0, p)),
                        Tensor.ofInt64(Arrays.copyOfRange(localDst, p, localDst.length),
                                perPositive == 1 ? new long[] {p} : new long[] {p, perPositive}));
            }
            int[] both = LinkBatch.concat(localSrc, localDst);
            Tensor label = null;
            if (mode == NegativeSampling.BINARY) {
                float[] values = new float[localSrc.length];
                Arrays.fill(values, 0, p, 1f);
                label = Tensor.ofFloat32(values, new long[] {values.length});
            }
            return new LinkLabels(Tensor.ofInt64(both, new long[] {2, localSrc.length}), label, null, null, null);
        }
    }

    /** An ABLP batch's label nodes of label edge type {@code edgeType}: ids [anchors, width], padding -1. */
    public record LabelNodes(String edgeType, Tensor ids) {

        /** Label node ids already (padding -1), row-major [rows, width]: a store that keys nodes by id. */
        public static LabelNodes ofIds(String edgeType, long[] ids, int rows, int width) {
            return new LabelNodes(edgeType, Tensor.ofInt64(ids, new long[] {rows, width}));
        }

        /** Label node indices (GiGL's padding kept as -1) as their ids, [rows, width] int64. */
        public static LabelNodes of(String edgeType, NodeIdMap ids, int[] labels, int rows, int width) {
            long[] out = new long[labels.length];
            for (int i = 0; i < labels.length; i++) {
                out[i] = labels[i] == AnchorLabels.PADDING ? -1L : ids.id(labels[i]);
            }
            return new LabelNodes(edgeType, Tensor.ofInt64(out, new long[] {rows, width}));
        }
    }

    private LinkLabels linkLabels;
    private LabelNodes positiveLabels;
    private LabelNodes negativeLabels;
    private Tensor seedTime;
    private Tensor edgeLabelTime;
    private String inputType;
    private Long graphVersion;

    public SampleMetadata linkLabels(LinkLabels labels) {
        this.linkLabels = labels;
        return this;
    }

    /** GiGL's {@code #META.gigl_positive_labels.<edge type>}. */
    public SampleMetadata positiveLabels(LabelNodes labels) {
        this.positiveLabels = labels;
        return this;
    }

    /** GiGL's {@code #META.gigl_negative_labels.<edge type>}. */
    public SampleMetadata negativeLabels(LabelNodes labels) {
        this.negativeLabels = labels;
        return this;
    }

    /**
     * GiGL's label metadata of an ABLP batch whose label node ids a store that answers per node has (the partitioned
     * store's): {@code positive} (and {@code negative}, or null) row-major [anchors, width] padded with -1, under
     * their label edge types' keys.
     */
    public SampleMetadata anchorLabels(int anchors, String positiveType, long[] positive, int positiveWidth,
            String negativeType, long[] negative, int negativeWidth) {
        positiveLabels(LabelNodes.ofIds(positiveType, positive, anchors, positiveWidth));
        if (negative != null) {
            negativeLabels(LabelNodes.ofIds(negativeType, negative, anchors, negativeWidth));
        }
        return this;
    }

    /** The seeds' times ({@code #META.seed_time}, PyG's {@code seed_time}). */
    public SampleMetadata seedTime(long[] times) {
        return seedTime(times == null ? null : Tensor.ofInt64(times));
    }

    SampleMetadata seedTime(Tensor times) {
        this.seedTime = times;
        return this;
    }

    /** A link batch's positives' times ({@code #META.edge_label_time}, PyG's {@code edge_label_time}). */
    public SampleMetadata edgeLabelTime(long[] times) {
        return edgeLabelTime(times == null ? null : Tensor.ofInt64(times));
    }

    SampleMetadata edgeLabelTime(Tensor times) {
        this.edgeLabelTime = times;
        return this;
    }

    /** A typed link batch's seed edge type ({@code #META.input_type}). */
    public SampleMetadata inputType(String type) {
        this.inputType = type;
        return this;
    }

    /** The graph version the batch was sampled at ({@code #META.graph_version}, with graph updates). */
    public SampleMetadata graphVersion(long version) {
        this.graphVersion = version;
        return this;
    }

    public LinkLabels linkLabels() {
        return linkLabels;
    }

    public LabelNodes positiveLabels() {
        return positiveLabels;
    }

    public LabelNodes negativeLabels() {
        return negativeLabels;
    }

    public Tensor seedTime() {
        return seedTime;
    }

    public Tensor edgeLabelTime() {
        return edgeLabelTime;
    }

    public String inputType() {
        return inputType;
    }

    /** The graph version, or null when the message carries none. */
    public Long graphVersion() {
        return graphVersion;
    }
}
