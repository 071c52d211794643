package io.fanout.message;

import io.fanout.connectors.message.MessageKeys;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.Tensor;
import io.fanout.connectors.message.TensorMessage;
import java.util.TreeSet;

/**
 * Reads a message back into its {@link Sample}, {@link BatchHeader} and trainer share: the inverse of
 * {@link MessageEncoder}, for checks and Java readers of Fanout's messages. Keys it does not know are refused, so
 * a round trip proves the encoder writes nothing the sample does not hold.
 */
public final class MessageDecoder {
    private static final String META = MessageKeys.META_PREFIX;

    /** A decoded message: its sample, its batch keys and its trainer share ({@code trainers} 1 when untagged). */
    public record Decoded(Sample sample, BatchHeader header, int trainers, boolean padded) {}

    private MessageDecoder() {}

    /** Decodes safetensors bytes. */
    public static Decoded decode(byte[] bytes) {
        return decode(SafetensorsCodec.decode(bytes));
    }

    /** Decodes a message; {@code IllegalArgumentException} for a sampling error or a key no sample holds. */
    public static Decoded decode(TensorMessage message) {
        if (message.contains(MessageKeys.SAMPLING_ERROR)) {
            throw new IllegalArgumentException("a #SAMPLING_ERROR message holds no sample");
        }
        TreeSet<String> left = new TreeSet<>(message.names());
        Reader in = new Reader(message, left);
        boolean hetero = in.take(MessageKeys.IS_HETERO).asLongArray()[0] == 1L;
        Sample sample;
        String batchKey;
        if (hetero) {
            TypedSample typed = typed(in, left);
            sample = typed;
            batchKey = typed.seedType() == null ? null : typed.seedType() + "." + MessageKeys.BATCH;
        } else {
            sample = homogeneous(in);
            batchKey = MessageKeys.BATCH;
        }
        metadata(in, left, sample.metadata());
        Tensor seeds = batchKey == null ? null : in.take(batchKey);
        Tensor inputIds = in.take(MessageKeys.META_INPUT_ID);
        BatchHeader header = new BatchHeader(seeds, inputIds == null ? null : inputIds.asIntArray(),
                (int) in.scalar(MessageKeys.META_EPOCH), (int) in.scalar(MessageKeys.META_BATCH_ID),
                (int) in.scalar(MessageKeys.META_NUM_BATCHES));
        Tensor trainers = in.take(MessageKeys.META_TRAINERS);
        Tensor padded = in.take(MessageKeys.META_PADDED);
        if (!left.isEmpty()) {
            throw new IllegalArgumentException("keys no sample holds: " + left);
        }
        return new Decoded(sample, header, trainers == null ? 1 : (int) trainers.asLongArray()[0],
                padded != null && padded.asLongArray()[0] == 1L);
    }

    private static HomogeneousSample homogeneous(Reader in) {
        HomogeneousSample sample = new HomogeneousSample(in.take(MessageKeys.IDS), in.take(MessageKeys.ROWS),
                in.take(MessageKeys.COLS))
                .numSampledNodes(in.take(MessageKeys.NUM_SAMPLED_NODES))
                .numSampledEdges(in.take(MessageKeys.NUM_SAMPLED_EDGES))
                .nodeData(nodeData(in, ""))
                .nodeBatch(in.take(MessageKeys.META_BATCH))
                .edgeData(edgeData(in, ""));
        return sample.pprEdges(in.take(MessageKeys.META_EDGE_INDEX), in.take(MessageKeys.META_EDGE_ATTR));
    }

