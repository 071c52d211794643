package io.fanout.flink.partitioned;

import io.fanout.batch.SeedTimes;
import io.fanout.batch.TrainerShares;
import io.fanout.flink.updates.UpdateLine;
import io.fanout.sampling.SubgraphType;
import io.fanout.sampling.ppr.PprChannels;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * What a partitioned stage ({@link PartitionedKHop}, {@link PartitionedTypedKHop}, {@link PartitionedPpr},
 * {@link PartitionedTypedPpr}) is built from: the job's sampling options, immutable, set by name through
 * {@link #builder()} and checked there, each failure naming its option as {@code FanoutOptions} does. A stage reads
 * the options it needs and {@link #require}s those without a default.
 */
public final class StageOptions {
    /** The values as set, a copy the builder no longer changes. */
    private final Builder values;

    private StageOptions(Builder values) {
        this.values = values;
    }

    /** Options with every default: the stage's required ones still to be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** {@code value}, or a failure naming {@code option} when a stage needs it and it was not set. */
    static <T> T require(T value, String option, String stage) {
        if (value == null) {
            throw new IllegalArgumentException(option + " is required by the partitioned " + stage);
        }
        return value;
    }

    /** {@code fanout.seed}: the job seed, the root of every random stream. */
    public long seed() {
        return values.seed;
    }

    /** The seed list's node ids by index, or null when ids equal indices. */
    public long[] seedIds() {
        return values.seedIds;
    }

    /** {@code fanout.seed-type}: the seeds' node type of a typed graph (null on a plain one). */
    public String seedType() {
        return values.seedType;
    }

    /**
     * Appended to the uids of the batch path (batch start, hop stages, node-data gather, messages): a job started from
     * a savepoint of a loaded graph restores the graph operators (fixed uids) but not another run's batches in flight,
     * when its tag differs. Empty by default.
     */
    public String runTag() {
        return values.runTag;
    }

    /** The batches' trainer shares, which messages carry with several trainers (null: one trainer). */
    public TrainerShares shares() {
        return values.shares;
    }

    /** {@code fanout.partitioned.bucket-size}: neighbours per stored bucket of a node's list. */
    public int bucketSize() {
        return values.bucketSize;
    }

    /**
     * {@code fanout.partitioned.cache-mb} in bytes: heap per lookup subtask for recently read node heads (fixed graph
     * only; 0 = off, -1 = an eighth of the TaskManager heap shared by its lookup subtasks).
     */
    public long cacheBytes() {
        return values.cacheBytes;
    }

    /** {@code fanout.partitioned.compact-after-load}: compact each loaded adjacency before its first answer. */
    public boolean compactAfterLoad() {
        return values.compactAfterLoad;
    }

    /**
     * The lines of {@code fanout.graph-updates} (or its socket), or null for a fixed graph: then each batch is sampled
     * at the version committed when it starts ({@code #META.graph_version}).
     */
    public DataStream<UpdateLine> graphUpdates() {
        return values.graphUpdates;
    }

    /** {@code fanout.fanout} of a plain graph: neighbours per hop (-1 = all); null until set. */
    public int[] fanouts() {
        return values.fanouts == null ? null : values.fanouts.clone();
    }

    /** {@code fanout.fanout} of a typed graph: edge type name -> per-hop fanouts (one length); null until set. */
    public Map<String, int[]> typedFanouts() {
        return values.typedFanouts;
    }

    /** {@code fanout.replace}: draw neighbours with replacement. */
    public boolean replace() {
        return values.replace;
    }

    /**
     * {@code fanout.subgraph-type}: directional (the sampled edges), bidirectional (and their reverses) or induced
     * (every edge among the sampled nodes: plain graphs over a fixed graph, not disjoint).
     */
    public SubgraphType subgraphType() {
        return values.subgraphType;
    }

    /** {@code fanout.disjoint}: one k-hop tree per seed (plain graphs over a fixed graph). */
    public boolean disjoint() {
        return values.disjoint;
    }

    /**
     * Temporal sampling (the graph spec's time column): the seeds' times ({@code fanout.seed-time} for every seed, or
     * by input position from a seed file the client read), or null when each batch carries its own (a seed file the
     * TaskManagers read: {@link io.fanout.batch.SeedBatch#seedTimes}).
     */
    public SeedTimes seedTimes() {
        return values.seedTimes;
    }

    /**
     * {@code fanout.link-seeds} on a plain graph: the seed edges' ends as node ids, {@code [sources, destinations]} by
     * position (a batch's seeds are positions), or null.
     */
    public long[][] linkEnds() {
        return values.linkEnds;
    }

    /** {@code fanout.link-type}: a typed graph's link seeds' edge type ({@link #linkEnds()} are its ends), or null. */
    public io.fanout.graph.typed.EdgeType linkType() {
        return values.linkType;
    }

    /** {@code fanout.neg-sampling} with plain link seeds: how the negatives are drawn, or null for none. */
    public LinkNegatives linkNegatives() {
        return values.linkNegatives;
    }

    /**
     * Negatives of the link seeds ({@link NegativeProbeFunction}), drawn as node indices of the link type's source and
     * destination node types (a plain graph's one type), as the memory store's.
     *
     * @param mode binary or triplet
     * @param amount {@code fanout.neg-amount}: a batch of P positives draws {@code ceil(P x amount)} binary negatives,
     *     or {@code amount} triplet ones per positive
     * @param numSrc nodes of the sources' type, the range candidate sources are drawn from
     * @param numDst nodes of the destinations' type
     * @param nodeIds a plain graph's node ids in index order (the client's node-id file), or null
     * @param srcIds a typed graph's source type's ids by index (the client's scan), or null when they equal indices
     * @param dstIds the same for the destination type
     */
    public record LinkNegatives(io.fanout.sampling.link.NegativeSampling mode, double amount, int numSrc, int numDst,
            io.fanout.batch.SeedFile nodeIds, long[] srcIds, long[] dstIds) implements java.io.Serializable {
        /** A plain graph's negatives over its {@code numNodes} nodes. */
        public static LinkNegatives plain(io.fanout.sampling.link.NegativeSampling mode, double amount, int numNodes,
                io.fanout.batch.SeedFile nodeIds) {
            return new LinkNegatives(mode, amount, numNodes, numNodes, nodeIds, null, null);
        }
    }

    /**
     * ABLP: the anchors' positive label edges ({@code --ablp-positive-edges}, or a typed graph's
     * {@code --ablp-positive-type}, whose edge type they carry), or null.
     */
    public io.fanout.sampling.link.SupervisionEdges ablpPositive() {
        return values.ablpPositive;
    }

    /** ABLP: the anchors' negative label edges ({@code --ablp-negative-edges} or {@code -type}), or null. */
    public io.fanout.sampling.link.SupervisionEdges ablpNegative() {
        return values.ablpNegative;
    }

    /** ABLP: the label node type's ids by index (a plain graph's: the seed ids), or null when they equal indices. */
    public long[] ablpLabelIds() {
        return values.ablpLabelIds;
    }

    /** {@code fanout.temporal-strategy last}: a temporal node takes its most recent edges instead of drawing. */
    public boolean temporalLast() {
        return values.temporalLast;
    }

    /** {@code fanout.alpha}: the PPR restart probability. */
    public double alpha() {
        return values.alpha;
    }

    /** {@code fanout.eps}: the PPR push threshold. */
    public double eps() {
        return values.eps;
    }

    /** {@code fanout.max-ppr-nodes}: nodes a PPR batch keeps per seed. */
    public int maxPprNodes() {
        return values.maxPprNodes;
    }

    /** {@code fanout.ppr-max-neighbors}: neighbours a push reads per node (and edge type); -1 = all. */
    public int pprMaxNeighbors() {
        return values.pprMaxNeighbors;
    }

    /** {@code fanout.residual-topup}: fill a PPR batch up with the largest residuals. */
    public boolean residualTopUp() {
        return values.residualTopUp;
    }

    /** {@code fanout.ppr-max-fetch-iterations}: PPR fetch rounds per batch, each an operator. */
    public int pprRounds() {
        return values.pprRounds;
    }

    /** {@code fanout.ppr-channels} of a typed graph, or null for one walk over every edge type. */
    public PprChannels pprChannels() {
        return values.pprChannels;
    }

    /** {@code fanout.include-sampled-edges}: a typed PPR message also carries the edges its pushes read. */
    public boolean includeSampledEdges() {
        return values.includeSampledEdges;
    }

    /**
     * Sets the options by name; {@link #build} checks them. Its defaults are {@code FanoutOptions}' (this layer
     * cannot read them; {@code StageOptionsTest} holds the two equal).
     */
    public static final class Builder implements Cloneable {
        private long seed = 42;
        private long[] seedIds;
        private String seedType;
        private String runTag = "";
        private TrainerShares shares;
        private int bucketSize = 4096;
        private long cacheBytes = -1;
        private boolean compactAfterLoad = true;
        private DataStream<UpdateLine> graphUpdates;
        private int[] fanouts;
        private Map<String, int[]> typedFanouts;
        private boolean replace;
        private SubgraphType subgraphType = SubgraphType.DIRECTIONAL;
        private boolean disjoint;
        private SeedTimes seedTimes;
        private boolean temporalLast;
        private long[][] linkEnds;
        private LinkNegatives linkNegatives;
        private io.fanout.graph.typed.EdgeType linkType;
        private io.fanout.sampling.link.SupervisionEdges ablpPositive;
        private io.fanout.sampling.link.SupervisionEdges ablpNegative;
        private long[] ablpLabelIds;
        private double alpha = 0.5;
        private double eps = 1e-4;
        private int maxPprNodes = 50;
        private int pprMaxNeighbors = 1000;
        private boolean residualTopUp = true;
        private int pprRounds = 8;
        private PprChannels pprChannels;
        private boolean includeSampledEdges;

        private Builder() {}

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder seedIds(long[] seedIds) {
            this.seedIds = seedIds;
            return this;
        }

        public Builder seedType(String seedType) {
            this.seedType = seedType;
            return this;
        }

        public Builder runTag(String runTag) {
            this.runTag = runTag;
            return this;
        }

        public Builder shares(TrainerShares shares) {
            this.shares = shares;
            return this;
        }

        public Builder bucketSize(int bucketSize) {
            this.bucketSize = bucketSize;
            return this;
        }

        public Builder cacheBytes(long cacheBytes) {
            this.cacheBytes = cacheBytes;
            return this;
        }

        public Builder compactAfterLoad(boolean compactAfterLoad) {
            this.compactAfterLoad = compactAfterLoad;
            return this;
        }

        public Builder graphUpdates(DataStream<UpdateLine> graphUpdates) {
            this.graphUpdates = graphUpdates;
            return this;
        }

        public Builder fanouts(int[] fanouts) {
            this.fanouts = fanouts;
            return this;
        }

        public Builder typedFanouts(Map<String, int[]> typedFanouts) {
            this.typedFanouts = typedFanouts;
            return this;
        }

        public Builder replace(boolean replace) {
            this.replace = replace;
            return this;
        }

        public Builder subgraphType(SubgraphType subgraphType) {
            this.subgraphType = subgraphType;
            return this;
        }

        public Builder disjoint(boolean disjoint) {
            this.disjoint = disjoint;
            return this;
        }

        /** Link seeds: their ends' ids ({@link StageOptions#linkEnds()}), or null. */
        public Builder linkEnds(long[][] linkEnds) {
            this.linkEnds = linkEnds;
            return this;
        }

        /** A typed graph's link seeds' edge type ({@link StageOptions#linkType()}), or null. */
        public Builder linkType(io.fanout.graph.typed.EdgeType linkType) {
            this.linkType = linkType;
            return this;
        }

        /** Binary negatives of the link seeds ({@link StageOptions#linkNegatives()}), or null. */
        public Builder linkNegatives(LinkNegatives linkNegatives) {
            this.linkNegatives = linkNegatives;
            return this;
        }

        /**
         * ABLP: the positive (required) and negative (or null) label edges, and the label node type's ids by index
         * (null: ids equal indices); null: no ABLP.
         */
        public Builder ablp(io.fanout.sampling.link.SupervisionEdges positive,
                io.fanout.sampling.link.SupervisionEdges negative, long[] labelIds) {
            this.ablpPositive = positive;
            this.ablpNegative = negative;
            this.ablpLabelIds = labelIds;
            return this;
        }

        /** Temporal sampling's seed times (null: each batch's own, from the seed file) and strategy. */
        public Builder temporal(SeedTimes seedTimes, boolean last) {
            this.seedTimes = seedTimes;
            this.temporalLast = last;
            return this;
        }

        public Builder alpha(double alpha) {
            this.alpha = alpha;
            return this;
        }

        public Builder eps(double eps) {
            this.eps = eps;
            return this;
        }

        public Builder maxPprNodes(int maxPprNodes) {
            this.maxPprNodes = maxPprNodes;
            return this;
        }

        public Builder pprMaxNeighbors(int pprMaxNeighbors) {
            this.pprMaxNeighbors = pprMaxNeighbors;
            return this;
        }

        public Builder residualTopUp(boolean residualTopUp) {
            this.residualTopUp = residualTopUp;
            return this;
        }

        public Builder pprRounds(int pprRounds) {
            this.pprRounds = pprRounds;
            return this;
        }

        public Builder pprChannels(PprChannels pprChannels) {
            this.pprChannels = pprChannels;
            return this;
        }

        public Builder includeSampledEdges(boolean includeSampledEdges) {
            this.includeSampledEdges = includeSampledEdges;
            return this;
        }

        /** The options, checked: a value out of range fails naming its option. */
        public StageOptions build() {
            atLeast("fanout.partitioned.bucket-size", bucketSize, 1);
            atLeast("fanout.max-ppr-nodes", maxPprNodes, 1);
            atLeast("fanout.ppr-max-fetch-iterations", pprRounds, 1);
            if (pprMaxNeighbors < 1 && pprMaxNeighbors != -1) {
                throw new IllegalArgumentException("fanout.ppr-max-neighbors must be >= 1 or -1 (all), got "
                        + pprMaxNeighbors);
            }
            if (cacheBytes < -1) {
                throw new IllegalArgumentException("fanout.partitioned.cache-mb must be >= 0 or -1 (automatic), got "
                        + cacheBytes + " bytes");
            }
            if (subgraphType == null) {
                throw new IllegalArgumentException("fanout.subgraph-type must be set (directional by default)");
            }
            if (linkNegatives != null && (linkEnds == null || !(linkNegatives.amount() > 0)
                    || linkNegatives.numSrc() < 1 || linkNegatives.numDst() < 1
                    || linkNegatives.mode() == io.fanout.sampling.link.NegativeSampling.NONE
                    || linkNegatives.mode() == io.fanout.sampling.link.NegativeSampling.TRIPLET
                    && linkNegatives.amount() != Math.floor(linkNegatives.amount()))) {
                throw new IllegalArgumentException("fanout.neg-sampling needs fanout.link-seeds, a graph with nodes and"
                        + " fanout.neg-amount > 0 (whole for triplets), got " + linkNegatives.mode() + " amount "
                        + linkNegatives.amount() + " over " + linkNegatives.numSrc() + " x " + linkNegatives.numDst()
                        + " nodes" + (linkEnds == null ? " without link seeds" : ""));
            }
            if (ablpNegative != null && ablpPositive == null) {
                throw new IllegalArgumentException("fanout.ablp-negative-edges needs fanout.ablp-positive-edges");
            }
            if (runTag == null) {
                throw new IllegalArgumentException("the run tag must not be null (empty: no tag)");
            }
            Builder values;
            try {
                values = (Builder) clone();
            } catch (CloneNotSupportedException e) {
                throw new AssertionError(e);
            }
            values.fanouts = fanouts == null ? null : fanouts.clone();
            values.typedFanouts = typedFanouts == null ? null
                    : Collections.unmodifiableMap(new LinkedHashMap<>(typedFanouts));
            return new StageOptions(values);
        }

        private static void atLeast(String option, long value, long min) {
            if (value < min) {
                throw new IllegalArgumentException(option + " must be >= " + min + ", got " + value);
            }
        }
    }
}
