package io.fanout.config;

import io.fanout.connectors.channel.options.ChannelOptions;
import io.fanout.connectors.channel.options.ShmOptions;
import io.fanout.connectors.channel.options.ShmSinkOptions;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.sampling.SubgraphType;
import io.fanout.sampling.KHopSampler;
import io.fanout.store.GraphSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;

/**
 * The validated, typed options of one Fanout job, read from a Flink {@link Configuration}.
 *
 * <p>Every check runs here, before the job is built, and fails with a {@link ConfigException} that
 * names the option (key and flag) and the offending value.
 */
public final class FanoutJobConfig {
    public final Path graph;
    /** Whether the edges are directed where the edge files do not say; null: their directed= header decides. */
    public final Boolean directed;
    /** Node file (features and labels), or null. */
    public final Path nodeFeatures;
    public final FeatureDType featureDType;
    /** Put edge ids (and edge features) into messages. */
    public final boolean withEdge;
    /** Seed file or comma list; null means every node. */
    public final String seeds;
    public final int batchSize;
    public final boolean shuffle;
    public final boolean dropLast;
    public final int epochs;
    /** Data-parallel trainers sharing each epoch's batches (--trainers), >= 1. */
    public final int trainers;
    /** The first epoch sampled (--start-epoch), 0 <= startEpoch < epochs. */
    public final int startEpoch;
    public final long seed;
    public final SamplerType sampler;
    public final StoreType store;
    /** Flink's keyed-state backend (--state-backend, or Flink's state.backend.type when only that is given). */
    public final StateBackendType stateBackend;
    /** --store partitioned: neighbours per stored bucket of a node's list. */
    public final int partitionedBucketSize;
    /** Seeds per chunk of a --seeds file the TaskManagers read (--store partitioned). */
    public final int partitionedSeedChunk;
    /** Where a partitioned job without seeds writes the graph's node ids (a local directory), or null for java.io.tmpdir. */
    public final String partitionedNodeIdsDir;
    /** --store partitioned: heap bytes per lookup subtask for cached node heads (0 = off, -1 = sized from the heap). */
    public final long partitionedCacheBytes;
    /** Bytes per edge-load range ({@link FanoutOptions#PARTITIONED_SPLIT_SIZE}). */
    public final long partitionedSplitBytes;
    /** --store partitioned: load the graph and wait for a savepoint, no batches. */
    public final boolean partitionedLoadOnly;
    /** --store partitioned: compact the loaded adjacency before the first request is answered. */
    public final boolean partitionedCompactAfterLoad;
    /** k-hop fanouts of a homogeneous graph; null for a typed graph ({@link TypedGraphOptions#fanouts}). */
    public final int[] fanouts;
    /** Link prediction: the seed-edge file (src TAB dst lines), plain or typed graph, or null for seed nodes. */
    public final Path linkSeeds;
    /** Link prediction: the negatives drawn per batch. */
    public final io.fanout.sampling.link.NegativeSampling negSampling;
    /** Link prediction: negatives per positive (binary: in total, rounded up; triplet: per positive). */
    public final double negAmount;
    /** Plain-graph ABLP: the positive label-edge file (anchor TAB label node ids), or null. */
    public final Path ablpPositiveEdges;
    /** Plain-graph ABLP: the negative label-edge file, or null. */
    public final Path ablpNegativeEdges;
    /** The options of a typed graph, or null for a homogeneous graph. */
    public final TypedGraphOptions typed;
    public final boolean replace;
    /** The edge column whose weights drive k-hop sampling, or null for uniform sampling. */
    public final String weightColumn;
    /** One tree per seed (PyG disjoint) instead of one de-duplicated subgraph per batch; always with a time column. */
    public final boolean disjoint;
    /** PyG's subgraph type: directional, bidirectional or induced. */
    public final SubgraphType subgraphType;
    /** The timestamp column of temporal sampling, or null. */
    public final String timeColumn;
    /** Every seed's time (temporal sampling), or null. */
    public final Long seedTime;
    /** Temporal strategy last (the most recent edges) instead of uniform. */
    public final boolean temporalLast;
    /** PPR restart probability, in (0, 1). */
    public final double alpha;
    /** PPR push tolerance, > 0. */
    public final double eps;
    /** PPR neighbours kept per seed, >= 1. */
    public final int maxPprNodes;
    /** Neighbours a PPR push reads per node; -1 = all. */
    public final int pprMaxNeighbors;
    /** --store partitioned PPR: fetch rounds per batch (GiGL max_fetch_iterations), >= 1. */
    public final int pprMaxFetchIterations;
    public final boolean residualTopUp;
    public final EdgeDirection edgeDirection;
    /** Offline output directory, or null. */
    public final String output;
    /** What a fresh run does with a non-empty output directory. */
    public final OutputMode outputMode;
    public final boolean serve;
    /** Shared-memory channel settings when trainers read rings on this host (--channel.shm), else null. */
    public final ShmSinkOptions shm;
    /** TCP channel settings when serving over TCP, else null. */
    public final ChannelSinkOptions channel;
    /** Job parallelism, or null for Flink's default. */
    public final Integer parallelism;
    public final Duration checkpointInterval;
    /** {@code fanout.checkpoint-timeout}. */
    public final Duration checkpointTimeout;
    /** {@code fanout.tolerable-failed-checkpoints}: -1 = any number. */
    public final int tolerableFailedCheckpoints;
    /** Checkpoint storage URI, or null. */
    public final String checkpointDir;
    /** --store partitioned: the directory of graph-update files to watch, or null. */
    public final java.nio.file.Path graphUpdates;
    /** How often {@link #graphUpdates} is listed. */
    public final Duration graphUpdatesInterval;
    /** --store partitioned: host and port of a graph-update line server, or null. */
    public final String graphUpdatesHost;
    public final int graphUpdatesPort;
    /** Cap on seed batches per second over the whole job; 0 for none. */
    public final int maxBatchesPerSecond;
    /** What the sampler does when sampling a batch throws. */
    public final OnSamplingError onSamplingError;
    /** Batch keys ({@code SeedBatch.key()}) whose sampling fails on purpose (tests); empty normally. */
    public final long[] injectedSamplingErrors;
    /** The whole configuration, including channel options and raw Flink settings. */
    public final Configuration configuration;

