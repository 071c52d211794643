package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.FeatureDType;
import io.fanout.features.NodeFeatures;
import io.fanout.features.NodeFileReader;
import io.fanout.graph.GraphFiles;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.NodeIdFile;
import io.fanout.graph.typed.TypedGraphFiles;
import io.fanout.sampling.SubgraphType;
import io.fanout.sampling.link.SupervisionEdges;
import io.fanout.store.GraphSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.OutputTag;

/**
 * Wires the partitioned k-hop of a typed graph: each edge type's file is loaded as the plain partitioned store loads
 * a graph (grouped per node into keyed state, byte ranges read in parallel) into one lookup per (edge type, hop) it
 * is walked at; seed batches -> start -> hop stages keyed by batch, each gathering the answers of every edge type's
 * lookup of its hop -> (with labelled node files: one node-data lookup per such node type) -> messages.
 *
 * <p>Why one lookup per (edge type, hop), keyed by node id: the memory store's typed sampler runs each (edge type,
 * hop) as hop 1 of a plain sampler over that type's adjacency, drawing a node's neighbours from the stream of
 * (hop seed of the type and hop, epoch, batch, 1, node id). So each such lookup is exactly a plain partitioned
 * lookup over a plain graph (the type's file) under that hop seed: the same list order (the file's rows, as both
 * stores build a type's adjacency), the same {@link io.fanout.sampling.partitioned.NeighborPicks}, byte identity
 * without a new state layout. A key of (edge type, node) in one operator would hold the same state but need
 * its own lookup code. The price is a copy of each type's adjacency per hop it is walked at (RocksDB, on disk).
 */
public final class PartitionedTypedKHop {
    private PartitionedTypedKHop() {}

