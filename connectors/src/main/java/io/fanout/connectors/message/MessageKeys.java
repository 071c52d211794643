package io.fanout.connectors.message;

/**
 * Tensor names of a {@link TensorMessage}, the GLT/GiGL names trainers already read (see
 * docs/message-format.md and shared/design/sampling-reference.md).
 */
public final class MessageKeys {
    private MessageKeys() {}

    /** int64 [n]: global ids of the sampled nodes, seeds first. */
    public static final String IDS = "ids";
    /** int64 [m]: edge source as a local index into {@link #IDS}, in sampling direction. */
    public static final String ROWS = "rows";
    /** int64 [m]: edge target as a local index into {@link #IDS}. */
    public static final String COLS = "cols";
    /** int64 [m]: global edge ids. */
    public static final String EIDS = "eids";
    /** int64 [b]: the seed ids of the batch. */
    public static final String BATCH = "batch";
    /** int64 [hops+1]: nodes added per hop, hop 0 = the seeds. */
    public static final String NUM_SAMPLED_NODES = "num_sampled_nodes";
    /** int64 [hops]: edges sampled per hop (GLT/PyG: one entry per hop, hop 1 first). */
    public static final String NUM_SAMPLED_EDGES = "num_sampled_edges";
    /** Node features [n, dim] (F32, F16 or U8), one row per entry of {@link #IDS}. */
    public static final String NFEATS = "nfeats";
    /** int64 [n]: node labels aligned with {@link #IDS}; -1 = unlabelled. */
    public static final String NLABELS = "nlabels";
    /** float32 [dim]: per-column scale of U8 {@link #NFEATS} (value = offset + scale * q). */
    public static final String META_NFEATS_SCALE = "#META.nfeats_scale";
    /** float32 [dim]: per-column offset of U8 {@link #NFEATS}. */
    public static final String META_NFEATS_OFFSET = "#META.nfeats_offset";
    /** int64 [b]: position of each seed of {@link #BATCH} in the job's seed list (PyG input_id). */
    public static final String META_INPUT_ID = "#META.input_id";
    /** U8 (UTF-8): the edge type of a typed message's link seeds, src__rel__dst (GLT's input_type). */
    public static final String META_INPUT_TYPE = "#META.input_type";
    /** int64 [2, N]: link seeds (positives, then binary negatives) as local indices, row 0 into the source type's ids, row 1 the destination's (GLT). */
    public static final String META_EDGE_LABEL_INDEX = "#META.edge_label_index";
    /**
     * Prefix of ABLP's positive labels, followed by the label edge type (anchor__rel__supervision): int64 [B, P], row
     * i = the ids of the i-th anchor's positive supervision nodes, padded with -1 (GiGL's
     * {@code #META.gigl_positive_labels.} metadata).
     */
    public static final String META_GIGL_POSITIVE_LABELS = "#META.gigl_positive_labels.";
    /** As {@link #META_GIGL_POSITIVE_LABELS}, for the negative label edge type. */
    public static final String META_GIGL_NEGATIVE_LABELS = "#META.gigl_negative_labels.";
    /** float32 [N]: 1 for a positive link seed, 0 for a binary negative (GLT). */
    public static final String META_EDGE_LABEL = "#META.edge_label";
    /** int64 [P]: triplet link seeds' sources, local indices (GLT). */
    public static final String META_SRC_INDEX = "#META.src_index";
    /** int64 [P]: triplet link seeds' positive destinations, local indices (GLT). */
    public static final String META_DST_POS_INDEX = "#META.dst_pos_index";
    /** int64 [P] or [P, k]: triplet negative destinations per positive, local indices (GLT). */
    public static final String META_DST_NEG_INDEX = "#META.dst_neg_index";
    /**
     * Disjoint sampling: per node (aligned with {@link #IDS}), the index of the seed whose tree holds it; PyG's
     * disjoint {@code batch} vector ({@link #BATCH} stays the seed ids, as GLT has it).
     */
    public static final String META_BATCH = "#META.batch";
    /** Temporal sampling: each seed's time (aligned with {@link #BATCH}), PyG's {@code seed_time}. */
    public static final String META_SEED_TIME = "#META.seed_time";
    /** Temporal sampling with edge ids: each sampled edge's time (aligned with {@link #ROWS}), PyG's edge time. */
    public static final String META_EDGE_TIME = "#META.edge_time";
    /** Edge features, one row per edge. */
    public static final String EFEATS = "efeats";
    /** int64 [1]: 0 for a homogeneous message, 1 for a heterogeneous one. */
    public static final String IS_HETERO = "#IS_HETERO";
    /** uint8 UTF-8 text: the sampling error, shipped to the trainer instead of a hang (GiGL). */
    public static final String SAMPLING_ERROR = "#SAMPLING_ERROR";
    /** Prefix of metadata tensors. */
    public static final String META_PREFIX = "#META.";
    /** int64 [1]: epoch of the batch, from 0. */
    public static final String META_EPOCH = "#META.epoch";
    /** int64 [1]: batch index within the epoch, from 0. */
    public static final String META_BATCH_ID = "#META.batch_id";
    /** int64 [1]: number of batches in the epoch, padding batches included (a multiple of {@link #META_TRAINERS}). */
    public static final String META_NUM_BATCHES = "#META.num_batches";
    /**
     * int64 [1]: the data-parallel trainers sharing the epoch's batches (--trainers); batch {@link #META_BATCH_ID}
     * is rank {@code batch_id mod trainers}'s. Present, with {@link #META_PADDED}, on every message of a job with
     * more than one trainer; absent with one (its messages are unchanged).
     */
    public static final String META_TRAINERS = "#META.trainers";
    /**
     * int64 [1]: 1 on a padding batch, 0 on a real one. Padding batches (torch DistributedSampler's padding) give
     * every rank the same number of batches per epoch: they repeat seeds from the start of the epoch's order, so a
     * trainer that counts each seed once per epoch (metrics, evaluation) skips them. Present exactly when
     * {@link #META_TRAINERS} is.
     */
    public static final String META_PADDED = "#META.padded";
    /**
     * int64 [1]: the graph version the batch was sampled at (--store partitioned with graph updates only): it sees
     * every update up to this version and none after; 0 = the loaded graph.
     */
    public static final String META_GRAPH_VERSION = "#META.graph_version";
    /** int64 [2, N]: PPR virtual edges seed -> neighbour as local indices into {@link #IDS} (GiGL). */
    public static final String META_EDGE_INDEX = "#META.edge_index";
    /** float64 [N, 2]: per PPR edge [ppr_score, hop_proximity = 1/(1+hop)] (GiGL). */
    public static final String META_EDGE_ATTR = "#META.edge_attr";
}
