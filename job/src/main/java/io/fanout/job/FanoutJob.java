package io.fanout.job;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedBatch;
import io.fanout.batch.SeedFile;
import io.fanout.batch.SeedSet;
import io.fanout.batch.SeedSlot;
import io.fanout.config.CommandLine;
import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.config.FanoutOptions;
import io.fanout.connectors.channel.shm.ShmChannelSink;
import io.fanout.connectors.channel.options.ShmOptions;
import io.fanout.connectors.channel.options.ChannelOptions;
import io.fanout.connectors.channel.sink.ChannelSink;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.flink.operator.GraphSamplingFunction;
import io.fanout.flink.operator.HeteroKHopSamplingFunction;
import io.fanout.flink.operator.KHopSamplingFunction;
import io.fanout.flink.operator.PprSamplingFunction;
import io.fanout.flink.operator.TypedPprSamplingFunction;
import io.fanout.connectors.file.SamplesFileSink;
import io.fanout.flink.source.EpochWatermarks;
import io.fanout.config.SamplerType;
import io.fanout.flink.source.NoBatchesSource;
import io.fanout.config.StateBackendType;
import io.fanout.config.StoreType;
import io.fanout.config.TypedGraphOptions;
import io.fanout.flink.partitioned.PartitionedKHop;
import io.fanout.flink.partitioned.PartitionedPpr;
import io.fanout.flink.partitioned.PartitionedTypedKHop;
import io.fanout.flink.source.SeedBatchSource;
import io.fanout.flink.source.SeedBatchAssembler;
import io.fanout.flink.source.SeedFileSource;
import io.fanout.graph.NodeIdMap;
import io.fanout.store.NodeIdFile;
import io.fanout.store.GraphStore;
import io.fanout.store.TypedGraphStore;
import io.fanout.sampling.link.LinkSeeds;
import io.fanout.sampling.link.SupervisionEdges;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.core.execution.DetachedJobExecutionResult;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Fanout job: seed batches -> keyed sampler -> offline files and/or the channel to trainers.
 *
 * <p>Entry point for {@code flink run fanout-job.jar [options]} and for the embedded MiniCluster
 * ({@code deploy/bin/fanout-local}); run with {@code --help} for the options.
 */
public final class FanoutJob {
    private static final Logger LOG = LoggerFactory.getLogger(FanoutJob.class);
    static final String USAGE = "Usage: fanout --graph PATH [options]\n"
            + "Samples subgraphs around batches of seed nodes for GNN training and writes one message per batch"
            + " to --output files and/or serves them to trainers (--serve --registry DIR).";

    private FanoutJob() {}

    public static void main(String[] args) throws Exception {
        CommandLine cli = commandLine();
        CommandLine.Parsed parsed = cli.parse(args);
        if (parsed.help) {
            System.out.println(cli.help(USAGE));
            return;
        }
        JobSummary summary = run(FanoutJobConfig.from(parsed.configuration));
        if (summary != null) {
            System.out.println(summary);
        }
    }

    /** The command line of the job: every job option and channel option, with short aliases. */
    public static CommandLine commandLine() {
        List<ConfigOption<?>> options = new ArrayList<>(FanoutOptions.jobOptions());
        options.addAll(ChannelOptions.all());
        options.addAll(ShmOptions.all());
        return new CommandLine(options, Map.of("registry", ChannelOptions.REGISTRY.key(),
                "channel-tls-cert", FanoutOptions.CHANNEL_TLS_CERT.key(), "channel-tls-key", FanoutOptions.CHANNEL_TLS_KEY.key()));
    }