    /**
     * The messages of {@code batches} (seed indices of {@code o.seedType()}), sampled over the typed graph
     * {@code spec} names with {@code o.typedFanouts()} (edge type name -> per-hop fanouts, every edge type, one
     * length); both required. The lookups' options are the plain stage's ({@link PartitionedKHop#build}).
     */
    public static DataStream<EncodedMessage> build(StreamExecutionEnvironment env, DataStream<SeedBatch> batches,
            GraphSpec spec, StageOptions o) throws IOException {
        Map<String, int[]> fanouts = StageOptions.require(o.typedFanouts(), "fanout.fanout", "typed k-hop");
        String seedType = StageOptions.require(o.seedType(), "fanout.seed-type", "typed k-hop");
        refuseUpdates(o, "typed k-hop");
        if (o.subgraphType() == SubgraphType.INDUCED) {
            throw new IllegalArgumentException("fanout.subgraph-type induced is not implemented for typed graphs");
        }
        String weightColumn = spec.weightColumn(); // every edge type's file must have it, as in the memory store
        // Temporal: every edge type's file has the time column but the declared timeless ones, as in the memory store,
        // whose typed temporal sampling is disjoint.
        boolean temporal = spec.timeColumn() != null;
        boolean disjoint = o.disjoint() || temporal;
        int bucketSize = o.bucketSize();
        String runTag = o.runTag();
        TrainerShares shares = o.shares();
        TypedGraphFiles files = TypedGraphFiles.of(spec.edges());
        // ABLP's label edge types are labels only (GiGL never walks them): not loaded, not in the messages' edges.
        java.util.Set<EdgeType> walked = new java.util.TreeSet<>(files.edges().keySet());
        SupervisionEdges positives = o.ablpPositive();
        if (positives != null) {
            if (disjoint || o.linkType() != null) {
                throw new IllegalArgumentException("fanout.ablp-positive-type is not implemented with "
                        + (disjoint ? "disjoint or temporal sampling" : "link seeds"));
            }
            walked.remove(positives.type());
            if (o.ablpNegative() != null) {
                walked.remove(o.ablpNegative().type());
            }
        }
        TypedLayout layout = new TypedLayout(files.nodeTypes(), walked, fanouts, seedType, spec.direction(), o.seed());
        int types = layout.edgeTypes.size();
        List<GraphSpec> typeSpecs = new ArrayList<>();
        StringBuilder saved = new StringBuilder("typed graph ").append(spec.edges().toAbsolutePath().normalize());
        int lookups = 0;
        boolean[] timed = new boolean[types];
        // --with-edge: each edge type's rows numbered in its own file, its weight column's values (if any) as efeats.
        boolean withEdges = spec.withEdgeIds();
        boolean[] edgeWeights = new boolean[types];
        for (int t = 0; t < types; t++) {
            Path file = files.edges().get(layout.edgeTypes.get(t));
            timed[t] = temporal && !spec.timelessTypes().contains(layout.edgeTypes.get(t).toString());
            GraphSpec typeSpec = new GraphSpec(file.toString(), spec.direction(), null, FeatureDType.FLOAT32, withEdges)
                    .withSplitBytes(spec.splitBytes()).withTypedPart().withWeightColumn(weightColumn)
                    .withTimeColumn(timed[t] ? spec.timeColumn() : null);
            typeSpecs.add(typeSpec);
            edgeWeights[t] = PartitionedKHop.edgeWeights(typeSpec);
            saved.append("; ").append(layout.edgeTypes.get(t)).append(": ")
                    .append(SavedGraphCheck.describe(typeSpec, layout.hops, bucketSize))
                    .append(weightColumn == null ? "" : ", weights of column " + weightColumn)
                    .append(timed[t] ? ", times of column " + spec.timeColumn() : "")
                    .append(withEdges ? ", edge ids (input rows)" : "");
            for (int h = 1; h <= layout.hops; h++) {
                lookups += layout.walks(t, h) ? 1 : 0;
            }
        }
        boolean[] nodeData = new boolean[layout.nodeTypes.size()];
        for (int n = 0; n < nodeData.length; n++) {
            Path nodeFile = files.nodeFiles().get(layout.nodeTypes.get(n));
            nodeData[n] = nodeFile != null && !NodeIdFile.idsOnly(nodeFile);
            if (nodeData[n]) {
                saved.append("; node file ").append(nodeFile.toAbsolutePath().normalize()).append(" (fingerprint ")
                        .append(SavedGraphCheck.fingerprint(NodeFileReader.parts(nodeFile))).append(", ")
                        .append(spec.featureDType()).append(')');
            }
        }
        StageOptions.LinkNegatives negatives = o.linkNegatives();
        if (negatives != null) {
            saved.append("; a whole-list copy of ").append(o.linkType()).append(" for negatives");
        }
        // The automatic cache size is shared by the cached lookups: per (edge type, hop), per node-data lookup, and the
        // negatives' whole-list copy.
        int cacheLookups = lookups + count(nodeData) + (negatives != null ? 1 : 0);
        DataStream<SeedBatch> checked = batches
                .map(new SavedGraphCheck(saved.toString()))
                .returns(batches.getType()).name("saved-graph-check").uid(SavedGraphCheck.UID);
        EdgeType linkType = o.linkType();
        int linkSrc = linkType == null ? -1 : layout.nodeTypes.indexOf(linkType.src());
        int linkDst = linkType == null ? -1 : layout.nodeTypes.indexOf(linkType.dst());
        TypedBatchStartFunction start = new TypedBatchStartFunction(layout, o.seedIds(), disjoint)
                .temporal(temporal, o.seedTimes());
        if (linkType != null) {
            if (o.linkEnds() == null || linkSrc < 0 || linkDst < 0) {
                throw new IllegalArgumentException("fanout.link-type " + linkType + " needs its seed edges' ends and"
                        + " node types of the graph " + layout.nodeTypes);
            }
            start.links(o.linkEnds(), linkSrc, linkDst);
        }
        int labelType = positives == null ? -1 : layout.nodeTypes.indexOf(positives.type().dst());
        if (positives != null) {
            start.anchors(positives, o.ablpNegative(), labelType, o.ablpLabelIds());
        }
        List<DataStream<EdgeGroupBatch>> edgeGroups = new ArrayList<>();
        for (int t = 0; t < types; t++) {
            edgeGroups.add(PartitionedKHop.edgeGroupBatches(env, typeSpecs.get(t), "-" + layout.edgeTypes.get(t)));
        }
        SingleOutputStreamOperator<TypedPartialBatch> stage;
        if (negatives != null) {
            // As the plain graph's, over the link type's own whole-list copy.
            stage = PartitionedKHop.negativeDraws(checked, edgeGroups.get(layout.edgeTypes.indexOf(linkType)), spec, o,
                    negatives, cacheLookups, "neighbors-negatives-" + linkType, linkType.toString())
                    .process(new TypedLinkStartFunction(layout, o.linkEnds(), linkSrc, linkDst, disjoint, temporal,
                            o.seedTimes()))
                    .returns(TypeInformation.of(TypedPartialBatch.class))
                    .name("batch-start").uid("batch-start" + runTag);
        } else {
            stage = checked
                    .process(start)
                    .returns(TypeInformation.of(TypedPartialBatch.class))
                    .name("batch-start").uid("batch-start" + runTag);
        }
        for (int hop = 1; hop <= layout.hops; hop++) {
            DataStream<TypedAnswerGroup> answers = null;
            for (int t = 0; t < types; t++) {
                if (!layout.walks(t, hop)) {
                    continue;
                }
                String name = "neighbors-hop-" + hop + "-" + layout.edgeTypes.get(t);
                DataStream<TypedAnswerGroup> typeAnswers = edgeGroups.get(t)
                        .keyBy(new PartitionedKHop.BatchNode(), Types.LONG)
                        .connect(stage.getSideOutput(TypedLayout.requests(hop, t))
                                .keyBy(new PartitionedKHop.RequestNode(), Types.LONG))
                        .transform(name, TypeInformation.of(AnswerGroup.class),
                                new NeighborLookupOperator(layout.fanouts[t][hop - 1], o.replace(),
                                        layout.hopSeed(t, hop), bucketSize, o.cacheBytes(), cacheLookups,
                                        o.compactAfterLoad()).weighted(weightColumn != null)
                                        .temporal(timed[t], o.temporalLast()).withEdges(withEdges, edgeWeights[t]))
                        .uid(name)
                        .map(new TagAnswers(t)).returns(TypeInformation.of(TypedAnswerGroup.class))
                        .name(name + "-answers").uid(name + "-answers");
                answers = answers == null ? typeAnswers : answers.union(typeAnswers);
            }
            if (answers == null) { // no edge type walked at this hop: nothing answers, the stage passes batches on
                answers = stage.getSideOutput(new OutputTag<>("typed-no-answers",
                        TypeInformation.of(TypedAnswerGroup.class)));
            }
            stage = stage.keyBy(new PartialKey(), Types.LONG)
                    .connect(answers.keyBy(new AnswerKey(), Types.LONG))
                    .process(withEdges ? new TypedHopStageFunction(layout, hop, nodeData).withEdges(edgeWeights, timed)
                            : new TypedHopStageFunction(layout, hop, nodeData))
                    .returns(TypeInformation.of(TypedPartialBatch.class))
                    .name("hop-" + hop).uid("hop-" + hop + runTag);
        }
        return withNodeData(env, spec, files, layout, nodeData, stage, runTag,
                (dtype, scale, offset, dims) -> {
                    TypedMessageFunction messages = new TypedMessageFunction(layout, dtype, scale, offset, dims)
                            .withTrainers(shares).bidirectional(o.subgraphType() == SubgraphType.BIDIRECTIONAL);
                    if (positives != null) {
                        messages.anchorLabels(positives.type().toString(), o.ablpNegative() == null ? null
                                : o.ablpNegative().type().toString());
                    }
                    return linkType == null ? messages : messages.links(linkType, linkSrc, linkDst);
                },
                "khop-messages", o.cacheBytes(), cacheLookups);
    }

