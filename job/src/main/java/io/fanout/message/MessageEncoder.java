package io.fanout.message;

import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.MessageBuffer;
import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.SamplingErrors;
import io.fanout.connectors.message.Tensor;
import io.fanout.connectors.message.TensorMessage;
import java.util.Map;

/**
 * The one encoder of samples into messages: GLT's keys for the subgraph ({@code ids}, {@code rows}, ...; per type
 * {@code {ntype}.ids}, {@code {etype}.rows}, ... in a typed message), GiGL's and PyG's metadata keys, the batch keys
 * and the trainer share. Every sampler of both stores ends here, so equal samples are equal bytes. The codec orders
 * tensors by name, so the order below is for reading only.
 */
public final class MessageEncoder {
    /** GiGL's typed PPR key prefixes (dist_ppr_sampler.py PPR_EDGE_INDEX_METADATA_KEY / PPR_WEIGHT_METADATA_KEY). */
    public static final String PPR_EDGE_INDEX = MessageKeys.META_PREFIX + "ppr_edge_index.";
    public static final String PPR_WEIGHT = MessageKeys.META_PREFIX + "ppr_weight.";
    /** PyG's {@code edge_label_time} of a link batch. */
    public static final String META_EDGE_LABEL_TIME = MessageKeys.META_PREFIX + "edge_label_time";
    /** Suffixes of a typed message's per-type metadata keys ({@code #META.{type}.<suffix>}). */
    static final String NFEATS_SCALE = MessageKeys.META_NFEATS_SCALE.substring(MessageKeys.META_PREFIX.length());
    static final String NFEATS_OFFSET = MessageKeys.META_NFEATS_OFFSET.substring(MessageKeys.META_PREFIX.length());
    static final String EDGE_TIME = MessageKeys.META_EDGE_TIME.substring(MessageKeys.META_PREFIX.length());

    private MessageEncoder() {}

    /** The message of {@code sample} in batch {@code header}, tagged with its trainer share (null: one trainer). */
    public static TensorMessage message(Sample sample, BatchHeader header, TrainerShares shares) {
        TensorMessage message = new TensorMessage();
        String batchKey;
        if (sample instanceof HomogeneousSample plain) {
            putSubgraph(message, plain);
            batchKey = MessageKeys.BATCH;
        } else {
            TypedSample typed = (TypedSample) sample;
            putSubgraph(message, typed);
            batchKey = typed.seedType() + "." + MessageKeys.BATCH;
        }
        putMetadata(message, sample.metadata());
        putHeader(message, header, batchKey, sample.hetero());
        return putTrainers(message, shares, header.batchId());
    }

    /** The safetensors bytes of {@link #message}. */
    public static byte[] encode(Sample sample, BatchHeader header, TrainerShares shares) {
        return SafetensorsCodec.encode(message(sample, header, shares));
    }

    /** The same bytes, encoded into {@code buffer} from its start (valid until its next use); returns their length. */
    public static int encode(Sample sample, BatchHeader header, TrainerShares shares, MessageBuffer buffer) {
        return SafetensorsCodec.encode(message(sample, header, shares), buffer);
    }

    /** The {@code #SAMPLING_ERROR} message of a batch whose sampling threw, with its trainer share. */
    public static byte[] samplingError(int epoch, int batchId, int numBatches, String trace, TrainerShares shares) {
        return SafetensorsCodec.encode(putTrainers(SamplingErrors.message(epoch, batchId, numBatches, trace), shares,
                batchId));
    }

    private static void putSubgraph(TensorMessage message, HomogeneousSample sample) {
        message.put(MessageKeys.IDS, sample.ids())
                .put(MessageKeys.ROWS, sample.rows())
                .put(MessageKeys.COLS, sample.cols());
        putIfPresent(message, MessageKeys.NUM_SAMPLED_NODES, sample.numSampledNodes());
        putIfPresent(message, MessageKeys.NUM_SAMPLED_EDGES, sample.numSampledEdges());
        putNodeData(message, "", sample.nodeData());
        putIfPresent(message, MessageKeys.META_BATCH, sample.nodeBatch());
        putEdgeData(message, "", sample.edgeData());
        putIfPresent(message, MessageKeys.META_EDGE_INDEX, sample.pprEdgeIndex());
        putIfPresent(message, MessageKeys.META_EDGE_ATTR, sample.pprEdgeAttr());
    }

    private static void putSubgraph(TensorMessage message, TypedSample sample) {
        for (Map.Entry<String, TypedSample.Nodes> e : sample.nodes().entrySet()) {
            String prefix = e.getKey() + ".";
            TypedSample.Nodes nodes = e.getValue();
            message.put(prefix + MessageKeys.IDS, nodes.ids())
                    .put(prefix + MessageKeys.NUM_SAMPLED_NODES, nodes.numSampledNodes());
            putNodeData(message, prefix, nodes.data());
            putIfPresent(message, MessageKeys.META_PREFIX + prefix + MessageKeys.BATCH, nodes.trees());
        }
        for (Map.Entry<String, TypedSample.Edges> e : sample.edges().entrySet()) {
            String prefix = e.getKey() + ".";
            TypedSample.Edges edges = e.getValue();
            message.put(prefix + MessageKeys.ROWS, edges.rows())
                    .put(prefix + MessageKeys.COLS, edges.cols());
            putIfPresent(message, prefix + MessageKeys.NUM_SAMPLED_EDGES, edges.numSampledEdges());
            putEdgeData(message, prefix, edges.data());
        }
        for (Map.Entry<String, TypedSample.PprEdges> e : sample.pprEdges().entrySet()) {
            message.put(PPR_EDGE_INDEX + e.getKey(), e.getValue().edgeIndex())
                    .put(PPR_WEIGHT + e.getKey(), e.getValue().weights());
        }
    }