    /**
     * Validates the graph, node file and seeds by a streaming scan that keeps only the node ids (the client never
     * holds the graph: the TaskManagers load it), builds the job in the context environment and executes it.
     * Returns the summary, or null for a detached submission.
     */
    public static JobSummary run(FanoutJobConfig config) throws Exception {
        Configuration flinkConf = flinkConfiguration(config);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(flinkConf);
        if (config.store == StoreType.PARTITIONED && env instanceof LocalStreamEnvironment
                && !flinkConf.contains(CheckpointingOptions.CHECKPOINTS_DIRECTORY)) {
            // Locally Flink would keep checkpoints in the JobManager's heap, which refuses a subtask state over
            // 5 MB: the keyed graph of any real graph is larger, every checkpoint would fail and the file sink,
            // which commits on checkpoints, would never finish. Checkpoint to a temporary directory instead.
            java.nio.file.Path dir = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
                    "fanout-checkpoints-" + java.util.UUID.randomUUID()); // created by Flink at the first checkpoint
            LOG.info("--store partitioned without {}: checkpoints go to {}", FanoutOptions.CHECKPOINT_DIR.key(), dir);
            flinkConf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
            flinkConf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, dir.toUri().toString());
            env = StreamExecutionEnvironment.getExecutionEnvironment(flinkConf);
        }
        if (config.partitionedLoadOnly && env instanceof LocalStreamEnvironment) {
            throw new ConfigException("Option " + FanoutJobConfig.name(FanoutOptions.PARTITIONED_LOAD_ONLY)
                    + " runs until it is stopped with a savepoint: submit it to a cluster (flink run -d ...,"
                    + " then flink stop --type native --savepointPath DIR JOB_ID); a local run would never end");
        }
        // The environment's settings include the CLI's (flink run -s sets the savepoint to restore).
        try (OutputDirectory output = config.output != null ? OutputDirectory.check(config, env) : null) {
            return submit(env, config, output); // the output's run lock is held until the client is done
        }
    }

    /** Plans the batches, builds the job and executes it; {@code output} is checked already (or null). */
    private static JobSummary submit(StreamExecutionEnvironment env, FanoutJobConfig config, OutputDirectory output)
            throws Exception {
        // A typed graph: the client streams its files once for the seed type's ids (and the link seeds' types),
        // keeping those ids only; ABLP's plan needs the label edges, so an ABLP job loads the graph here.
        boolean ablp = config.typed != null && config.typed.ablpPositive != null;
        TypedGraphStore typed = ablp ? TypedGraphStore.load(config.graphSpec()) : null;
        Map<String, NodeIdMap> typedIds = config.typed == null ? null
                : ablp ? typed.nodeIds() : TypedGraphStore.scanNodeIds(config.graphSpec(), typedSeedTypes(config));
        LinkSeeds links = config.linkSeeds == null ? null
                : typedIds != null ? linkSeeds(config, typedIds) : plainLinkSeeds(config);
        // Plain-graph ABLP: the client reads the label-edge files (its plan's default anchors need them) and the
        // sampling operator gets them with the job, as link seeds are sent.
        NodeIdMap plainIds = config.ablpPositiveEdges == null ? null : GraphStore.scanNodeIds(config.graphSpec());
        SupervisionEdges[] plainLabels = plainIds == null ? null : plainLabelEdges(config, plainIds);
        // Link batches are positions into the seed edges, so the batch plan numbers those.
        SeedFile seedFile = partitionedSeedFile(config);
        NodeIdFile.NodeIds allNodes = seedFile == null && typedIds == null ? partitionedNodeIds(config) : null;
        if (allNodes != null && !allNodes.identity()) {
            seedFile = nodeIdSeedFile(config, allNodes.file());
        }
        NodeIdMap nodes = seedFile != null ? null
                : links != null ? NodeIdMap.identity(links.size())
                : typedIds != null ? typedIds.get(config.typed.seedType)
                : plainIds != null ? plainIds
                : allNodes != null ? identityOf(allNodes)
                : partitionedSeeds(config) ? seedIdsNamed(config) : GraphStore.scanNodeIds(config.graphSpec());
        BatchPlan plan = seedFile != null ? seedFilePlan(config, seedFile)
                : config.typed != null && config.typed.ablpPositive != null
                ? anchorPlan(config, typed)
                : plainLabels != null ? anchorPlan(config, nodes, plainLabels[0]) : batchPlan(config, nodes);
        build(env, config, plan, nodes, links, seedFile, plainLabels);
        ClusterFit.check(env, config); // a parallelism the cluster cannot start fails here, not in a restart loop
        if (output != null) {
            output.prepare(); // only once everything else is valid: overwrite deletes the earlier run's files
        }
        JobExecutionResult result = env.execute("fanout " + config.sampler + " " + config.graph.getFileName());
        if (result instanceof DetachedJobExecutionResult) {
            return null;
        }
        return new JobSummary(result.getAllAccumulatorResults(), result.getNetRuntime() / 1000.0);
    }

    /**
     * The Flink settings the job needs on top of the user's: the state backend (RocksDB tuned for the partitioned
     * store, or the heap), checkpoints, no Kryo fallback.
     */
    static Configuration flinkConfiguration(FanoutJobConfig config) {
        Configuration conf = new Configuration(config.configuration);
        conf.set(StateBackendOptions.STATE_BACKEND, config.stateBackend.flinkName());
        if (!conf.contains(CheckpointingOptions.CHECKPOINTING_INTERVAL)) {
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval);
        }
        // A paused trainer holds the channel sink's task thread in write() (its back-pressure), and the
        // checkpoint barrier behind it; aligned or unaligned, no checkpoint of that subtask completes
        // until the trainer pulls. Such checkpoints time out and are tolerated, not failed over.
        if (!conf.contains(CheckpointingOptions.CHECKPOINTING_TIMEOUT)) {
            conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, config.checkpointTimeout);
        }
        if (!conf.contains(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER)) {
            conf.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER,
                    config.tolerableFailedCheckpoints < 0 ? Integer.MAX_VALUE : config.tolerableFailedCheckpoints);
        }
        if (config.stateBackend == StateBackendType.ROCKSDB) {
            rocksDbSettings(conf);
        }
        if (config.checkpointDir != null) {
            conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, config.checkpointDir);
        }
        // Every record type has a Flink serializer; a generic (Kryo) type would be a bug, so fail fast.
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        // Without object reuse Flink deep-copies every record between chained operators: each encoded
        // message (about 1 MB for ego_twitter_u [15,10] batch 512) would be copied once per sink. Safe
        // here because every operator emits a fresh record and no operator mutates or keeps its input
        // beyond processElement (sink writers keep the EncodedMessage they are given, never a reused one).
        if (!conf.contains(PipelineOptions.OBJECT_REUSE)) {
            conf.set(PipelineOptions.OBJECT_REUSE, true);
        }
        if (config.parallelism != null) {
            conf.set(org.apache.flink.configuration.CoreOptions.DEFAULT_PARALLELISM, config.parallelism);
        }
        return conf;
    }

    /** RocksDB's settings for the partitioned store's reads and loads, where the user did not set them. */
    private static void rocksDbSettings(Configuration conf) {
        // Incremental RocksDB checkpoints: --store partitioned keeps the whole adjacency in keyed state, which does
        // not change once loaded, so each checkpoint uploads only the SST files written since the last one.
        if (!conf.contains(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)) {
            conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        }
        // --store partitioned answers requests by RocksDB point reads (a node's group index or head), many of absent
        // keys (cut nodes' indexes, nodes without edges): bloom filters let such a read skip a sorted run. With them
        // in Flink's managed block cache, partitioned index and filter blocks keep a read from loading a whole
        // SST file's index and filter (megabytes) whenever the cache is smaller than the graph: R-MAT 2^20 x 16 at
        // p=1 sampled 3.5x faster in its first epoch with them (15 k -> 55 k edges/s, 128 MB of managed memory).
        if (!conf.contains(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.USE_BLOOM_FILTER)) {
            conf.set(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
        }
        if (!conf.contains(org.apache.flink.state.rocksdb.RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS)) {
            conf.set(org.apache.flink.state.rocksdb.RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS, true);
        }
        // RocksDB's compactions run on one thread pool per process, sized by the largest compaction share of any
        // instance in it: Flink's default of 2 background jobs gives each instance one compaction (and one flush),
        // so every hop copy of a TaskManager compacted one after another, during the load and after it. 4 jobs give
        // three compaction threads: R-MAT 2^20's compaction after the load took 9-15 s instead of 15-22 s (p=1).
        if (!conf.contains(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS)) {
            conf.set(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS, 4);
        }
        // LZ4 instead of Flink's Snappy: the load writes the adjacency through several compactions and a cold read
        // decompresses a block. R-MAT 2^20 (p=1): load 41-46 s instead of 57-61 s, the compaction after it 7 s instead
        // of 18-20 s (summed), checkpoints 589 MB instead of 600 MB, the first epoch's sampling no slower.
        if (!conf.contains(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL)) {
            conf.set(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL,
                    java.util.List.of(org.rocksdb.CompressionType.LZ4_COMPRESSION));
        }
    }

    /** Adds the job's operators to env: source -> keyBy(batch) -> sampler -> sinks. */
    public static void build(StreamExecutionEnvironment env, FanoutJobConfig config, BatchPlan plan) {
        try {
            build(env, config, plan, null);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * As above; {@code nodes} is the graph's id map from the client's scan (the partitioned store turns seed
     * indices into ids with it), or null when ids equal indices.
     */
    public static void build(StreamExecutionEnvironment env, FanoutJobConfig config, BatchPlan plan, NodeIdMap nodes)
            throws java.io.IOException {
        build(env, config, plan, nodes, null);
    }

    /** As above, with the seed edges of a link-prediction job (the plan's seeds are positions into them), or null. */
    public static void build(StreamExecutionEnvironment env, FanoutJobConfig config, BatchPlan plan, NodeIdMap nodes,
            LinkSeeds links) throws java.io.IOException {
        build(env, config, plan, nodes, links, null);
    }

    /**
     * As above; with {@code seedFile} (a partitioned job's seed file, the plan's seeds {@code SeedSet.counted} of it)
     * the TaskManagers read the seeds and a stage keyed by batch assembles the batches.
     */
    static void build(StreamExecutionEnvironment env, FanoutJobConfig config, BatchPlan plan, NodeIdMap nodes,
            LinkSeeds links, SeedFile seedFile) throws java.io.IOException {
        build(env, config, plan, nodes, links, seedFile, null);
    }

    /** As above, with a plain graph's ABLP label edges (positive, then negative or null), or null. */
    static void build(StreamExecutionEnvironment env, FanoutJobConfig config, BatchPlan plan, NodeIdMap nodes,
            LinkSeeds links, SeedFile seedFile, SupervisionEdges[] plainLabels) throws java.io.IOException {
        if (config.parallelism != null) {
            env.setParallelism(config.parallelism);
        }

        boolean partitioned = config.store == StoreType.PARTITIONED;
        // A partitioned job's graph operators keep fixed uids (a later job can start from a savepoint of the
        // loaded graph); its batch path's uids carry the run's fingerprint, so such a job starts its own seed
        // plan fresh instead of continuing the saved one (an unchanged job still restores its own state).
        String runTag = partitioned ? "@" + runFingerprint(config, plan) : "";
        DataStream<SeedBatch> batches = config.partitionedLoadOnly
                ? env.fromSource(new NoBatchesSource(), WatermarkStrategy.noWatermarks(), "load-only")
                        .uid("load-only" + runTag)
                : seedFile != null && config.maxBatchesPerSecond > 0
                // Pacing needs whole batches over time; the seed file's readers are done in moments and, shuffled,
                // complete every batch only at an epoch's end. So a paced job's readers read each batch's seeds
                // by position from a local copy of the file.
                ? env.fromSource(new SeedBatchSource(plan, config.maxBatchesPerSecond, seedFile),
                        EpochWatermarks.strategy(), "seed-batches").uid("seed-batches" + runTag)
                : seedFile != null
                ? env.fromSource(new SeedFileSource(seedFile, plan), EpochWatermarks.forSlots(), "seed-file")
                        .uid("seed-file" + runTag)
                        .keyBy(SeedSlot::batchKey, Types.LONG)
                        .process(new SeedBatchAssembler(plan)).returns(SeedBatchSource.TYPE)
                        .name("seed-batches").uid("seed-assembler" + runTag)
                : env.fromSource(new SeedBatchSource(plan, config.maxBatchesPerSecond), EpochWatermarks.strategy(),
                        "seed-batches").uid("seed-batches" + runTag);
        long[] seedIds = nodes == null ? null : nodes.idsOrNull();
        DataStream<EncodedMessage> samples = partitioned && config.sampler == SamplerType.PPR
                ? PartitionedPpr.build(env, batches, config.graphSpec(), seedIds, config.alpha, config.eps,
                        config.maxPprNodes, config.pprMaxNeighbors, config.residualTopUp, config.seed,
                        config.pprMaxFetchIterations, config.partitionedBucketSize, runTag, graphUpdateLines(env, config),
                        plan.shares())
                : partitioned && config.typed != null
                ? PartitionedTypedKHop.build(env, batches, config.graphSpec(), config.typed.fanouts,
                        config.typed.seedType, config.replace, config.seed, seedIds, config.partitionedBucketSize,
                        config.partitionedCacheBytes, config.partitionedCompactAfterLoad, runTag, plan.shares())
                : partitioned
                ? PartitionedKHop.build(env, batches, config.graphSpec(), config.fanouts, config.replace, config.seed,
                        seedIds, config.partitionedBucketSize, config.partitionedCacheBytes,
                        config.partitionedCompactAfterLoad, runTag,
                        graphUpdateLines(env, config), plan.shares())
                : batches
                .keyBy(new BatchKey(), Types.LONG)
                .process(withSeedTimes(withPlainLabels(samplingFunction(config, links), plainLabels),
                        plan.seeds().times()).withTrainers(plan.shares()))
                .returns(TypeInformation.of(EncodedMessage.class))
                .name(config.sampler + "-sampler")
                .uid("sampler");

        boolean anySink = false;
        if (config.output != null) {
            String dir = absoluteLocalPath(config.output); // the sink releases the run lock once it has committed all
            samples.sinkTo(ReleasingFileSink.of(SamplesFileSink.create(dir), dir)).name("samples-files").uid("samples-files" + runTag);
            anySink = true;
        }
        if (config.shm != null) {
            // Trainers on this host read memory-mapped rings instead of TCP (docs/shm-ring.md).
            samples.sinkTo(new ShmChannelSink(config.shm)).name("channel-shm").uid("channel-shm" + runTag);
            anySink = true;
        } else if (config.serve) {
            // The partitioned store's messages complete in any epoch order; the memory store's samplers emit
            // them in epoch order (GraphSamplingFunction), which lets an endpoint end an epoch without waiting
            // for a watermark stuck behind its own full queue.
            ChannelSink sink = partitioned ? new ChannelSink(config.channel)
                    : new ChannelSink(config.channel).withEpochOrderedInput();
            samples.sinkTo(sink)
                    .name("channel").uid("channel" + runTag);
            anySink = true;
        }
        if (!anySink) {
            // No destination: sample and count only (a dry run that still reports throughput).
            samples.sinkTo(new DiscardingSink<>()).name("discard").uid("discard" + runTag);
        }
    }

    /**
     * The layout of the partitioned PPR rounds' keyed state (the batch push state). Part of a PPR run's fingerprint,
     * so a savepoint taken mid-epoch by a jar with another layout is not read as this one's: its sampling state does
     * not match (restore with --allowNonRestoredState to start the epochs over on the graph it holds). Layout 2:
     * pushes settled as they finish; 3: each batch's graph version, and neighbour degrees answered apart (updates).
     */
    static final String PPR_STATE_LAYOUT = "ppr state 3";

    /**
     * What decides a partitioned run's messages besides the graph (the batch plan, fanouts, replacement, seed; for
     * PPR its options and state layout): the uid suffix of every per-run operator.
     */
    static String runFingerprint(FanoutJobConfig config, BatchPlan plan) {
        String run = plan.fingerprint() + "|" + java.util.Arrays.toString(config.fanouts) + "|" + config.replace
                + "|" + config.seed + "|" + config.partitionedLoadOnly;
        if (config.typed != null) {
            java.util.TreeMap<String, String> fanouts = new java.util.TreeMap<>();
            config.typed.fanouts.forEach((type, f) -> fanouts.put(type, java.util.Arrays.toString(f)));
            run += "|typed " + config.typed.seedType + " " + fanouts;
        }
        if (config.sampler == SamplerType.PPR) {
            // A batch restored mid-push must finish with the options it started with.
            run += "|ppr " + config.alpha + " " + config.eps + " " + config.maxPprNodes + " " + config.residualTopUp
                    + " " + config.pprMaxFetchIterations + "|" + PPR_STATE_LAYOUT;
        }
        return io.fanout.digest.Sha256.hex(run, 16);
    }

    /** The graph-update lines of --graph-updates or --graph-updates-socket, or null for a fixed graph. */
    private static DataStream<io.fanout.flink.updates.UpdateLine> graphUpdateLines(StreamExecutionEnvironment env,
            FanoutJobConfig config) {
        if (config.graphUpdates != null) {
            return io.fanout.flink.updates.GraphUpdateSources.directory(env, config.graphUpdates, config.graphUpdatesInterval);
        }
        if (config.graphUpdatesHost != null) {
            return io.fanout.flink.updates.GraphUpdateSources.socket(env, config.graphUpdatesHost, config.graphUpdatesPort);
        }
        return null;
    }

    /** The k-hop operator gets the seed file's times (by input position) for temporal sampling. */
    private static GraphSamplingFunction withSeedTimes(GraphSamplingFunction function, long[] times) {
        if (times != null && function instanceof HeteroKHopSamplingFunction) {
            return ((HeteroKHopSamplingFunction) function).seedTimes(times);
        }
        return times != null && function instanceof KHopSamplingFunction
                ? ((KHopSamplingFunction) function).seedTimes(times) : function;
    }

    /** The k-hop operator of a plain graph gets its ABLP label edges (none: unchanged). */
    private static GraphSamplingFunction withPlainLabels(GraphSamplingFunction function, SupervisionEdges[] labels) {
        return labels == null ? function : ((KHopSamplingFunction) function).withAblp(labels[0], labels[1]);
    }

    /**
     * A plain graph's ABLP label edges: --ablp-positive-edges and --ablp-negative-edges (or null) read against the
     * graph's node ids; a bad row names the option, the file and the line; a negative label edge that is also a
     * positive one is refused, naming both options and the edge.
     */
    static SupervisionEdges[] plainLabelEdges(FanoutJobConfig config, NodeIdMap ids) throws java.io.IOException {
        SupervisionEdges positive = labelEdges(FanoutOptions.ABLP_POSITIVE_EDGES, config.ablpPositiveEdges, ids,
                SupervisionEdges.HOMOGENEOUS_POSITIVE);
        SupervisionEdges negative = config.ablpNegativeEdges == null ? null : labelEdges(
                FanoutOptions.ABLP_NEGATIVE_EDGES, config.ablpNegativeEdges, ids, SupervisionEdges.HOMOGENEOUS_NEGATIVE);
        int[] both = negative == null ? null : negative.firstSharedEdge(positive);
        if (both != null) {
            throw new ConfigException("Invalid value '" + config.ablpNegativeEdges + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.ABLP_NEGATIVE_EDGES) + ": its edge " + ids.id(both[0])
                    + " -> " + ids.id(both[1]) + " is also a positive label edge ("
                    + FanoutJobConfig.name(FanoutOptions.ABLP_POSITIVE_EDGES) + " " + config.ablpPositiveEdges + ")");
        }
        return new SupervisionEdges[] {positive, negative};
    }

    private static SupervisionEdges labelEdges(org.apache.flink.configuration.ConfigOption<String> option,
            java.nio.file.Path file, NodeIdMap ids, io.fanout.graph.typed.EdgeType type) throws java.io.IOException {
        try {
            return SupervisionEdges.read(file, ids, type);
        } catch (io.fanout.graph.GraphFormatException e) {
            throw new ConfigException("Invalid value '" + file + "' for option " + FanoutJobConfig.name(option) + ": "
                    + e.getMessage(), e);
        }
    }

    /** ABLP's batches on a plain graph: the anchors of --seeds, or by default every node with a positive label. */
    static BatchPlan anchorPlan(FanoutJobConfig config, NodeIdMap ids, SupervisionEdges positives)
            throws java.io.IOException {
        if (config.seeds != null) {
            return batchPlan(config, ids);
        }
        return planOver(config, SeedSet.of(ids.size(), positives.anchors()));
    }

    /** The keyed sampling operator of the configured sampler. */
    static GraphSamplingFunction samplingFunction(FanoutJobConfig config) {
        return samplingFunction(config, null);
    }

    /** As above, over link seeds when {@code links} is not null (a typed graph). */
    static GraphSamplingFunction samplingFunction(FanoutJobConfig config, LinkSeeds links) {
        GraphSamplingFunction function = samplerFor(config);
        if (links != null && function instanceof HeteroKHopSamplingFunction) {
            ((HeteroKHopSamplingFunction) function).withLinkSeeds(links, config.negSampling, config.negAmount);
        } else if (links != null) {
            ((KHopSamplingFunction) function).withLinkSeeds(links, config.negSampling, config.negAmount);
        }
        if (config.typed != null && config.typed.ablpPositive != null) {
            ((HeteroKHopSamplingFunction) function).withAblp(config.typed.ablpPositive, config.typed.ablpNegative);
        }
        return function.onSamplingError(config.onSamplingError == io.fanout.config.OnSamplingError.FAIL,
                config.injectedSamplingErrors);
    }

    private static GraphSamplingFunction samplerFor(FanoutJobConfig config) {
        switch (config.sampler) {
            case PPR:
                if (config.typed != null) {
                    return new TypedPprSamplingFunction(config.graphSpec(), config.typed.seedType,
                            config.typed.pprChannels, config.alpha, config.eps, config.maxPprNodes,
                            config.pprMaxNeighbors, config.residualTopUp, config.typed.includeSampledEdges, config.seed);
                }
                return new PprSamplingFunction(config.graphSpec(), config.alpha, config.eps,
                        config.maxPprNodes, config.pprMaxNeighbors, config.residualTopUp, config.seed);
            case KHOP:
            default:
                if (config.typed != null) {
                    return new HeteroKHopSamplingFunction(config.graphSpec(), config.typed.fanouts, config.typed.seedType,
                            config.replace, config.seed).disjoint(config.disjoint)
                            .temporal(config.seedTime, config.temporalLast).subgraphType(config.subgraphType);
                }
                return new KHopSamplingFunction(config.graphSpec(), config.fanouts, config.replace, config.seed)
                        .disjoint(config.disjoint).temporal(config.seedTime, config.temporalLast)
                        .subgraphType(config.subgraphType);
        }
    }

    /**
     * ABLP's batches: the anchors of --seeds, or by default every node with a positive label edge (in id order).
     * A negative label edge that is also a positive one is refused, naming both options and the edge.
     */
    static BatchPlan anchorPlan(FanoutJobConfig config, TypedGraphStore typed) throws java.io.IOException {
        TypedGraphOptions options = config.typed;
        NodeIdMap anchorIds = typed.nodeIds(options.ablpPositive.src());
        SupervisionEdges positives = SupervisionEdges.of(typed.adjacency().get(options.ablpPositive), anchorIds.size());
        if (options.ablpNegative != null) {
            SupervisionEdges negatives = SupervisionEdges.of(typed.adjacency().get(options.ablpNegative),
                    anchorIds.size());
            int[] both = negatives.firstSharedEdge(positives);
            if (both != null) {
                throw new ConfigException("Invalid value '" + options.ablpNegative + "' for option "
                        + FanoutJobConfig.name(FanoutOptions.ABLP_NEGATIVE_TYPE) + ": its edge " + anchorIds.id(both[0])
                        + " -> " + typed.nodeIds(options.ablpPositive.dst()).id(both[1]) + " is also a positive label"
                        + " edge (" + FanoutJobConfig.name(FanoutOptions.ABLP_POSITIVE_TYPE) + " "
                        + options.ablpPositive + ")");
            }
        }
        if (config.seeds != null) {
            return batchPlan(config, anchorIds);
        }
        int[] anchors = positives.anchors();
        if (anchors.length == 0) {
            throw new ConfigException("Invalid value '" + options.ablpPositive + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.ABLP_POSITIVE_TYPE) + ": it has no edges, so no anchors");
        }
        return planOver(config, SeedSet.of(anchorIds.size(), anchors)); // anchors are node indices of the graph
    }

    /** The node types whose ids a typed job's client needs: the seed type, and the link seeds' two types. */
    private static java.util.Set<String> typedSeedTypes(FanoutJobConfig config) {
        java.util.Set<String> types = new java.util.TreeSet<>();
        types.add(config.typed.seedType);
        if (config.typed.linkType != null) {
            types.add(config.typed.linkType.src());
            types.add(config.typed.linkType.dst());
        }
        return types;
    }

    /**
     * The seed edges of --link-seeds as node indices of a plain graph (its ids from the client's streaming scan); a
     * bad row fails naming the option, the file and the line.
     */
    static LinkSeeds plainLinkSeeds(FanoutJobConfig config) throws java.io.IOException {
        NodeIdMap ids = GraphStore.scanNodeIds(config.graphSpec());
        try {
            return checkSeedEdgeTimes(config, LinkSeeds.readPlain(config.linkSeeds, ids));
        } catch (io.fanout.graph.GraphFormatException e) {
            throw new ConfigException("Invalid value '" + config.linkSeeds + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.LINK_SEEDS) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Temporal link prediction (plain or typed) needs every seed edge's time (the file's third column), and a time
     * column without --time-column is refused rather than ignored.
     */
    private static LinkSeeds checkSeedEdgeTimes(FanoutJobConfig config, LinkSeeds links) {
        if (config.timeColumn != null && !links.hasTimes()) {
            throw new ConfigException("Invalid value '" + config.linkSeeds + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.LINK_SEEDS) + ": temporal link prediction ("
                    + FanoutJobConfig.name(FanoutOptions.TIME_COLUMN) + ") needs each seed edge's time as a third"
                    + " column, src<TAB>dst<TAB>time");
        }
        if (config.timeColumn == null && links.hasTimes()) {
            throw new ConfigException("Invalid value '" + config.linkSeeds + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.LINK_SEEDS) + ": its third column is each seed edge's"
                    + " time, which needs " + FanoutJobConfig.name(FanoutOptions.TIME_COLUMN)
                    + " (temporal link prediction); drop the column to sample without times");
        }
        return links;
    }

    /** The seed edges of --link-seeds as node indices of the typed graph; a bad row fails naming the option. */
    static LinkSeeds linkSeeds(FanoutJobConfig config, Map<String, NodeIdMap> typedIds) throws java.io.IOException {
        try {
            TypedGraphOptions options = config.typed;
            LinkSeeds links = LinkSeeds.read(options.linkSeeds, options.linkType,
                    typedIds.get(options.linkType.src()), typedIds.get(options.linkType.dst()));
            return checkSeedEdgeTimes(config, links);
        } catch (io.fanout.graph.GraphFormatException e) {
            throw new ConfigException("Invalid value '" + config.typed.linkSeeds + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.LINK_SEEDS) + ": " + e.getMessage(), e);
        }
    }

    /**
     * A plain local path made absolute on the client, so it means the same directory on a cluster's
     * TaskManagers (whose working directory differs); URIs (file:, s3:, hdfs:) are kept as given.
     */
    static String absoluteLocalPath(String path) {
        if (path.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*")) {
            return path;
        }
        return java.nio.file.Path.of(path).toAbsolutePath().normalize().toString();
    }

    /**
     * A partitioned job given its seeds: the client reads the seed option only, never the graph (which the
     * TaskManagers load, checking every line), so nothing on the client grows with the graph.
     */
    static boolean partitionedSeeds(FanoutJobConfig config) {
        // A typed graph's client has the seed type's ids from its scan and checks the seeds against them, as the
        // memory store's client does.
        return config.store == StoreType.PARTITIONED && config.seeds != null && config.typed == null;
    }

    /**
     * A partitioned job's seed file, indexed in one streaming pass that checks every line (16 bytes per chunk kept,
     * never the seeds), or null when the job is not partitioned or its seeds are a comma list.
     */
    static SeedFile partitionedSeedFile(FanoutJobConfig config) throws java.io.IOException {
        java.nio.file.Path file = partitionedSeeds(config) ? java.nio.file.Path.of(config.seeds.trim()) : null;
        if (file == null || !java.nio.file.Files.isRegularFile(file)) {
            return null;
        }
        try {
            SeedFile seeds = SeedFile.index(file, config.partitionedSeedChunk);
            LOG.info("--store partitioned: {} (read by the TaskManagers; the client keeps no seed)", seeds);
            return seeds;
        } catch (IllegalArgumentException | java.io.IOException e) {
            throw invalidSeeds(config, e);
        }
    }

    /**
     * For a partitioned job whose seeds are every node (no {@code --seeds}): the graph's node ids, found by
     * the client's streaming scan (which checks every row) with sorted runs spilled to disk, so its heap does not
     * grow with the graph; null for any other job.
     */
    static NodeIdFile.NodeIds partitionedNodeIds(FanoutJobConfig config) throws java.io.IOException {
        if (config.store != StoreType.PARTITIONED || config.seeds != null) {
            return null;
        }
        java.nio.file.Path dir = config.partitionedNodeIdsDir != null
                ? io.fanout.config.DirectoryChecks.localPath(config.partitionedNodeIdsDir)
                : java.nio.file.Path.of(System.getProperty("java.io.tmpdir"));
        return NodeIdFile.write(config.graphSpec(), dir.toAbsolutePath());
    }

    /** The seed file of every node id the client wrote: its plan reads as a --seeds file's would. */
    private static SeedFile nodeIdSeedFile(FanoutJobConfig config, java.nio.file.Path file) throws java.io.IOException {
        SeedFile seeds = SeedFile.index(file, config.partitionedSeedChunk);
        LOG.info("--store partitioned without {}: every node is a seed; the TaskManagers read {}",
                FanoutJobConfig.name(FanoutOptions.SEEDS), seeds);
        return seeds;
    }

    private static NodeIdMap identityOf(NodeIdFile.NodeIds ids) {
        if (ids.numNodes() > NodeIdMap.MAX_NODES) {
            throw new IllegalArgumentException(ids.numNodes() + " nodes are more than the " + NodeIdMap.MAX_NODES
                    + " a job plans batches for");
        }
        return NodeIdMap.identity((int) ids.numNodes());
    }

    /** The batch plan over a seed file the TaskManagers read; bad batch options fail naming the option. */
    private static BatchPlan seedFilePlan(FanoutJobConfig config, SeedFile file) {
        return planOver(config, SeedSet.counted(file));
    }

    /** The ids the seed option names (see {@link SeedSet#idsNamed}); a bad line fails naming the option. */
    private static NodeIdMap seedIdsNamed(FanoutJobConfig config) throws java.io.IOException {
        try {
            NodeIdMap ids = SeedSet.idsNamed(config.seeds);
            LOG.info("--store partitioned: {} distinct seed ids from {} (the graph is not read on the client)",
                    ids.size(), FanoutJobConfig.name(FanoutOptions.SEEDS));
            return ids;
        } catch (IllegalArgumentException | java.io.IOException e) {
            throw invalidSeeds(config, e);
        }
    }

    /** The seeds and their batches; bad seeds or batch options fail here, naming the option. */
    static BatchPlan batchPlan(FanoutJobConfig config, NodeIdMap nodes) throws java.io.IOException {
        SeedSet seeds;
        try {
            seeds = config.seeds == null ? SeedSet.allNodes(nodes.size()) : SeedSet.parse(config.seeds, nodes);
        } catch (IllegalArgumentException | java.io.IOException e) {
            throw invalidSeeds(config, e);
        }
        checkSeedTimes(config, seeds);
        return planOver(config, seeds);
    }

    /** The loader options applied to {@code seeds}; bad batch options fail naming the option. */
    private static BatchPlan planOver(FanoutJobConfig config, SeedSet seeds) {
        int full = seeds.size() / config.batchSize;
        if (config.dropLast && full > 0 && full < config.trainers) {
            // Only now is the seed count known; the plan would refuse too, without the options' full names.
            throw new ConfigException("Invalid value '" + config.trainers + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.TRAINERS) + " with " + FanoutJobConfig.name(FanoutOptions.DROP_LAST)
                    + ": the " + seeds.size() + " seeds make " + full + " full batches of " + config.batchSize
                    + ", fewer than one per trainer, so drop-last would leave every epoch empty; lower"
                    + " --batch-size or --trainers, or unset --drop-last to pad instead");
        }
        try {
            return new BatchPlan(seeds, config.batchSize, config.shuffle, config.dropLast, config.epochs, config.seed,
                    config.trainers, config.startEpoch);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage(), e);
        }
    }

    private static ConfigException invalidSeeds(FanoutJobConfig config, Exception e) {
        // SeedSet's messages name the value already; an I/O failure's message is just the path again.
        String why = e instanceof java.nio.file.NoSuchFileException
                ? "no such file, and not a comma list of node ids such as 1,5,9"
                : e instanceof java.io.IOException ? ConfigException.reason((java.io.IOException) e) : e.getMessage();
        return new ConfigException("Invalid value '" + config.seeds + "' for option "
                + FanoutJobConfig.name(FanoutOptions.SEEDS) + ": " + why, e);
    }

    /** Temporal sampling needs one seed time source: --seed-time, or a second column in the seed file. */
    private static void checkSeedTimes(FanoutJobConfig config, SeedSet seeds) {
        boolean fileTimes = seeds.times() != null;
        if (config.linkSeeds != null) {
            return; // link batches take their times from the link-seed file (checked when it is read)
        }
        if (config.timeColumn != null && config.seedTime == null && !fileTimes) {
            throw new ConfigException("Option " + FanoutJobConfig.name(FanoutOptions.TIME_COLUMN) + " needs seed times: "
                    + FanoutJobConfig.name(FanoutOptions.SEED_TIME) + " for every seed, or a seed file of id<TAB>time lines ("
                    + FanoutJobConfig.name(FanoutOptions.SEEDS) + ")");
        }
        if (fileTimes && (config.timeColumn == null || config.seedTime != null)) {
            throw new ConfigException("Invalid value '" + config.seeds + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.SEEDS) + ": the seed file gives seed times, which need "
                    + FanoutJobConfig.name(FanoutOptions.TIME_COLUMN) + " and exclude "
                    + FanoutJobConfig.name(FanoutOptions.SEED_TIME));
        }
    }

    /** Keys the sampler by (epoch, batch id). */
    static final class BatchKey implements KeySelector<SeedBatch, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(SeedBatch batch) {
            return batch.key();
        }
    }
}