    /** Fails when {@code o} has graph updates: a typed graph's partitioned store is fixed. */
    static void refuseUpdates(StageOptions o, String stage) {
        if (o.graphUpdates() != null) {
            throw new IllegalArgumentException("fanout.graph-updates is not supported by the partitioned " + stage);
        }
    }

    /** The message function of a typed batch, given each node type's node-data layout. */
    @FunctionalInterface
    interface Messages {
        MessageStageFunction<TypedPartialBatch> of(FeatureDType dtype, float[][] scale, float[][] offset, int[] dims);
    }

    /** How many entries of {@code flags} are set. */
    static int count(boolean[] flags) {
        int n = 0;
        for (boolean f : flags) {
            n += f ? 1 : 0;
        }
        return n;
    }

    /** Whether each node type (name order) has a labelled node file (ids-only files carry no node data). */
    static boolean[] nodeData(TypedGraphFiles files, TypedLayout layout) throws IOException {
        boolean[] nodeData = new boolean[layout.nodeTypes.size()];
        for (int n = 0; n < nodeData.length; n++) {
            Path nodeFile = files.nodeFiles().get(layout.nodeTypes.get(n));
            nodeData[n] = nodeFile != null && !NodeIdFile.idsOnly(nodeFile);
        }
        return nodeData;
    }