    private static TypedSample typed(Reader in, TreeSet<String> left) {
        String seedType = null;
        TreeSet<String> nodeTypes = new TreeSet<>();
        TreeSet<String> edgeTypes = new TreeSet<>();
        TreeSet<String> pprTypes = new TreeSet<>();
        for (String key : left) {
            if (key.startsWith(MessageEncoder.PPR_EDGE_INDEX)) {
                pprTypes.add(key.substring(MessageEncoder.PPR_EDGE_INDEX.length()));
            } else if (!key.startsWith("#")) {
                int dot = key.lastIndexOf('.');
                String suffix = dot < 0 ? "" : key.substring(dot + 1);
                if (suffix.equals(MessageKeys.IDS)) {
                    nodeTypes.add(key.substring(0, dot));
                } else if (suffix.equals(MessageKeys.ROWS)) {
                    edgeTypes.add(key.substring(0, dot));
                } else if (suffix.equals(MessageKeys.BATCH)) {
                    seedType = key.substring(0, dot);
                }
            }
        }
        TypedSample sample = new TypedSample(seedType);
        for (String type : nodeTypes) {
            String prefix = type + ".";
            sample.nodes(type, new TypedSample.Nodes(in.take(prefix + MessageKeys.IDS),
                    in.take(prefix + MessageKeys.NUM_SAMPLED_NODES), nodeData(in, prefix),
                    in.take(META + prefix + MessageKeys.BATCH)));
        }
        for (String type : edgeTypes) {
            String prefix = type + ".";
            sample.edges(type, new TypedSample.Edges(in.take(prefix + MessageKeys.ROWS),
                    in.take(prefix + MessageKeys.COLS), in.take(prefix + MessageKeys.NUM_SAMPLED_EDGES),
                    edgeData(in, prefix)));
        }
        for (String type : pprTypes) {
            sample.pprEdges(type, new TypedSample.PprEdges(in.take(MessageEncoder.PPR_EDGE_INDEX + type),
                    in.take(MessageEncoder.PPR_WEIGHT + type)));
        }
        return sample;
    }

    private static NodeData nodeData(Reader in, String prefix) {
        Tensor nfeats = in.take(prefix + MessageKeys.NFEATS);
        Tensor scale = in.take(META + prefix + MessageEncoder.NFEATS_SCALE);
        Tensor offset = in.take(META + prefix + MessageEncoder.NFEATS_OFFSET);
        Tensor labels = in.take(prefix + MessageKeys.NLABELS);
        return nfeats == null && labels == null ? null : new NodeData(nfeats, scale, offset, labels);
    }

    private static EdgeData edgeData(Reader in, String prefix) {
        Tensor eids = in.take(prefix + MessageKeys.EIDS);
        Tensor efeats = in.take(prefix + MessageKeys.EFEATS);
        Tensor edgeTime = in.take(META + prefix + MessageEncoder.EDGE_TIME);
        return eids == null && edgeTime == null ? null : new EdgeData(eids, efeats, edgeTime);
    }

    private static void metadata(Reader in, TreeSet<String> left, SampleMetadata metadata) {
        Tensor edgeLabelIndex = in.take(MessageKeys.META_EDGE_LABEL_INDEX);
        Tensor srcIndex = in.take(MessageKeys.META_SRC_INDEX);
        if (edgeLabelIndex != null || srcIndex != null) {
            metadata.linkLabels(new SampleMetadata.LinkLabels(edgeLabelIndex, in.take(MessageKeys.META_EDGE_LABEL),
                    srcIndex, in.take(MessageKeys.META_DST_POS_INDEX), in.take(MessageKeys.META_DST_NEG_INDEX)));
        }
        for (String key : new TreeSet<>(left)) {
            if (key.startsWith(MessageKeys.META_GIGL_POSITIVE_LABELS)) {
                metadata.positiveLabels(new SampleMetadata.LabelNodes(
                        key.substring(MessageKeys.META_GIGL_POSITIVE_LABELS.length()), in.take(key)));
            } else if (key.startsWith(MessageKeys.META_GIGL_NEGATIVE_LABELS)) {
                metadata.negativeLabels(new SampleMetadata.LabelNodes(
                        key.substring(MessageKeys.META_GIGL_NEGATIVE_LABELS.length()), in.take(key)));
            }
        }
        metadata.seedTime(in.take(MessageKeys.META_SEED_TIME));
        metadata.edgeLabelTime(in.take(MessageEncoder.META_EDGE_LABEL_TIME));
        Tensor inputType = in.take(MessageKeys.META_INPUT_TYPE);
        if (inputType != null) {
            metadata.inputType(in.message.getString(MessageKeys.META_INPUT_TYPE));
        }
        Tensor version = in.take(MessageKeys.META_GRAPH_VERSION);
        if (version != null) {
            metadata.graphVersion(version.asLongArray()[0]);
        }
    }

    /** Takes tensors out of a message, striking each from the keys still to read. */
    private record Reader(TensorMessage message, TreeSet<String> left) {
        Tensor take(String key) {
            left.remove(key);
            return message.get(key);
        }

        long scalar(String key) {
            Tensor t = take(key);
            if (t == null) {
                throw new IllegalArgumentException("message has no " + key);
            }
            return t.asLongArray()[0];
        }
    }
}
