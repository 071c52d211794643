package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.FeatureDType;
import io.fanout.features.NodeFeatures;
import io.fanout.features.NodeFileReader;
import io.fanout.flink.updates.UpdateLine;
import io.fanout.graph.EdgeUpdateParser;
import io.fanout.graph.GraphLoader;
import io.fanout.sampling.SubgraphType;
import io.fanout.store.GraphSpec;
import java.io.IOException;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Wires the partitioned k-hop dataflow: edge parts -> keyed adjacency (one copy per hop, each a keyed lookup
 * operator), seed batches -> start -> hop stages keyed by batch -> (with a node file: node-file parts -> keyed
 * node rows, one lookup per node of the batch, gathered by batch) -> messages. Unrolled for the configured hops
 * because a DataStream job has no cycles: each hop's lookup holds its own copy of the adjacency (RocksDB, so
 * on disk, not heap), the price of sampling hop by hop without iterations.
 */
public final class PartitionedKHop {
    private PartitionedKHop() {}

    /**
     * The messages of {@code batches}, sampled over the graph {@code spec} names with {@code o.fanouts()} (required),
     * {@code o.replace()}, {@code o.seed()} and the seed ids; lookups store {@code o.bucketSize()}-neighbour buckets
     * ({@link NeighborLookupOperator}) and cache {@code o.cacheBytes()} of heads (fixed graph only), compacted after
     * the load when {@code o.compactAfterLoad()} ({@link LoadCompaction}). With {@code o.graphUpdates()} one update
     * reader ({@link io.fanout.flink.updates.GraphUpdateSources}) feeds every hop's lookup and the batch start the
     * committed versions. {@code o.runTag()}: see {@link StageOptions#runTag}.
     */
    public static DataStream<EncodedMessage> build(StreamExecutionEnvironment env, DataStream<SeedBatch> batches,
            GraphSpec spec, StageOptions o) throws IOException {
        int[] fanouts = StageOptions.require(o.fanouts(), "fanout.fanout", "k-hop");
        boolean replace = o.replace();
        long seed = o.seed();
        long[] seedIds = o.seedIds();
        int bucketSize = o.bucketSize();
        boolean compactAfterLoad = o.compactAfterLoad();
        String runTag = o.runTag();
        DataStream<UpdateLine> updateLines = o.graphUpdates();
        boolean temporal = spec.timeColumn() != null;
        boolean disjoint = o.disjoint() || temporal; // temporal sampling is disjoint, as the memory store's (PyG's)
        if (temporal && updateLines != null) {
            throw new IllegalArgumentException("fanout.time-column is not implemented with graph updates in the"
                    + " partitioned store");
        }
        if (o.linkEnds() != null && updateLines != null) {
            throw new IllegalArgumentException("fanout.link-seeds is not implemented with graph updates in the"
                    + " partitioned store");
        }
        if (o.ablpPositive() != null && (updateLines != null || disjoint)) {
            throw new IllegalArgumentException("fanout.ablp-positive-edges is not implemented with "
                    + (disjoint ? "disjoint or temporal sampling" : "graph updates in the partitioned store"));
        }
        if (disjoint && updateLines != null) {
            throw new IllegalArgumentException("fanout.disjoint is not implemented with graph updates in the partitioned"
                    + " store (its versioned lookups draw per node, not per tree)");
        }
        boolean weighted = spec.weightColumn() != null;
        if (weighted && updateLines != null) {
            throw new IllegalArgumentException("fanout.weight-column is not implemented with graph updates in the"
                    + " partitioned store");
        }
        boolean withEdges = spec.withEdgeIds();
        boolean edgeWeights = edgeWeights(spec);
        if (withEdges && updateLines != null) {
            throw new IllegalArgumentException("fanout.with-edge is not implemented with graph updates in the"
                    + " partitioned store (an update has no input row)");
        }
        boolean induced = o.subgraphType() == SubgraphType.INDUCED;
        if (induced && (updateLines != null || disjoint)) {
            throw new IllegalArgumentException("fanout.subgraph-type induced is not implemented with "
                    + (disjoint ? "fanout.disjoint" : "graph updates") + " in the partitioned store");
        }
        // A fixed graph loads grouped per node, the groups each lookup subtask owns in one record per split
        // (EdgeGroupBatchFunction); with updates every edge is an update of version 0.
        DataStream<EdgeGroupBatch> edgeGroups = updateLines == null ? edgeGroupBatches(env, spec, "") : null;

        boolean nodeData = spec.nodeFeatures() != null;
        StageOptions.LinkNegatives negatives = o.linkNegatives();
        // The automatic cache size is shared by the cached lookups: one per hop, the node-data lookup, and the
        // whole-list copies of induced subgraphs and negatives.
        int cacheLookups = fanouts.length + (nodeData ? 1 : 0) + (induced ? 1 : 0) + (negatives != null ? 1 : 0);
        // The description of the loaded graph a savepoint holds; with updates the adjacency is versioned (another
        // state layout), so a savepoint of one kind never restores into the other.
        String saved = SavedGraphCheck.describe(spec, fanouts.length, bucketSize)
                + (induced ? ", a whole-list copy for induced subgraphs" : "")
                + (negatives != null ? ", a whole-list copy for negatives" : "")
                + (weighted ? ", weights of column " + spec.weightColumn() : "")
                + (temporal ? ", times of column " + spec.timeColumn() : "")
                + (withEdges ? ", edge ids (input rows)" : "") + (updateLines == null ? ""
                : ", graph updates, " + VersionedAdjacencyOperator.LAYOUT);
        DataStream<SeedBatch> checked = batches
                .map(new SavedGraphCheck(saved))
                .returns(batches.getType()).name("saved-graph-check").uid(SavedGraphCheck.UID);
        SingleOutputStreamOperator<PartialBatch> stage;
        DataStream<EdgeUpdate> adjacency = null;
        if (negatives != null) {
            stage = withNegatives(checked, edgeGroups, spec, o, negatives, disjoint, temporal, cacheLookups);
        } else if (updateLines == null) {
            stage = checked
                    .process(new BatchStartFunction(seedIds, disjoint).temporal(temporal, o.seedTimes())
                            .links(o.linkEnds()).anchors(o.ablpPositive(), o.ablpNegative()))
                    .returns(TypeInformation.of(PartialBatch.class))
                    .name("batch-start").uid("batch-start" + runTag);
        } else {
            VersionedGraph graph = versionedGraph(env, spec, updateLines);
            adjacency = graph.adjacency();
            stage = checked.connect(graph.versions().broadcast())
                    .transform("batch-start", TypeInformation.of(PartialBatch.class),
                            new VersionedStartOperator<PartialBatch, RequestGroup>((batch, version, task, out) ->
                                    BatchStartFunction.start(batch, seedIds, version, task, out),
                                    HopStageFunction.requests(1)))
                    .uid("batch-start" + runTag);
        }
        for (int hop = 1; hop <= fanouts.length; hop++) {
            DataStream<RequestGroup> requests = stage.getSideOutput(HopStageFunction.requests(hop));
            DataStream<AnswerGroup> answers = adjacency == null
                    ? edgeGroups.keyBy(new BatchNode(), Types.LONG)
                    .connect(requests.keyBy(new RequestNode(), Types.LONG))
                    .transform("neighbors-hop-" + hop, TypeInformation.of(AnswerGroup.class),
                            new NeighborLookupOperator(fanouts[hop - 1], replace, seed, bucketSize, o.cacheBytes(),
                                    cacheLookups, compactAfterLoad).weighted(weighted)
                                    .temporal(temporal, o.temporalLast()).withEdges(withEdges, edgeWeights))
                    .uid("neighbors-hop-" + hop)
                    : adjacency.keyBy(new UpdateNode(), Types.LONG)
                    .connect(requests.keyBy(new RequestNode(), Types.LONG))
                    .transform("neighbors-hop-" + hop, TypeInformation.of(AnswerGroup.class),
                            new VersionedNeighborLookupOperator(fanouts[hop - 1], replace, seed, bucketSize, hop == 1,
                                    compactAfterLoad))
                    .uid("neighbors-hop-" + hop);
            stage = stage.keyBy(new PartialKey(), Types.LONG)
                    .connect(answers.keyBy(new AnswerKey(), Types.LONG))
                    .process(new HopStageFunction(hop, hop == fanouts.length, nodeData, induced)
                            .withEdges(withEdges, edgeWeights, temporal))
                    .returns(TypeInformation.of(PartialBatch.class))
                    .name("hop-" + hop).uid("hop-" + hop + runTag);
        }
        if (induced) {
            // One more adjacency copy, read whole: each batch node's neighbours among the batch's nodes.
            DataStream<AnswerGroup> answers = edgeGroups.keyBy(new BatchNode(), Types.LONG)
                    .connect(stage.getSideOutput(InduceStageFunction.REQUESTS).keyBy(new RequestNode(), Types.LONG))
                    .transform("neighbors-induced", TypeInformation.of(AnswerGroup.class),
                            new NeighborLookupOperator(-1, false, seed, bucketSize, o.cacheBytes(), cacheLookups,
                                    compactAfterLoad).withEdges(withEdges, edgeWeights))
                    .uid("neighbors-induced");
            stage = stage.keyBy(new PartialKey(), Types.LONG)
                    .connect(answers.keyBy(new AnswerKey(), Types.LONG))
                    .process(new InduceStageFunction(nodeData).withEdges(withEdges, edgeWeights))
                    .returns(TypeInformation.of(PartialBatch.class))
                    .name("induce").uid("induce" + runTag);
        }
        return withNodeData(env, spec, stage, updateLines != null, o, runTag, cacheLookups);
    }