    /** {@code nfeats} and {@code nlabels} under {@code prefix} (empty or a type and a dot), uint8's scale under #META. */
    private static void putNodeData(TensorMessage message, String prefix, NodeData data) {
        if (data == null) {
            return;
        }
        putIfPresent(message, prefix + MessageKeys.NFEATS, data.nfeats());
        putIfPresent(message, MessageKeys.META_PREFIX + prefix + NFEATS_SCALE, data.scale());
        putIfPresent(message, MessageKeys.META_PREFIX + prefix + NFEATS_OFFSET, data.offset());
        putIfPresent(message, prefix + MessageKeys.NLABELS, data.labels());
    }

    private static void putEdgeData(TensorMessage message, String prefix, EdgeData data) {
        if (data == null) {
            return;
        }
        putIfPresent(message, prefix + MessageKeys.EIDS, data.eids());
        putIfPresent(message, prefix + MessageKeys.EFEATS, data.efeats());
        putIfPresent(message, MessageKeys.META_PREFIX + prefix + EDGE_TIME, data.edgeTime());
    }

    private static void putMetadata(TensorMessage message, SampleMetadata metadata) {
        SampleMetadata.LinkLabels link = metadata.linkLabels();
        if (link != null) {
            putIfPresent(message, MessageKeys.META_EDGE_LABEL_INDEX, link.edgeLabelIndex());
            putIfPresent(message, MessageKeys.META_EDGE_LABEL, link.edgeLabel());
            putIfPresent(message, MessageKeys.META_SRC_INDEX, link.srcIndex());
            putIfPresent(message, MessageKeys.META_DST_POS_INDEX, link.dstPosIndex());
            putIfPresent(message, MessageKeys.META_DST_NEG_INDEX, link.dstNegIndex());
        }
        if (metadata.positiveLabels() != null) {
            message.put(MessageKeys.META_GIGL_POSITIVE_LABELS + metadata.positiveLabels().edgeType(),
                    metadata.positiveLabels().ids());
        }
        if (metadata.negativeLabels() != null) {
            message.put(MessageKeys.META_GIGL_NEGATIVE_LABELS + metadata.negativeLabels().edgeType(),
                    metadata.negativeLabels().ids());
        }
        putIfPresent(message, MessageKeys.META_SEED_TIME, metadata.seedTime());
        putIfPresent(message, META_EDGE_LABEL_TIME, metadata.edgeLabelTime());
        if (metadata.inputType() != null) {
            message.putString(MessageKeys.META_INPUT_TYPE, metadata.inputType());
        }
        if (metadata.graphVersion() != null) {
            message.putInt64(MessageKeys.META_GRAPH_VERSION, new long[] {metadata.graphVersion()});
        }
    }

    /**
     * The keys every Fanout message carries: the seed ids under {@code batchKey} (when the batch has seed nodes),
     * their input positions, {@code #IS_HETERO} and the batch's epoch, id and count.
     */
    private static void putHeader(TensorMessage message, BatchHeader header, String batchKey, boolean hetero) {
        putIfPresent(message, batchKey, header.seedIds());
        if (header.inputIds() != null) {
            message.putInt64(MessageKeys.META_INPUT_ID, header.inputIds());
        }
        message.putInt64(MessageKeys.IS_HETERO, new long[] {hetero ? 1L : 0L})
                .putInt64(MessageKeys.META_EPOCH, new long[] {header.epoch()})
                .putInt64(MessageKeys.META_BATCH_ID, new long[] {header.batchId()})
                .putInt64(MessageKeys.META_NUM_BATCHES, new long[] {header.numBatches()});
    }

    /**
     * {@code #META.trainers} = [N] and {@code #META.padded} = [0 or 1] when the job has several trainers, so a client
     * can check its N and skip padding in per-epoch counts; nothing with one trainer.
     */
    private static TensorMessage putTrainers(TensorMessage message, TrainerShares shares, int batchId) {
        if (shares != null && shares.tagsMessages()) {
            message.putInt64(MessageKeys.META_TRAINERS, new long[] {shares.trainers()})
                    .putInt64(MessageKeys.META_PADDED, new long[] {shares.isPadded(batchId) ? 1L : 0L});
        }
        return message;
    }

    private static void putIfPresent(TensorMessage message, String key, Tensor tensor) {
        if (tensor != null) {
            message.put(key, tensor);
        }
    }
}
