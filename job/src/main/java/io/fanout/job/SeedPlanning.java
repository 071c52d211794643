package io.fanout.job;

import io.fanout.batch.BatchPlan;
import io.fanout.batch.SeedFile;
import io.fanout.batch.SeedSet;
import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.config.FanoutOptions;
import io.fanout.config.StoreType;
import io.fanout.config.TypedGraphOptions;
import io.fanout.graph.NodeIdMap;
import io.fanout.store.NodeIdFile;
import io.fanout.store.GraphStore;
import io.fanout.store.TypedGraphStore;
import io.fanout.sampling.link.LinkSeeds;
import io.fanout.sampling.link.SupervisionEdges;
import java.util.Map;
import org.apache.flink.configuration.ConfigOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


/**
 * Seed planning on the submitting client: which seeds, anchors or seed edges a job takes, checked against the
 * graph's ids without loading the graph, and their batch plan.
 */
final class SeedPlanning {
    private static final Logger LOG = LoggerFactory.getLogger(SeedPlanning.class);

    private SeedPlanning() {}

    /**
     * ABLP's label edges as the client reads them: the positive (and negative, or null) label edges indexed by anchor,
     * and the label node type's ids by index ({@code labelIds}, null when they equal the indices).
     */
    record AnchorLabelEdges(SupervisionEdges positive, SupervisionEdges negative, long[] labelIds) {}