    /**
     * Link batches with negatives: each batch's candidates ({@link NegativeProbeFunction}) are checked against one
     * more adjacency copy, read whole (each key's neighbours among the other ends), each negative the next candidate
     * that is not an edge for it ({@link NegativeStageFunction}: the memory store's negatives), then the batch starts
     * from its positives' and negatives' ends ({@link LinkStartFunction}). The copy cannot be a hop's: the batch start
     * feeds every hop's lookup, and a DataStream job has no cycles.
     */
    private static SingleOutputStreamOperator<PartialBatch> withNegatives(DataStream<SeedBatch> batches,
            DataStream<EdgeGroupBatch> edgeGroups, GraphSpec spec, StageOptions o, StageOptions.LinkNegatives negatives,
            boolean disjoint, boolean temporal, int cacheLookups) {
        return negativeDraws(batches, edgeGroups, spec, o, negatives, cacheLookups, "neighbors-negatives", "the graph")
                .process(new LinkStartFunction(o.linkEnds(), disjoint, temporal, o.seedTimes()))
                .returns(TypeInformation.of(PartialBatch.class))
                .name("batch-start").uid("batch-start" + o.runTag());
    }

    /**
     * The link batches with their negatives picked (plain or typed): candidates drawn ({@link NegativeProbeFunction}),
     * checked against {@code edgeGroups} loaded whole into the lookup {@code lookup}, the negatives taken
     * ({@link NegativeStageFunction}, errors naming the link edge type as {@code what}).
     */
    static SingleOutputStreamOperator<LinkDraw> negativeDraws(DataStream<SeedBatch> batches,
            DataStream<EdgeGroupBatch> edgeGroups, GraphSpec spec, StageOptions o, StageOptions.LinkNegatives negatives,
            int cacheLookups, String lookup, String what) {
        String runTag = o.runTag();
        SingleOutputStreamOperator<LinkDraw> draws = batches
                .process(new NegativeProbeFunction(negatives, spec.direction() == io.fanout.graph.EdgeDirection.OUT,
                        o.seed(), o.linkEnds()[0]))
                .returns(TypeInformation.of(LinkDraw.class))
                .name("negative-candidates").uid("negative-candidates" + runTag);
        DataStream<AnswerGroup> answers = edgeGroups.keyBy(new BatchNode(), Types.LONG)
                .connect(draws.getSideOutput(NegativeProbeFunction.REQUESTS).keyBy(new RequestNode(), Types.LONG))
                .transform(lookup, TypeInformation.of(AnswerGroup.class),
                        new NeighborLookupOperator(-1, false, o.seed(), o.bucketSize(), o.cacheBytes(), cacheLookups,
                                o.compactAfterLoad()))
                .uid(lookup);
        return draws.keyBy(new DrawKey(), Types.LONG)
                .connect(answers.keyBy(new AnswerKey(), Types.LONG))
                .process(new NegativeStageFunction(negatives, o.seed(), what))
                .returns(TypeInformation.of(LinkDraw.class))
                .name("negatives").uid("negatives" + runTag);
    }