    private FanoutJobConfig(Configuration conf) {
        this.configuration = conf;
        String graphValue = get(conf, FanoutOptions.GRAPH);
        if (graphValue == null || graphValue.isBlank()) {
            throw new ConfigException("Option " + name(FanoutOptions.GRAPH) + " is required: the edge file or"
                    + " graph directory to sample, e.g. --graph ../shared/data/cora");
        }
        this.graph = Path.of(graphValue);
        if (!Files.exists(graph)) {
            throw new ConfigException("Option " + name(FanoutOptions.GRAPH) + ": no such file or directory: " + graphValue);
        }
        this.directed = get(conf, FanoutOptions.DIRECTED);
        String nodesValue = get(conf, FanoutOptions.NODE_FEATURES);
        this.nodeFeatures = nodesValue == null || nodesValue.isBlank() ? null : Path.of(nodesValue);
        if (nodeFeatures != null && !Files.exists(nodeFeatures)) {
            throw new ConfigException("Option " + name(FanoutOptions.NODE_FEATURES) + ": no such file or directory: "
                    + nodesValue);
        }
        this.featureDType = get(conf, FanoutOptions.FEATURE_DTYPE);
        this.withEdge = get(conf, FanoutOptions.WITH_EDGE);
        this.seeds = get(conf, FanoutOptions.SEEDS);
        this.batchSize = atLeast(conf, FanoutOptions.BATCH_SIZE, 1);
        this.shuffle = get(conf, FanoutOptions.SHUFFLE);
        this.dropLast = get(conf, FanoutOptions.DROP_LAST);
        this.epochs = atLeast(conf, FanoutOptions.EPOCHS, 1);
        this.trainers = atLeast(conf, FanoutOptions.TRAINERS, 1);
        this.startEpoch = atLeast(conf, FanoutOptions.START_EPOCH, 0);
        if (startEpoch >= epochs) {
            throw new ConfigException("Invalid value '" + startEpoch + "' for option " + name(FanoutOptions.START_EPOCH)
                    + ": must be < " + name(FanoutOptions.EPOCHS) + " " + epochs + " (epochs are numbered from 0, so"
                    + " the last is " + (epochs - 1) + ")");
        }
        this.seed = get(conf, FanoutOptions.SEED);
        this.sampler = get(conf, FanoutOptions.SAMPLER);
        this.store = get(conf, FanoutOptions.STORE);
        this.partitionedBucketSize = atLeast(conf, FanoutOptions.PARTITIONED_BUCKET_SIZE, 1);
        this.partitionedSeedChunk = atLeast(conf, FanoutOptions.PARTITIONED_SEED_CHUNK, 1);
        this.partitionedNodeIdsDir = get(conf, FanoutOptions.PARTITIONED_NODE_IDS_DIR);
        if (partitionedNodeIdsDir != null) {
            DirectoryChecks.requireWritable(FanoutOptions.PARTITIONED_NODE_IDS_DIR, partitionedNodeIdsDir);
            if (DirectoryChecks.localPath(partitionedNodeIdsDir) == null) {
                throw new ConfigException("Invalid value '" + partitionedNodeIdsDir + "' for option "
                        + name(FanoutOptions.PARTITIONED_NODE_IDS_DIR) + ": the client writes it and the TaskManagers"
                        + " read it as a local path (a shared mount), not a file system URI");
            }
        }
        this.stateBackend = stateBackend(conf);
        int cacheMb = atLeast(conf, FanoutOptions.PARTITIONED_CACHE_MB, -1);
        this.partitionedCacheBytes = cacheMb < 0 ? -1 : (long) cacheMb << 20;
        this.partitionedSplitBytes = get(conf, FanoutOptions.PARTITIONED_SPLIT_SIZE).getBytes();
        if (partitionedSplitBytes < 1024) {
            throw new ConfigException("Invalid value '" + conf.toMap().get(FanoutOptions.PARTITIONED_SPLIT_SIZE.key())
                    + "' for option " + name(FanoutOptions.PARTITIONED_SPLIT_SIZE) + ": must be >= 1kb");
        }
        this.partitionedLoadOnly = get(conf, FanoutOptions.PARTITIONED_LOAD_ONLY);
        this.partitionedCompactAfterLoad = get(conf, FanoutOptions.PARTITIONED_COMPACT_AFTER_LOAD);
        // Which options work for this graph kind, sampler and store: one table, checked before any graph is read.
        SamplingMatrix.check(conf, new SamplingMatrix.Cell(graphKind(graph), sampler, store));
        // Typed-graph options (seed type, per-edge-type fanouts, link seeds) are validated apart; null: homogeneous.
        this.typed = TypedGraphOptions.from(conf, graph, sampler, nodeFeatures);
        if (typed != null) {
            this.linkSeeds = typed.linkSeeds;
            this.negSampling = typed.negSampling;
            this.negAmount = typed.negAmount;
        } else {
            String links = get(conf, FanoutOptions.LINK_SEEDS);
            this.linkSeeds = links == null || links.isBlank() ? null : Path.of(links.trim());
            if (linkSeeds != null && !Files.isRegularFile(linkSeeds)) {
                throw new ConfigException("Invalid value '" + links + "' for option " + name(FanoutOptions.LINK_SEEDS)
                        + ": no such file");
            }
            if (linkSeeds != null && get(conf, FanoutOptions.SEEDS) != null) {
                throw new ConfigException("Option " + name(FanoutOptions.LINK_SEEDS) + " replaces "
                        + name(FanoutOptions.SEEDS) + ": give seed edges or seed nodes, not both");
            }
            this.negSampling = TypedGraphOptions.negSampling(conf, linkSeeds);
            this.negAmount = TypedGraphOptions.negAmount(conf, negSampling);
        }
        // The matrix refuses the label-edge files on a typed graph (whose label edges are edge types).
        this.ablpPositiveEdges = labelEdgeFile(conf, FanoutOptions.ABLP_POSITIVE_EDGES);
        this.ablpNegativeEdges = labelEdgeFile(conf, FanoutOptions.ABLP_NEGATIVE_EDGES);
        if (ablpNegativeEdges != null && ablpPositiveEdges == null) {
            throw new ConfigException("Option " + name(FanoutOptions.ABLP_NEGATIVE_EDGES) + " needs "
                    + name(FanoutOptions.ABLP_POSITIVE_EDGES) + ": negative labels belong to the anchors of positive"
                    + " ones");
        }
        if (ablpPositiveEdges != null && ablpPositiveEdges.equals(ablpNegativeEdges)) {
            throw new ConfigException("Invalid value '" + ablpNegativeEdges + "' for option "
                    + name(FanoutOptions.ABLP_NEGATIVE_EDGES) + ": the same file as "
                    + name(FanoutOptions.ABLP_POSITIVE_EDGES));
        }
        if (ablpPositiveEdges != null && linkSeeds != null) {
            throw new ConfigException("Option " + name(FanoutOptions.LINK_SEEDS) + " and "
                    + name(FanoutOptions.ABLP_POSITIVE_EDGES) + " are two kinds of link prediction: seed edges"
                    + " (GLT) or anchors with label edges (GiGL ABLP), not both");
        }
        String fanoutValue = get(conf, FanoutOptions.FANOUT);
        try {
            this.fanouts = typed == null ? KHopSampler.parseFanouts(fanoutValue) : null;
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid value '" + fanoutValue + "' for option " + name(FanoutOptions.FANOUT)
                    + ": " + e.getMessage(), e);
        }
        this.replace = get(conf, FanoutOptions.REPLACE);
        String weightValue = get(conf, FanoutOptions.WEIGHT_COLUMN);
        this.weightColumn = weightValue == null ? null : weightValue.trim();
        String timeValue = get(conf, FanoutOptions.TIME_COLUMN);
        this.timeColumn = timeValue == null || timeValue.isBlank() ? null : timeValue.trim();
        this.seedTime = get(conf, FanoutOptions.SEED_TIME);
        io.fanout.sampling.TemporalStrategy strategy = get(conf, FanoutOptions.TEMPORAL_STRATEGY);
        this.temporalLast = strategy == io.fanout.sampling.TemporalStrategy.LAST;
        if (timeColumn == null && (seedTime != null || temporalLast)) {
            throw new ConfigException("Option " + name(seedTime != null ? FanoutOptions.SEED_TIME : FanoutOptions.TEMPORAL_STRATEGY)
                    + " needs " + name(FanoutOptions.TIME_COLUMN) + " (the edge column of times)");
        }
        // Temporal sampling is disjoint, as in PyG: each seed's tree has its own time.
        this.disjoint = get(conf, FanoutOptions.DISJOINT) || timeColumn != null;
        this.subgraphType = get(conf, FanoutOptions.SUBGRAPH_TYPE);
        if (subgraphType == SubgraphType.INDUCED && disjoint) {
            throw new ConfigException("Invalid value 'induced' for option " + name(FanoutOptions.SUBGRAPH_TYPE) + ": not with "
                    + (timeColumn != null ? name(FanoutOptions.TIME_COLUMN) + " (temporal sampling is disjoint)"
                    : name(FanoutOptions.DISJOINT)) + ", as PyG refuses induced disjoint subgraphs");
        }
        if (subgraphType == SubgraphType.INDUCED && typed != null) {
            throw new ConfigException("Invalid value 'induced' for option " + name(FanoutOptions.SUBGRAPH_TYPE)
                    + ": induced subgraphs of a typed graph are not implemented (PyG's typed sampler, pyg-lib, has"
                    + " none either); bidirectional and directional are");
        }
        if (subgraphType != SubgraphType.DIRECTIONAL && sampler != SamplerType.KHOP) {
            throw new ConfigException("Invalid value '" + subgraphType + "' for option " + name(FanoutOptions.SUBGRAPH_TYPE)
                    + ": subgraph types are k-hop only");
        }
        if (disjoint && sampler != SamplerType.KHOP) {
            throw new ConfigException("Invalid value 'true' for option " + name(FanoutOptions.DISJOINT)
                    + ": disjoint trees are k-hop only (fanout.sampler is " + sampler.name().toLowerCase(Locale.ROOT) + ")");
        }
        if (weightColumn != null && (weightColumn.isEmpty() || sampler != SamplerType.KHOP)) {
            throw new ConfigException("Invalid value '" + weightValue + "' for option " + name(FanoutOptions.WEIGHT_COLUMN)
                    + (weightColumn.isEmpty() ? ": must name an edge column such as weight"
                    : ": weighted sampling is k-hop only (fanout.sampler is " + sampler.name().toLowerCase(Locale.ROOT) + ")"));
        }
        if (ablpPositiveEdges != null && disjoint) {
            // As on typed graphs: the label nodes join the anchors as seeds, which disjoint trees do not model yet.
            ConfigOption<?> mode = timeColumn != null ? FanoutOptions.TIME_COLUMN : FanoutOptions.DISJOINT;
            throw new ConfigException("Option " + name(mode) + " with " + name(FanoutOptions.ABLP_POSITIVE_EDGES)
                    + " is not implemented yet: temporal and disjoint sampling take seed nodes without label edges");
        }
        if (linkSeeds != null && seedTime != null) {
            // Temporal link prediction takes each seed edge's time from the link-seed file, as PyG's edge_label_time.
            throw new ConfigException("Option " + name(FanoutOptions.SEED_TIME) + " with " + name(FanoutOptions.LINK_SEEDS)
                    + " is not implemented: a seed edge's time is the third column of the link-seed file");
        }
        this.alpha = get(conf, FanoutOptions.ALPHA);
        if (!(alpha > 0 && alpha < 1)) {
            throw new ConfigException("Invalid value '" + raw(conf, FanoutOptions.ALPHA) + "' for option " + name(FanoutOptions.ALPHA)
                    + ": the restart probability must be in (0,1), e.g. 0.15");
        }
        this.eps = get(conf, FanoutOptions.EPS);
        if (!(eps > 0) || Double.isInfinite(eps)) {
            throw new ConfigException("Invalid value '" + raw(conf, FanoutOptions.EPS) + "' for option " + name(FanoutOptions.EPS)
                    + ": must be a positive number, e.g. 1e-4");
        }
        this.maxPprNodes = atLeast(conf, FanoutOptions.MAX_PPR_NODES, 1);
        this.pprMaxNeighbors = get(conf, FanoutOptions.PPR_MAX_NEIGHBORS);
        if (pprMaxNeighbors < 1 && pprMaxNeighbors != -1) {
            throw new ConfigException("Invalid value '" + pprMaxNeighbors + "' for option "
                    + name(FanoutOptions.PPR_MAX_NEIGHBORS) + ": must be >= 1, or -1 for all neighbours");
        }
        this.pprMaxFetchIterations = atLeast(conf, FanoutOptions.PPR_MAX_FETCH_ITERATIONS, 1);
        this.residualTopUp = get(conf, FanoutOptions.RESIDUAL_TOPUP);
        this.edgeDirection = get(conf, FanoutOptions.EDGE_DIR);
        this.output = get(conf, FanoutOptions.OUTPUT);
        this.outputMode = get(conf, FanoutOptions.OUTPUT_MODE);
        this.serve = get(conf, FanoutOptions.SERVE);
        boolean useShm = get(conf, ShmOptions.SHM);
        try {
            // With --trainers N each sink subtask writes one ring per rank.
            this.shm = useShm ? ShmSinkOptions.fromConfiguration(conf).withTrainers(trainers) : null;
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage(), e);
        }
        if (serve && !useShm && conf.getOptional(ChannelOptions.REGISTRY).isEmpty()) {
            throw new ConfigException("Option " + name(FanoutOptions.SERVE) + " needs " + name(ChannelOptions.REGISTRY)
                    + " (--registry DIR): the directory where endpoints announce themselves to trainers");
        }
        try {
            // The endpoints serve each rank its share, so they need the job's trainer count.
            this.channel = serve && !useShm ? ChannelSinkOptions.fromConfiguration(conf).withTrainers(trainers) : null;
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage(), e);
        }
        if (output != null) {
            DirectoryChecks.requireWritable(FanoutOptions.OUTPUT, output);
        }
        if (channel != null) {
            DirectoryChecks.requireWritable(ChannelOptions.REGISTRY, channel.registryDir());
        }
        if (shm != null) {
            DirectoryChecks.requireWritable(ShmOptions.SHM_DIR, shm.dir());
        }
        this.parallelism = conf.getOptional(FanoutOptions.PARALLELISM).isPresent()
                ? atLeast(conf, FanoutOptions.PARALLELISM, 1) : null;
        this.checkpointInterval = get(conf, FanoutOptions.CHECKPOINT_INTERVAL);
        if (checkpointInterval.isZero() || checkpointInterval.isNegative()) {
            throw new ConfigException("Invalid value '" + checkpointInterval + "' for option "
                    + name(FanoutOptions.CHECKPOINT_INTERVAL) + ": must be positive");
        }
        this.checkpointTimeout = get(conf, FanoutOptions.CHECKPOINT_TIMEOUT);
        if (checkpointTimeout.toMillis() < 10) {
            throw new ConfigException("Invalid value '" + checkpointTimeout + "' for option "
                    + name(FanoutOptions.CHECKPOINT_TIMEOUT) + ": must be at least 10 ms");
        }
        this.tolerableFailedCheckpoints = atLeast(conf, FanoutOptions.TOLERABLE_FAILED_CHECKPOINTS, -1);
        this.checkpointDir = get(conf, FanoutOptions.CHECKPOINT_DIR);
        String updatesDir = get(conf, FanoutOptions.GRAPH_UPDATES);
        String updatesSocket = get(conf, FanoutOptions.GRAPH_UPDATES_SOCKET);
        if ((updatesDir != null || updatesSocket != null) && store != StoreType.PARTITIONED) {
            throw new ConfigException("Option " + name(updatesDir != null ? FanoutOptions.GRAPH_UPDATES
                    : FanoutOptions.GRAPH_UPDATES_SOCKET) + " needs " + name(FanoutOptions.STORE)
                    + " partitioned: graph updates change the partitioned store's keyed adjacency (the memory store's"
                    + " graph is fixed once loaded)");
        }
        if (updatesDir != null || updatesSocket != null) {
            // The versioned lookups draw uniformly, per node, from the lists they keep per version.
            List<String> notWithUpdates = new ArrayList<>();
            if (weightColumn != null) {
                notWithUpdates.add(name(FanoutOptions.WEIGHT_COLUMN) + " (the versioned lookups draw uniformly)");
            }
            if (timeColumn != null) {
                notWithUpdates.add(name(FanoutOptions.TIME_COLUMN) + " (they keep no edge times)");
            } else if (disjoint) {
                notWithUpdates.add(name(FanoutOptions.DISJOINT) + " (they draw per node, not per tree)");
            }
            if (linkSeeds != null) {
                notWithUpdates.add(name(FanoutOptions.LINK_SEEDS) + " (their batches start from the loaded graph's"
                        + " ids only)");
            }
            if (ablpPositiveEdges != null) {
                notWithUpdates.add(name(FanoutOptions.ABLP_POSITIVE_EDGES) + " (its batches start from the loaded"
                        + " graph's ids only)");
            }
            if (withEdge) {
                notWithUpdates.add(name(FanoutOptions.WITH_EDGE) + " (an updated edge has no input row)");
            }
            if (subgraphType == SubgraphType.INDUCED) {
                notWithUpdates.add(name(FanoutOptions.SUBGRAPH_TYPE) + " induced (its whole-list lookup reads the loaded"
                        + " graph only; directional and bidirectional work)");
            }
            if (!notWithUpdates.isEmpty()) {
                throw new ConfigException("Not implemented with " + name(updatesDir != null ? FanoutOptions.GRAPH_UPDATES
                        : FanoutOptions.GRAPH_UPDATES_SOCKET) + ": " + String.join("; ", notWithUpdates)
                        + ". Drop them or the graph updates");
            }
        }
        if (updatesDir != null && updatesSocket != null) {
            throw new ConfigException("Options " + name(FanoutOptions.GRAPH_UPDATES) + " and "
                    + name(FanoutOptions.GRAPH_UPDATES_SOCKET) + " are both set: give one update source (versions"
                    + " form one sequence)");
        }
        this.graphUpdates = updatesDir == null ? null : java.nio.file.Path.of(updatesDir);
        if (graphUpdates != null && !java.nio.file.Files.isDirectory(graphUpdates)) {
            throw new ConfigException("Invalid value '" + updatesDir + "' for option " + name(FanoutOptions.GRAPH_UPDATES)
                    + ": not a directory");
        }
        this.graphUpdatesInterval = get(conf, FanoutOptions.GRAPH_UPDATES_INTERVAL);
        if (graphUpdatesInterval.isZero() || graphUpdatesInterval.isNegative()) {
            throw new ConfigException("Invalid value '" + graphUpdatesInterval + "' for option "
                    + name(FanoutOptions.GRAPH_UPDATES_INTERVAL) + ": must be positive");
        }
        if (updatesSocket != null) {
            int colon = updatesSocket.lastIndexOf(':');
            int port = -1;
            try {
                port = colon > 0 ? Integer.parseInt(updatesSocket.substring(colon + 1)) : -1;
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw new ConfigException("Invalid value '" + updatesSocket + "' for option "
                        + name(FanoutOptions.GRAPH_UPDATES_SOCKET) + ": expected host:port with a port in 1..65535");
            }
            this.graphUpdatesHost = updatesSocket.substring(0, colon);
            this.graphUpdatesPort = port;
        } else {
            this.graphUpdatesHost = null;
            this.graphUpdatesPort = 0;
        }
        if (partitionedLoadOnly && store != StoreType.PARTITIONED) {
            throw new ConfigException("Option " + name(FanoutOptions.PARTITIONED_LOAD_ONLY) + " needs "
                    + name(FanoutOptions.STORE) + " partitioned (a memory-store graph is not kept in keyed state)");
        }
        if (partitionedLoadOnly && (output != null || serve || shm != null)) {
            throw new ConfigException("Option " + name(FanoutOptions.PARTITIONED_LOAD_ONLY) + " samples nothing: drop "
                    + (output != null ? name(FanoutOptions.OUTPUT) : name(FanoutOptions.SERVE))
                    + " (give it to the job started from the savepoint)");
        }
        if (typed != null && store == StoreType.PARTITIONED) {
            refuseForTypedPartitioned(conf);
        }
        if (checkpointDir != null) {
            DirectoryChecks.requireWritable(FanoutOptions.CHECKPOINT_DIR, checkpointDir);
        }
        this.maxBatchesPerSecond = atLeast(conf, FanoutOptions.MAX_BATCHES_PER_SECOND, 0);
        this.onSamplingError = get(conf, FanoutOptions.ON_SAMPLING_ERROR);
        this.injectedSamplingErrors = parseBatchKeys(get(conf, FanoutOptions.INJECT_SAMPLING_ERRORS));
    }

    /** Plain or typed, from the graph's file names only (nothing is read). */
    /**
     * The partitioned store's own options that a typed graph's partitioned k-hop does not implement: refused by name.
     * Its client scans the seed type's ids from the edge and node files (as the memory store's does), so no seed or
     * node-id file is read by the TaskManagers; a loaded typed graph is not kept for a later job, nor updated.
     */
    private static void refuseForTypedPartitioned(Configuration conf) {
        List<String> refused = new java.util.ArrayList<>();
        for (ConfigOption<?> option : List.of(FanoutOptions.PARTITIONED_LOAD_ONLY, FanoutOptions.GRAPH_UPDATES,
                FanoutOptions.GRAPH_UPDATES_SOCKET, FanoutOptions.PARTITIONED_NODE_IDS_DIR,
                FanoutOptions.PARTITIONED_SEED_CHUNK)) {
            if (SamplingMatrix.isSet(conf, option)) {
                refused.add(name(option));
            }
        }
        if (!refused.isEmpty()) {
            throw new ConfigException((refused.size() == 1 ? "Option " : "Options ") + String.join(", ", refused)
                    + (refused.size() == 1 ? " is" : " are") + " not implemented yet for a typed graph in "
                    + name(FanoutOptions.STORE) + " partitioned (its client scans the seed type's ids; a typed graph"
                    + " is not kept for a later job nor updated): drop " + (refused.size() == 1 ? "it" : "them"));
        }
    }

    private static SamplingMatrix.GraphKind graphKind(Path graph) {
        try {
            return io.fanout.graph.typed.TypedGraphFiles.isTyped(graph) ? SamplingMatrix.GraphKind.TYPED
                    : SamplingMatrix.GraphKind.PLAIN;
        } catch (java.io.IOException e) {
            throw new ConfigException("Invalid value '" + graph + "' for option " + name(FanoutOptions.GRAPH) + ": "
                    + e.getMessage(), e);
        }
    }

    /** What the samplers load: the graph, its node file and dtype, with edge ids when messages carry them. */
    public GraphSpec graphSpec() {
        return new GraphSpec(graph.toAbsolutePath().toString(), edgeDirection,
                nodeFeatures == null ? null : nodeFeatures.toAbsolutePath().toString(), featureDType,
                withEdge && sampler == SamplerType.KHOP).withDirected(directed).withWeightColumn(weightColumn)
                .withTimeColumn(timeColumn).withSplitBytes(partitionedSplitBytes)
                .withTimelessTypes(typed == null ? null : typed.timelessTypes);
    }

    /** "0:3,1:0" -> batch keys (epoch << 32 | batch); errors name the option. */
    private static long[] parseBatchKeys(String value) {
        if (value == null || value.isBlank()) {
            return new long[0];
        }
        String[] parts = value.split(",");
        long[] keys = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String[] eb = parts[i].trim().split(":");
            try {
                if (eb.length != 2) {
                    throw new NumberFormatException("not epoch:batch");
                }
                int epoch = Integer.parseInt(eb[0].trim());
                int batch = Integer.parseInt(eb[1].trim());
                if (epoch < 0 || batch < 0) {
                    throw new NumberFormatException("negative");
                }
                keys[i] = ((long) epoch << 32) | batch;
            } catch (NumberFormatException e) {
                throw new ConfigException("Invalid value '" + value + "' for option " + name(FanoutOptions.INJECT_SAMPLING_ERRORS)
                        + ": '" + parts[i].trim() + "' is not epoch:batch with non-negative integers");
            }
        }
        return keys;
    }

    /** Reads and validates every job option of conf. */
    public static FanoutJobConfig from(Configuration conf) {
        return new FanoutJobConfig(conf);
    }

    /** "fanout.x (--x)": how errors name an option. */
    public static String name(ConfigOption<?> option) {
        return option.key() + " (--" + CommandLine.flagOf(option) + ")";
    }

    /** conf.get(option), with a parse failure reported as a ConfigException naming option and value. */
    public static <T> T get(Configuration conf, ConfigOption<T> option) {
        try {
            return conf.get(option);
        } catch (IllegalArgumentException e) {
            Optional<String> raw = Optional.ofNullable(conf.toMap().get(option.key()));
            throw new ConfigException("Invalid value '" + raw.orElse("") + "' for option " + name(option) + ": "
                    + expected(option, e), e);
        }
    }

    /** What a value of option must look like: the valid names of an enum or boolean (Flink's message lists none). */
    private static String expected(ConfigOption<?> option, IllegalArgumentException e) {
        if (CommandLine.isBoolean(option)) {
            return "must be true or false";
        }
        Object def = option.hasDefaultValue() ? option.defaultValue() : null;
        if (def instanceof Enum) {
            return "must be one of " + Arrays.stream(((Enum<?>) def).getDeclaringClass().getEnumConstants())
                    .map(c -> c.toString().toLowerCase(Locale.ROOT))
                    .collect(Collectors.joining(", "));
        }
        return e.getMessage();
    }

    /** The value as the user wrote it (e.g. 1e-4, not 1.0E-4), or the parsed value if it came from a default. */
    private static String raw(Configuration conf, ConfigOption<?> option) {
        String text = conf.toMap().get(option.key());
        return text != null ? text : String.valueOf(conf.get(option));
    }

    /**
     * --state-backend, reconciled with Flink's own state.backend.type (a -D setting or the cluster's YAML passed to
     * the job): one backend, named by either, never two that disagree.
     */
    private static StateBackendType stateBackend(Configuration conf) {
        String flink = conf.getOptional(org.apache.flink.configuration.StateBackendOptions.STATE_BACKEND).orElse(null);
        StateBackendType ours = conf.getOptional(FanoutOptions.STATE_BACKEND).orElse(null);
        if (flink == null) {
            return ours == null ? FanoutOptions.STATE_BACKEND.defaultValue() : ours;
        }
        StateBackendType named = java.util.Arrays.stream(StateBackendType.values())
                .filter(b -> b.flinkName().equalsIgnoreCase(flink.trim())).findFirst().orElse(null);
        if (named == null) {
            throw new ConfigException("Invalid value '" + flink + "' for Flink's option state.backend.type: Fanout runs"
                    + " on rocksdb or hashmap (choose with " + name(FanoutOptions.STATE_BACKEND) + ")");
        }
        if (ours != null && ours != named) {
            throw new ConfigException("Option " + name(FanoutOptions.STATE_BACKEND) + " '" + ours + "' contradicts"
                    + " Flink's state.backend.type '" + flink + "': give one of them");
        }
        return named;
    }

    private static int atLeast(Configuration conf, ConfigOption<Integer> option, int min) {
        int value = get(conf, option);
        if (value < min) {
            throw new ConfigException("Invalid value '" + value + "' for option " + name(option) + ": must be >= " + min);
        }
        return value;
    }

    /** A label-edge file option: an existing regular file, or null when unset. */
    private static Path labelEdgeFile(Configuration conf, ConfigOption<String> option) {
        String value = get(conf, option);
        if (value == null || value.isBlank()) {
            return null;
        }
        Path file = Path.of(value.trim());
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("Invalid value '" + value + "' for option " + name(option) + ": no such file");
        }
        return file;
    }
}
