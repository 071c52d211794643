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
import io.fanout.connectors.typeinfo.EncodedMessageTypeInfo;
import io.fanout.flink.operator.AbstractKHopFunction;
import io.fanout.flink.operator.GraphSamplingFunction;
import io.fanout.flink.operator.HeteroKHopSamplingFunction;
import io.fanout.flink.operator.KHopSamplingFunction;
import io.fanout.flink.operator.PprSamplingFunction;
import io.fanout.flink.operator.TypedPprSamplingFunction;
import io.fanout.connectors.file.SamplesFileSink;
import io.fanout.flink.source.EpochWatermarks;
import io.fanout.config.SamplerType;
import io.fanout.flink.source.NoBatchesSource;
import io.fanout.config.StoreType;
import io.fanout.flink.partitioned.PartitionedKHop;
import io.fanout.flink.partitioned.PartitionedPpr;
import io.fanout.flink.partitioned.PartitionedTypedKHop;
import io.fanout.flink.partitioned.PartitionedTypedPpr;
import io.fanout.flink.partitioned.StageOptions;
import io.fanout.flink.source.SeedBatchSource;
import io.fanout.flink.source.SeedBatchAssembler;
import io.fanout.flink.source.SeedFileSource;
import io.fanout.graph.NodeIdMap;
import io.fanout.store.NodeIdFile;
import io.fanout.store.SharedGraphs;
import io.fanout.store.GraphStore;
import io.fanout.store.TypedGraphStore;
import io.fanout.sampling.link.LinkSeeds;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
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
        Configuration flinkConf = FlinkSettings.flinkConfiguration(config);
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
        try (SharedGraphs.Lease local = localGraph(env, config)) {
            return submit(env, config, output, local);
        }
    }

    /**
     * The graph of a memory-store job in the embedded MiniCluster, whose TaskManager is this JVM: the client's one
     * pass over the graph files is then the load itself (instead of a scan for the ids and the subtasks' load
     * during the job's start-up, 0.4 s each for ego_twitter_u), and the sampler subtasks find it in
     * {@link SharedGraphs}. Null elsewhere: a cluster's client never holds the graph.
     */
    private static SharedGraphs.Lease localGraph(StreamExecutionEnvironment env, FanoutJobConfig config)
            throws java.io.IOException {
        boolean plainMemory = config.store == StoreType.MEMORY && config.typed == null && config.linkSeeds == null
                && config.ablpPositiveEdges == null;
        return plainMemory && env instanceof LocalStreamEnvironment ? SharedGraphs.acquire(config.graphSpec()) : null;
    }

    /** As above, with the graph this JVM holds already (embedded MiniCluster) or null. */
    private static JobSummary submit(StreamExecutionEnvironment env, FanoutJobConfig config, OutputDirectory output,
            SharedGraphs.Lease local) throws Exception {
        // A typed graph: the client streams its files once for the seed type's ids (and ABLP's label type, the link
        // seeds' types), keeping those ids only.
        Map<String, NodeIdMap> typedIds = config.typed == null ? null
                : TypedGraphStore.scanNodeIds(config.graphSpec(), SeedPlanning.typedSeedTypes(config));
        LinkSeeds links = config.linkSeeds == null ? null
                : typedIds != null ? SeedPlanning.linkSeeds(config, typedIds) : SeedPlanning.plainLinkSeeds(config);
        // ABLP: the client reads the label edges only (its plan's default anchors need them: a plain graph's label
        // files, a typed graph's label edge types); the partitioned store's batch start gets them with the job.
        NodeIdMap plainIds = config.ablpPositiveEdges == null ? null : GraphStore.scanNodeIds(config.graphSpec());
        SeedPlanning.AnchorLabelEdges labels = plainIds != null ? SeedPlanning.plainLabelEdges(config, plainIds)
                : config.typed != null && config.typed.ablpPositive != null
                ? SeedPlanning.typedLabelEdges(config, typedIds) : null;
        // Link batches are positions into the seed edges, so the batch plan numbers those.
        SeedFile seedFile = SeedPlanning.partitionedSeedFile(config);
        // A link job's seeds are its seed edges, an ABLP job's its anchors, by the ids the client read: no node-id
        // file.
        NodeIdFile.NodeIds allNodes = seedFile == null && typedIds == null && links == null && plainIds == null
                ? SeedPlanning.partitionedNodeIds(config) : null;
        if (allNodes != null && !allNodes.identity()) {
            seedFile = SeedPlanning.nodeIdSeedFile(config, allNodes.file());
        }
        NodeIdMap nodes = seedFile != null ? null
                : links != null ? NodeIdMap.identity(links.size())
                : typedIds != null ? typedIds.get(config.typed.seedType)
                : plainIds != null ? plainIds
                : allNodes != null ? SeedPlanning.identityOf(allNodes)
                : SeedPlanning.partitionedSeeds(config) ? SeedPlanning.seedIdsNamed(config)
                : local != null ? local.graph().ids() : GraphStore.scanNodeIds(config.graphSpec());
        BatchPlan plan = seedFile != null ? SeedPlanning.seedFilePlan(config, seedFile)
                : labels != null ? SeedPlanning.anchorPlan(config, nodes, labels.positive())
                : SeedPlanning.batchPlan(config, nodes);
        build(env, config, plan, nodes, links, seedFile, labels);
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

    /**
     * As above, with ABLP's label edges as the client read them, or null (the partitioned store's batch start gets
     * them; the memory store's plain k-hop operator gets a plain graph's, its typed one reads the label types itself).
     */
    static void build(StreamExecutionEnvironment env, FanoutJobConfig config, BatchPlan plan, NodeIdMap nodes,
            LinkSeeds links, SeedFile seedFile, SeedPlanning.AnchorLabelEdges labels) throws java.io.IOException {
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
                        .process(new SeedBatchAssembler(plan, seedFile.timed())).returns(SeedBatchSource.TYPE)
                        .name("seed-batches").uid("seed-assembler" + runTag)
                : env.fromSource(new SeedBatchSource(plan, config.maxBatchesPerSecond), EpochWatermarks.strategy(),
                        "seed-batches").uid("seed-batches" + runTag);
        long[] seedIds = nodes == null ? null : nodes.idsOrNull();
        StageOptions stage = partitioned ? stageOptions(env, config, seedIds, runTag, plan.shares(),
                seedTimes(config, links != null ? links.times() : plan.seeds().times()),
                links != null ? links.endpointIds() : null,
                links != null ? SeedPlanning.linkNegatives(config, links) : null, labels)
                : null;
        DataStream<EncodedMessage> samples = partitioned && config.sampler == SamplerType.PPR && config.typed != null
                ? PartitionedTypedPpr.build(env, batches, config.graphSpec(), stage)
                : partitioned && config.sampler == SamplerType.PPR
                ? PartitionedPpr.build(env, batches, config.graphSpec(), stage)
                : partitioned && config.typed != null
                ? PartitionedTypedKHop.build(env, batches, config.graphSpec(), stage)
                : partitioned
                ? PartitionedKHop.build(env, batches, config.graphSpec(), stage)
                : batches
                .keyBy(new BatchKey(), Types.LONG)
                .process(withSeedTimes(withPlainLabels(samplingFunction(config, links),
                        config.typed == null ? labels : null),
                        plan.seeds().times()).withTrainers(plan.shares()).borrowingMessages())
                .returns(EncodedMessageTypeInfo.TYPE) // borrowed messages (GraphSamplingFunction#emit)
                .name(config.sampler + "-sampler")
                .uid("sampler");

        boolean anySink = false;
        if (config.output != null) {
            String dir = SeedPlanning.absoluteLocalPath(config.output); // the sink releases the run lock once it has committed all
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

    /** A file's path, size and modification time, for a run fingerprint. */
    private static String fileStamp(java.nio.file.Path file) {
        java.nio.file.Path path = file.toAbsolutePath().normalize();
        try {
            return " " + path + " " + java.nio.file.Files.size(path) + " "
                    + java.nio.file.Files.getLastModifiedTime(path).toMillis();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * What decides a partitioned run's messages besides the graph (the batch plan, fanouts, replacement, seed; trees,
     * subgraph type, weights, times, the seed-edge file and negatives, the ABLP label files when set; for PPR its
     * options and state layout): the uid suffix of every per-run operator.
     */
    static String runFingerprint(FanoutJobConfig config, BatchPlan plan) {
        String run = plan.fingerprint() + "|" + java.util.Arrays.toString(config.fanouts) + "|" + config.replace
                + "|" + config.seed + "|" + config.partitionedLoadOnly;
        if (config.typed != null) {
            java.util.TreeMap<String, String> fanouts = new java.util.TreeMap<>();
            config.typed.fanouts.forEach((type, f) -> fanouts.put(type, java.util.Arrays.toString(f)));
            run += "|typed " + config.typed.seedType + " " + fanouts;
        }
        if (config.disjoint || config.subgraphType != io.fanout.sampling.SubgraphType.DIRECTIONAL
                || config.weightColumn != null) {
            // What a batch between its hops was started with (its trees, seed times, draws): a restored batch must
            // go on with the options it started with. Only when set: other runs keep the uids they had.
            run += "|" + config.disjoint + " " + config.subgraphType + " " + config.weightColumn + " "
                    + config.timeColumn + " " + config.seedTime + " " + config.temporalLast
                    + (plan.seeds().times() == null ? "" : " " + java.util.Arrays.hashCode(plan.seeds().times()));
        }
        if (config.withEdge && config.sampler == SamplerType.KHOP) {
            run += "|with-edge"; // a batch between its hops carries its edges' input rows
        }
        if (config.linkSeeds != null) {
            // A link plan's seeds are positions into the seed-edge file: another file is another run.
            run += "|links" + fileStamp(config.linkSeeds)
                    + (config.negSampling == io.fanout.sampling.link.NegativeSampling.NONE ? ""
                    : " negatives " + config.negSampling + " " + config.negAmount);
        }
        if (config.ablpPositiveEdges != null) {
            // An ABLP batch starts from its anchors' label nodes: other label files are another run.
            run += "|ablp" + fileStamp(config.ablpPositiveEdges)
                    + (config.ablpNegativeEdges == null ? "" : fileStamp(config.ablpNegativeEdges));
        }
        if (config.typed != null && config.typed.ablpPositive != null) {
            // A typed graph's label edge types are not in the partitioned store's saved graph: stamp their files.
            for (io.fanout.graph.typed.EdgeType type : config.typed.labelTypes()) {
                run += "|ablp " + type + fileStamp(config.typed.files.edges().get(type));
            }
        }
        if (config.sampler == SamplerType.PPR) {
            // A batch restored mid-push must finish with the options it started with.
            run += "|ppr " + config.alpha + " " + config.eps + " " + config.maxPprNodes + " " + config.residualTopUp
                    + " " + config.pprMaxFetchIterations + "|" + PPR_STATE_LAYOUT;
        }
        return io.fanout.digest.Sha256.hex(run, 16);
    }

    /**
     * Temporal sampling's seed times when the client knows them: {@code --seed-time} for every seed, or the client-read
     * seed file's {@code times} by input position; null otherwise (none, or a seed file the TaskManagers read, whose
     * batches carry their own).
     */
    static io.fanout.batch.SeedTimes seedTimes(FanoutJobConfig config, long[] times) {
        return config.seedTime != null ? io.fanout.batch.SeedTimes.every(config.seedTime)
                : times != null ? io.fanout.batch.SeedTimes.byInputPosition(times) : null;
    }

    /**
     * A partitioned stage's options from the job's ({@link StageOptions}: grouped and checked, not a long parameter
     * list), with temporal sampling's {@code seedTimes} ({@link #seedTimes}) and a link job's seed edges' ends
     * ({@code linkEnds}, or null) and their negatives ({@code linkNegatives}, or null), ABLP's label edges
     * ({@code labels}, or null); the graph updates' source is added to {@code env} here (a typed graph has none: its
     * stages refuse them).
     */
    static StageOptions stageOptions(StreamExecutionEnvironment env, FanoutJobConfig config, long[] seedIds,
            String runTag, io.fanout.batch.TrainerShares shares, io.fanout.batch.SeedTimes seedTimes,
            long[][] linkEnds, StageOptions.LinkNegatives linkNegatives, SeedPlanning.AnchorLabelEdges labels) {
        StageOptions.Builder o = StageOptions.builder()
                .seed(config.seed).seedIds(seedIds).runTag(runTag).shares(shares)
                .bucketSize(config.partitionedBucketSize).cacheBytes(config.partitionedCacheBytes)
                .compactAfterLoad(config.partitionedCompactAfterLoad)
                .fanouts(config.fanouts).replace(config.replace).subgraphType(config.subgraphType).disjoint(config.disjoint)
                .temporal(seedTimes, config.temporalLast).linkEnds(linkEnds).linkNegatives(linkNegatives)
                .linkType(linkEnds != null && config.typed != null ? config.typed.linkType : null)
                .ablp(labels == null ? null : labels.positive(), labels == null ? null : labels.negative(),
                        labels == null ? null : labels.labelIds())
                .alpha(config.alpha).eps(config.eps).maxPprNodes(config.maxPprNodes)
                .pprMaxNeighbors(config.pprMaxNeighbors).residualTopUp(config.residualTopUp)
                .pprRounds(config.pprMaxFetchIterations);
        if (config.typed != null) {
            o.seedType(config.typed.seedType).typedFanouts(config.typed.fanouts)
                    .pprChannels(config.typed.pprChannels).includeSampledEdges(config.typed.includeSampledEdges);
        } else {
            o.graphUpdates(graphUpdateLines(env, config));
        }
        return o.build();
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
        return times != null && function instanceof AbstractKHopFunction<?> khop ? khop.seedTimes(times) : function;
    }

    /** The k-hop operator of a plain graph gets its ABLP label edges (none: unchanged). */
    private static GraphSamplingFunction withPlainLabels(GraphSamplingFunction function,
            SeedPlanning.AnchorLabelEdges labels) {
        return labels == null ? function
                : ((KHopSamplingFunction) function).withAblp(labels.positive(), labels.negative());
    }

    /** The keyed sampling operator of the configured sampler. */
    static GraphSamplingFunction samplingFunction(FanoutJobConfig config) {
        return samplingFunction(config, null);
    }

    /** As above, over link seeds when {@code links} is not null (a typed graph). */
    static GraphSamplingFunction samplingFunction(FanoutJobConfig config, LinkSeeds links) {
        GraphSamplingFunction function = samplerFor(config);
        if (links != null) {
            ((AbstractKHopFunction<?>) function).withLinkSeeds(links, config.negSampling, config.negAmount);
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

    /** Keys the sampler by (epoch, batch id). */
    static final class BatchKey implements KeySelector<SeedBatch, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(SeedBatch batch) {
            return batch.key();
        }
    }
}