    /**
     * A graph that changes: every loaded edge as an update of version 0, then the update reader's edges, for the
     * keyed adjacencies ({@link VersionedAdjacencyOperator}) to key by node, and the committed versions, for the
     * batch start.
     */
    record VersionedGraph(DataStream<EdgeUpdate> adjacency, DataStream<Long> versions) {}

    /** The one update reader (parallelism 1: versions commit in order) over {@code updateLines}, and the load. */
    static VersionedGraph versionedGraph(StreamExecutionEnvironment env, GraphSpec spec, DataStream<UpdateLine> updateLines)
            throws IOException {
        GraphLoader.HeaderFacts facts = GraphLoader.headerFacts(spec.edges(), spec.directed());
        SingleOutputStreamOperator<EdgeUpdate> updates = updateLines
                .transform("graph-update-reader", TypeInformation.of(EdgeUpdate.class), new UpdateReaderOperator(
                        new EdgeUpdateParser(facts.directed(), spec.direction(), facts.idBase())))
                .setParallelism(1).uid("graph-update-reader");
        DataStream<EdgeUpdate> adjacency = edges(env, spec).map(new LoadedEdge()).returns(TypeInformation.of(EdgeUpdate.class))
                .name("loaded-edges").uid("loaded-edges")
                .union(updates);
        return new VersionedGraph(adjacency, updates.getSideOutput(UpdateReaderOperator.COMMITTED));
    }