    /**
     * A plain graph's ABLP label edges: --ablp-positive-edges and --ablp-negative-edges (or null) read against the
     * graph's node ids; a bad row names the option, the file and the line; a negative label edge that is also a
     * positive one is refused, naming both options and the edge.
     */
    static AnchorLabelEdges plainLabelEdges(FanoutJobConfig config, NodeIdMap ids) throws java.io.IOException {
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
        return new AnchorLabelEdges(positive, negative, ids.idsOrNull());
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

    /**
     * A typed graph's ABLP label edges: the files of --ablp-positive-type (and --ablp-negative-type) read alone
     * against the ids of the client's scan ({@link #typedSeedTypes} includes both of their node types), so the client
     * never holds the graph. A positive type without edges (without --seeds: no default anchors), or a negative label
     * edge that is also a positive one, is refused naming the options (and the edge).
     */
    static AnchorLabelEdges typedLabelEdges(FanoutJobConfig config, Map<String, NodeIdMap> typedIds)
            throws java.io.IOException {
        TypedGraphOptions options = config.typed;
        NodeIdMap anchorIds = typedIds.get(options.ablpPositive.src());
        NodeIdMap labelIds = typedIds.get(options.ablpPositive.dst());
        SupervisionEdges positives = SupervisionEdges.of(
                TypedGraphStore.readEdgeType(config.graphSpec(), options.ablpPositive, typedIds), anchorIds.size());
        if (config.seeds == null && positives.anchors().length == 0) { // the default anchors: none
            throw new ConfigException("Invalid value '" + options.ablpPositive + "' for option "
                    + FanoutJobConfig.name(FanoutOptions.ABLP_POSITIVE_TYPE) + ": it has no edges, so no anchors");
        }
        SupervisionEdges negatives = null;
        if (options.ablpNegative != null) {
            negatives = SupervisionEdges.of(
                    TypedGraphStore.readEdgeType(config.graphSpec(), options.ablpNegative, typedIds), anchorIds.size());
            int[] both = negatives.firstSharedEdge(positives);
            if (both != null) {
                throw new ConfigException("Invalid value '" + options.ablpNegative + "' for option "
                        + FanoutJobConfig.name(FanoutOptions.ABLP_NEGATIVE_TYPE) + ": its edge " + anchorIds.id(both[0])
                        + " -> " + labelIds.id(both[1]) + " is also a positive label edge ("
                        + FanoutJobConfig.name(FanoutOptions.ABLP_POSITIVE_TYPE) + " " + options.ablpPositive + ")");
            }
        }
        return new AnchorLabelEdges(positives, negatives, labelIds.idsOrNull());
    }

    /**
     * ABLP's batches: the anchors of --seeds ({@code anchorIds}: the anchor type's ids), or by default every node with
     * a positive label edge, in index order.
     */
    static BatchPlan anchorPlan(FanoutJobConfig config, NodeIdMap anchorIds, SupervisionEdges positives)
            throws java.io.IOException {
        if (config.seeds != null) {
            return batchPlan(config, anchorIds);
        }
        return planOver(config, SeedSet.of(anchorIds.size(), positives.anchors()));
    }

    /** The node types whose ids a typed job's client needs: the seed type, ABLP's label type, link seeds' types. */
    static java.util.Set<String> typedSeedTypes(FanoutJobConfig config) {
        java.util.Set<String> types = new java.util.TreeSet<>();
        types.add(config.typed.seedType);
        if (config.typed.ablpPositive != null) { // the anchors' (seed) type and the label nodes' type
            types.add(config.typed.ablpPositive.dst());
        }
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
        // memory store's client does; so has a plain ABLP job's (its anchors' label edges are read against them).
        return config.store == StoreType.PARTITIONED && config.seeds != null && config.typed == null
                && config.ablpPositiveEdges == null;
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
        return NodeIdFile.write(config.graphSpec(), nodeIdsDir(config));
    }

    /** Where the client writes node-id files: {@code --partitioned.node-ids-dir}, else the JVM's temporary directory. */
    private static java.nio.file.Path nodeIdsDir(FanoutJobConfig config) {
        java.nio.file.Path dir = config.partitionedNodeIdsDir != null
                ? io.fanout.config.DirectoryChecks.localPath(config.partitionedNodeIdsDir)
                : java.nio.file.Path.of(System.getProperty("java.io.tmpdir"));
        return dir.toAbsolutePath();
    }

    /**
     * A partitioned link job's negatives ({@code --neg-sampling}): drawn as node indices of the graph the seed edges
     * were read against, as the memory store's. A typed graph's two end types' ids go with the job (as its seed
     * type's do); a plain graph's sparse ids reach the TaskManagers as the graph's node-id file ({@link NodeIdFile},
     * in index order), which each negatives subtask copies to read by index. Null without negatives.
     */
    static io.fanout.flink.partitioned.StageOptions.LinkNegatives linkNegatives(FanoutJobConfig config, LinkSeeds links)
            throws java.io.IOException {
        if (config.negSampling == io.fanout.sampling.link.NegativeSampling.NONE) {
            return null;
        }
        if (config.typed != null) {
            // The two node types' ids from the client's scan go with the job, as the typed seed type's do.
            NodeIdMap src = links.srcIds();
            NodeIdMap dst = links.dstIds();
            return new io.fanout.flink.partitioned.StageOptions.LinkNegatives(config.negSampling, config.negAmount,
                    src.size(), dst.size(), null, src.idsOrNull(), dst.idsOrNull());
        }
        NodeIdMap ids = links.plainIds();
        SeedFile file = null;
        if (!ids.isIdentity()) { // written from the ids the client scanned, not by reading the graph again
            file = SeedFile.index(NodeIdFile.write(ids, nodeIdsDir(config)).file(), config.partitionedSeedChunk);
        }
        return io.fanout.flink.partitioned.StageOptions.LinkNegatives.plain(config.negSampling, config.negAmount,
                ids.size(), file);
    }

    /** The seed file of every node id the client wrote: its plan reads as a --seeds file's would. */
    static SeedFile nodeIdSeedFile(FanoutJobConfig config, java.nio.file.Path file) throws java.io.IOException {
        SeedFile seeds = SeedFile.index(file, config.partitionedSeedChunk);
        LOG.info("--store partitioned without {}: every node is a seed; the TaskManagers read {}",
                FanoutJobConfig.name(FanoutOptions.SEEDS), seeds);
        return seeds;
    }

    static NodeIdMap identityOf(NodeIdFile.NodeIds ids) {
        if (ids.numNodes() > NodeIdMap.MAX_NODES) {
            throw new IllegalArgumentException(ids.numNodes() + " nodes are more than the " + NodeIdMap.MAX_NODES
                    + " a job plans batches for");
        }
        return NodeIdMap.identity((int) ids.numNodes());
    }

    /**
     * The batch plan over a seed file the TaskManagers read; its seed times are checked against the options as a
     * client-read seed file's are; bad batch options fail naming the option.
     */
    static BatchPlan seedFilePlan(FanoutJobConfig config, SeedFile file) {
        checkSeedTimes(config, file.timed());
        return planOver(config, SeedSet.counted(file));
    }

    /** The ids the seed option names (see {@link SeedSet#idsNamed}); a bad line fails naming the option. */
    static NodeIdMap seedIdsNamed(FanoutJobConfig config) throws java.io.IOException {
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
        checkSeedTimes(config, seeds.times() != null);
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

    /**
     * Temporal sampling needs one seed time source: --seed-time, or a second column in the seed file ({@code
     * fileTimes}: the seed file gives times, whether the client or the TaskManagers read it).
     */
    private static void checkSeedTimes(FanoutJobConfig config, boolean fileTimes) {
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
}