    /** With labelled node files, each batch's node rows gathered per node type; then the messages. */
    static DataStream<EncodedMessage> withNodeData(StreamExecutionEnvironment env, GraphSpec spec,
            TypedGraphFiles files, TypedLayout layout, boolean[] nodeData,
            SingleOutputStreamOperator<TypedPartialBatch> stage, String runTag, Messages messages, String messagesUid,
            long cacheBytes, int cacheLookups) throws IOException {
        FeatureDType dtype = spec.featureDType();
        int n = nodeData.length;
        float[][] scale = dtype == FeatureDType.UINT8 ? new float[n][] : null;
        float[][] offset = dtype == FeatureDType.UINT8 ? new float[n][] : null;
        int[] dims = new int[n];
        DataStream<TypedNodeDataAnswer> answers = null;
        for (int type = 0; type < n; type++) {
            if (!nodeData[type]) {
                continue;
            }
            String typeName = layout.nodeTypes.get(type);
            Path nodeFile = files.nodeFiles().get(typeName);
            dims[type] = featureDim(nodeFile);
            float[] typeScale = null;
            float[] typeOffset = null;
            if (dtype == FeatureDType.UINT8 && dims[type] > 0) {
                // As the memory store quantises each type's node file: per column over the whole file.
                float[][] range = NodeFileReader.columnRanges(nodeFile);
                typeOffset = range[0];
                typeScale = NodeFeatures.uint8Scale(range[0], range[1]);
                offset[type] = typeOffset;
                scale[type] = typeScale;
            }
            int parts = NodeFileReader.parts(nodeFile).size();
            DataStream<NodeRecord> rows = env
                    .fromSource(new NumberSequenceSource(0, parts - 1), WatermarkStrategy.noWatermarks(),
                            "node-parts-" + typeName)
                    .uid("node-parts-" + typeName)
                    .flatMap(new NodeFileFunction(nodeFile, dtype, typeScale, typeOffset))
                    .returns(TypeInformation.of(NodeRecord.class))
                    .name("node-reader-" + typeName).uid("node-reader-" + typeName);
            DataStream<TypedNodeDataAnswer> typeAnswers = rows.keyBy(new PartitionedKHop.RowNode(), Types.LONG)
                    .connect(stage.getSideOutput(TypedLayout.nodeDataRequests(type))
                            .keyBy(new PartitionedKHop.NodeRequestNode(), Types.LONG))
                    .transform("node-data-" + typeName, TypeInformation.of(NodeDataAnswer.class),
                            KeyedLookups.nodeData().cached(cacheBytes, cacheLookups))
                    .uid("node-data-" + typeName)
                    .map(new TagNodeAnswers(type)).returns(TypeInformation.of(TypedNodeDataAnswer.class))
                    .name("node-data-" + typeName + "-answers").uid("node-data-" + typeName + "-answers");
            answers = answers == null ? typeAnswers : answers.union(typeAnswers);
        }
        if (answers != null) {
            stage = stage.keyBy(new PartialKey(), Types.LONG)
                    .connect(answers.keyBy(new NodeAnswerKey(), Types.LONG))
                    .process(new TypedNodeDataStageFunction(nodeData))
                    .returns(TypeInformation.of(TypedPartialBatch.class))
                    .name("node-data-gather").uid("node-data-gather" + runTag);
        }
        return stage.map(messages.of(dtype, scale, offset, dims))
                .name(messagesUid).uid(messagesUid + runTag);
    }

    /** The number of feature columns of a node file ({@code id, label, f0..}): its first row's, read here. */
    static int featureDim(Path nodeFile) throws IOException {
        Path first = NodeFileReader.parts(nodeFile).get(0);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(GraphFiles.open(first),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("#") || line.isBlank()) {
                    continue;
                }
                return Math.max(0, line.split("\t", -1).length - 2);
            }
        }
        return 0;
    }

    /** Tags a lookup's answers with their edge type. */
    static final class TagAnswers implements MapFunction<AnswerGroup, TypedAnswerGroup> {
        private static final long serialVersionUID = 1L;
        private final int edgeType;

        TagAnswers(int edgeType) {
            this.edgeType = edgeType;
        }

        @Override
        public TypedAnswerGroup map(AnswerGroup answers) {
            return new TypedAnswerGroup(edgeType, answers);
        }
    }

    /** Tags a node-data lookup's answers with their node type. */
    static final class TagNodeAnswers implements MapFunction<NodeDataAnswer, TypedNodeDataAnswer> {
        private static final long serialVersionUID = 1L;
        private final int nodeType;

        TagNodeAnswers(int nodeType) {
            this.nodeType = nodeType;
        }

        @Override
        public TypedNodeDataAnswer map(NodeDataAnswer answer) {
            return new TypedNodeDataAnswer(nodeType, answer);
        }
    }

    /** Keys a typed batch by (epoch, batch id). */
    static final class PartialKey implements KeySelector<TypedPartialBatch, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(TypedPartialBatch batch) {
            return batch.batchKey;
        }
    }

    /** Keys a typed answer group by its batch. */
    static final class AnswerKey implements KeySelector<TypedAnswerGroup, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(TypedAnswerGroup answer) {
            return answer.batchKey;
        }
    }

    /** Keys a typed node-data answer by its batch. */
    static final class NodeAnswerKey implements KeySelector<TypedNodeDataAnswer, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(TypedNodeDataAnswer answer) {
            return answer.batchKey;
        }
    }
}