    /**
     * The edge splits the load reads, one source element each ({@link GraphLoader#edgeSplits}, ranges of
     * {@link GraphSpec#splitBytes}): each is emitted whole between two checkpoint barriers, so a checkpoint during
     * the load waits for one range, not a whole part, and one big edge file loads on every reader.
     */
    static java.util.List<GraphLoader.EdgeSplit> edgeSplits(GraphSpec spec) throws IOException {
        return GraphLoader.edgeSplits(spec.edges(), spec.splitBytes(), spec.typedPart());
    }

    /** The graph's stored edges, read split by split by a parallel source (never on the client). */
    static DataStream<EdgeRecord> edges(StreamExecutionEnvironment env, GraphSpec spec) throws IOException {
        java.util.List<GraphLoader.EdgeSplit> splits = edgeSplits(spec);
        return splitIndexes(env, splits).flatMap(new EdgeFileFunction(spec, splits))
                .returns(TypeInformation.of(EdgeRecord.class)).name("edge-reader").uid("edge-reader");
    }

    /**
     * The k-hop load: the graph's stored edges grouped per node and split, a split's groups that one lookup subtask
     * owns in one record ({@link EdgeGroupBatchFunction}), read by a parallel source at the job's parallelism.
     */
    static DataStream<EdgeGroupBatch> edgeGroupBatches(StreamExecutionEnvironment env, GraphSpec spec, String suffix)
            throws IOException {
        java.util.List<GraphLoader.EdgeSplit> splits = edgeSplits(spec);
        // Edge ids are input rows over all parts: the client counts each split's rows first (one streaming pass).
        long[] firstRows = spec.withEdgeIds() ? GraphLoader.splitFirstRows(spec.edges(), spec.typedPart(),
                spec.directed(), splits, spec.weightColumn(), spec.timeColumn()) : null;
        return splitIndexes(env, splits, suffix).flatMap(new EdgeGroupBatchFunction(spec, splits, firstRows,
                        edgeWeights(spec)))
                .returns(TypeInformation.of(EdgeGroupBatch.class)).name("edge-reader" + suffix).uid("edge-reader" + suffix);
    }

    /**
     * {@code --with-edge} on a graph whose edge files have a weight column (with or without {@code
     * --weight-column}): messages carry the sampled edges' weights as {@code efeats}, as the memory store's do.
     */
    static boolean edgeWeights(GraphSpec spec) throws IOException {
        return spec.withEdgeIds() && GraphLoader.hasWeightColumn(spec.edges(), spec.typedPart(), spec.directed());
    }

    /** The graph's stored edges grouped per node and split ({@link EdgeGroupFunction}), read by a parallel source. */
    static DataStream<EdgeGroup> edgeGroups(StreamExecutionEnvironment env, GraphSpec spec) throws IOException {
        return edgeGroups(env, spec, "");
    }

    /** As above, the source and reader named and uid'd with {@code suffix} (one per edge type of a typed graph). */
    static DataStream<EdgeGroup> edgeGroups(StreamExecutionEnvironment env, GraphSpec spec, String suffix)
            throws IOException {
        java.util.List<GraphLoader.EdgeSplit> splits = edgeSplits(spec);
        return splitIndexes(env, splits, suffix).flatMap(new EdgeGroupFunction(spec, splits))
                .returns(TypeInformation.of(EdgeGroup.class)).name("edge-reader" + suffix).uid("edge-reader" + suffix);
    }

    /** One source element per edge split, its index: the parallel source both edge readers read. */
    private static DataStream<Long> splitIndexes(StreamExecutionEnvironment env, java.util.List<GraphLoader.EdgeSplit> splits) {
        return splitIndexes(env, splits, "");
    }

    private static DataStream<Long> splitIndexes(StreamExecutionEnvironment env, java.util.List<GraphLoader.EdgeSplit> splits,
            String suffix) {
        return env.fromSource(new NumberSequenceSource(0, splits.size() - 1), WatermarkStrategy.noWatermarks(),
                "edge-parts" + suffix).uid("edge-parts" + suffix);
    }

    /**
     * The messages of sampled batches: with a node file, each batch's node rows (asked for on
     * {@link HopStageFunction#NODE_DATA_REQUESTS} by {@code stage}) are gathered first. {@code graphVersions}:
     * messages carry {@code #META.graph_version}; from {@code o}: their trainer share with several trainers and the
     * subgraph type. The node-data lookup caches the rows it read last ({@code --partitioned.cache-mb}, -1
     * automatic), its automatic share one of the job's {@code cacheLookups} cached lookups (a hit saves a RocksDB read
     * of the row: pubmed with its labels, p=2, 1.9 M sampled edges/s without the cache, 5.2 M with it).
     */
    static DataStream<EncodedMessage> withNodeData(StreamExecutionEnvironment env, GraphSpec spec,
            SingleOutputStreamOperator<PartialBatch> stage, boolean graphVersions, StageOptions o, String runTag,
            int cacheLookups) throws IOException {
        boolean nodeData = spec.nodeFeatures() != null;
        float[] scale = null;
        float[] offset = null;
        if (nodeData) {
            FeatureDType dtype = spec.featureDType();
            if (dtype == FeatureDType.UINT8) {
                // The one global figure of the node file, per column: a streamed pass here (heap: 2 floats a
                // column), so the rows can be quantised as they load, exactly as the in-memory store does.
                float[][] range = NodeFileReader.columnRanges(spec.nodeFeatures());
                offset = range[0];
                scale = NodeFeatures.uint8Scale(range[0], range[1]);
            }
            int nodeParts = NodeFileReader.parts(spec.nodeFeatures()).size();
            DataStream<NodeRecord> rows = env
                    .fromSource(new NumberSequenceSource(0, nodeParts - 1), WatermarkStrategy.noWatermarks(), "node-parts")
                    .uid("node-parts")
                    .flatMap(new NodeFileFunction(spec.nodeFeatures(), dtype, scale, offset))
                    .returns(TypeInformation.of(NodeRecord.class))
                    .name("node-reader").uid("node-reader");
            DataStream<NodeDataAnswer> nodeAnswers = rows.keyBy(new RowNode(), Types.LONG)
                    .connect(stage.getSideOutput(HopStageFunction.NODE_DATA_REQUESTS).keyBy(new NodeRequestNode(), Types.LONG))
                    .transform("node-data", TypeInformation.of(NodeDataAnswer.class),
                            KeyedLookups.nodeData().cached(o.cacheBytes(), cacheLookups))
                    .uid("node-data");
            stage = stage.keyBy(new PartialKey(), Types.LONG)
                    .connect(nodeAnswers.keyBy(new NodeAnswerKey(), Types.LONG))
                    .process(new NodeDataStageFunction())
                    .returns(TypeInformation.of(PartialBatch.class))
                    .name("node-data-gather").uid("node-data-gather" + runTag);
        }
        MessageFunction messages = new MessageFunction(nodeData ? spec.featureDType() : null, scale, offset)
                .withTrainers(o.shares()).bidirectional(o.subgraphType() == SubgraphType.BIDIRECTIONAL);
        if (o.ablpPositive() != null) {
            messages.anchorLabels(o.ablpPositive().type().toString(),
                    o.ablpNegative() == null ? null : o.ablpNegative().type().toString());
        }
        return stage.map(graphVersions ? messages.withGraphVersions() : messages)
                .name("khop-messages").uid("khop-messages" + runTag);
    }

    /** Keys an edge group by the node whose list it joins. */
    static final class GroupNode implements KeySelector<EdgeGroup, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(EdgeGroup group) {
            return group.node;
        }
    }

    /** Keys a batch of edge groups by its first node (its lookup subtask owns every node of it). */
    static final class BatchNode implements KeySelector<EdgeGroupBatch, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(EdgeGroupBatch batch) {
            return batch.nodes[0];
        }
    }

    /** Keys an edge update by the node whose list it changes. */
    static final class UpdateNode implements KeySelector<EdgeUpdate, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(EdgeUpdate update) {
            return update.node;
        }
    }

    /** A loaded edge as a version-0 update. */
    static final class LoadedEdge implements org.apache.flink.api.common.functions.MapFunction<EdgeRecord, EdgeUpdate> {
        private static final long serialVersionUID = 1L;

        @Override
        public EdgeUpdate map(EdgeRecord edge) {
            return EdgeUpdate.loaded(edge);
        }
    }

    /** Keys a request group by its first node (every node of a group has the same lookup subtask). */
    static final class RequestNode implements KeySelector<RequestGroup, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(RequestGroup request) {
            return request.node;
        }
    }

    /** Keys a node-file row by its node. */
    static final class RowNode implements KeySelector<NodeRecord, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(NodeRecord row) {
            return row.node;
        }
    }

    /** Keys a node-data request by the node it asks about. */
    static final class NodeRequestNode implements KeySelector<NodeDataRequest, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(NodeDataRequest request) {
            return request.node;
        }
    }

    /** Keys a node-data answer by its batch. */
    static final class NodeAnswerKey implements KeySelector<NodeDataAnswer, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(NodeDataAnswer answer) {
            return answer.batchKey;
        }
    }

    /** Keys a batch by (epoch, batch id). */
    static final class PartialKey implements KeySelector<PartialBatch, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(PartialBatch batch) {
            return batch.batchKey;
        }
    }

    /** Keys a link batch's negative draw by its batch. */
    static final class DrawKey implements KeySelector<LinkDraw, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(LinkDraw draw) {
            return draw.batchKey;
        }
    }

    /** Keys an answer group by its batch. */
    static final class AnswerKey implements KeySelector<AnswerGroup, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(AnswerGroup answer) {
            return answer.batchKey;
        }
    }
}
