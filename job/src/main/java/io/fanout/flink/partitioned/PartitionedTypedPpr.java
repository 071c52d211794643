package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.batch.TrainerShares;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.FeatureDType;
import io.fanout.features.NodeFileReader;
import io.fanout.flink.partitioned.TypedPprRecords.Answer;
import io.fanout.flink.partitioned.TypedPprRecords.Edge;
import io.fanout.flink.partitioned.TypedPprRecords.GroupSize;
import io.fanout.flink.partitioned.TypedPprRecords.Partial;
import io.fanout.flink.partitioned.TypedPprRecords.Rows;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedGraphFiles;
import io.fanout.sampling.ppr.TypedPprBatchPush;
import io.fanout.store.GraphSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/**
 * Wires the partitioned PPR of a typed graph, {@link PartitionedPpr} over node keys of every type: each edge type's
 * file loaded as load groups (as {@link PartitionedTypedKHop} loads it) -> each neighbour's degree along every edge
 * type put on its edges (keyed by node key, once) -> each node's {@code TypedNodeRows} built (keyed, once) -> one
 * keyed fetch operator per round holding its own copy; seed batches -> start -> round 1 .. R, each keyed by batch
 * ({@link TypedPprFunctions}) -> selection -> (each node type's node data) -> messages byte-identical to the memory
 * store's typed PPR.
 */
public final class PartitionedTypedPpr {
    private PartitionedTypedPpr() {}

    /**
     * The typed PPR messages of {@code batches} (seed indices of {@code o.seedType()}, required) over the typed graph
     * {@code spec}: the plain stage's PPR options ({@link PartitionedPpr#build}), walked over {@code o.pprChannels()}
     * (null: one walk over every edge type), with {@code o.pprMaxNeighbors()} per node and edge type.
     */
    public static DataStream<EncodedMessage> build(StreamExecutionEnvironment env, DataStream<SeedBatch> batches,
            GraphSpec spec, StageOptions o) throws IOException {
        String seedType = StageOptions.require(o.seedType(), "fanout.seed-type", "typed PPR");
        PartitionedTypedKHop.refuseUpdates(o, "typed PPR");
        int rounds = o.pprRounds();
        String runTag = o.runTag();
        TypedGraphFiles files = TypedGraphFiles.of(spec.edges());
        // PPR walks no hops: the layout's fanouts are a placeholder ([0] each: no type walked by k-hop).
        Map<String, int[]> noFanouts = new HashMap<>();
        files.edges().keySet().forEach(t -> noFanouts.put(t.toString(), new int[] {0}));
        TypedLayout layout = new TypedLayout(files.nodeTypes(), files.edges().keySet(), noFanouts, seedType,
                spec.direction(), o.seed());
        TypedPprFunctions.Setup setup = new TypedPprFunctions.Setup(layout, o.pprChannels(), o.alpha(), o.eps(),
                o.maxPprNodes(), o.residualTopUp(), o.includeSampledEdges());
        List<String> names = setup.edgeTypeNames();
        int types = names.size();
        StringBuilder saved = new StringBuilder("typed graph ").append(spec.edges().toAbsolutePath().normalize());
        DataStream<GroupSize> sizes = null;
        DataStream<Edge> askers = null;
        for (int t = 0; t < types; t++) {
            EdgeType type = layout.edgeTypes.get(t);
            Path file = files.edges().get(type);
            GraphSpec typeSpec = new GraphSpec(file.toString(), spec.direction(), null, FeatureDType.FLOAT32, false)
                    .withSplitBytes(spec.splitBytes()).withTypedPart();
            saved.append("; ").append(type).append(": ").append(SavedGraphCheck.describe(typeSpec, rounds, 0));
            DataStream<EdgeGroup> groups = PartitionedKHop.edgeGroups(env, typeSpec, "-ppr-" + type);
            TypeKeys keys = new TypeKeys(t, layout.keyType[t], layout.valueType[t]);
            DataStream<GroupSize> typeSizes = groups.map(keys::size).returns(TypeInformation.of(GroupSize.class))
                    .name("ppr-sizes-" + type).uid("ppr-sizes-" + type);
            DataStream<Edge> typeEdges = groups.flatMap(keys).returns(TypeInformation.of(Edge.class))
                    .name("ppr-group-edges-" + type).uid("ppr-group-edges-" + type);
            sizes = sizes == null ? typeSizes : sizes.union(typeSizes);
            askers = askers == null ? typeEdges : askers.union(typeEdges);
        }
        saved.append(", typed ppr fetch rounds ").append(rounds).append(", ppr-max-neighbors ")
                .append(o.pprMaxNeighbors()).append(", typed ppr layout 3");
        DataStream<Edge> edges = sizes.keyBy(new SizeNode(), Types.LONG)
                .connect(askers.keyBy(new EdgeNeighbor(), Types.LONG))
                .transform("typed-ppr-neighbor-degrees", TypeInformation.of(Edge.class),
                        new TypedPprDegreeOperator(types))
                .uid("typed-ppr-neighbor-degrees");
        DataStream<Rows> rows = edges.keyBy(new EdgeNode(), Types.LONG)
                .transform("typed-ppr-rows", TypeInformation.of(Rows.class),
                        new TypedPprRowsOperator(names, o.pprMaxNeighbors(), o.seed()))
                .uid("typed-ppr-rows");
        boolean[] nodeData = PartitionedTypedKHop.nodeData(files, layout);
        for (int n = 0; n < nodeData.length; n++) {
            if (nodeData[n]) { // a savepoint's node rows are those of the same node files, as for k-hop
                Path nodeFile = files.nodeFiles().get(layout.nodeTypes.get(n));
                saved.append("; node file ").append(nodeFile.toAbsolutePath().normalize()).append(" (fingerprint ")
                        .append(SavedGraphCheck.fingerprint(NodeFileReader.parts(nodeFile))).append(", ")
                        .append(spec.featureDType()).append(')');
            }
        }
        SingleOutputStreamOperator<Partial> stage = batches
                .map(new SavedGraphCheck(saved.toString())).returns(batches.getType())
                .name("saved-graph-check").uid(SavedGraphCheck.UID)
                .process(new TypedPprFunctions.Start(setup, o.seedIds()))
                .returns(TypeInformation.of(Partial.class))
                .name("typed-ppr-start").uid("typed-ppr-start" + runTag)
                .setBufferTimeout(PartitionedPpr.ROUND_BUFFER_TIMEOUT_MS);
        // The automatic cache size is shared by the cached lookups: one per fetch round, and per node-data lookup.
        int cacheLookups = rounds + PartitionedTypedKHop.count(nodeData);
        for (int round = 1; round <= rounds; round++) {
            DataStream<Answer> answers = rows.keyBy(new RowsNode(), Types.LONG)
                    .connect(stage.getSideOutput(TypedPprFunctions.requests(round))
                            .keyBy(new PartitionedPpr.RequestNode(), Types.LONG))
                    .transform("typed-ppr-fetch-" + round, TypeInformation.of(Answer.class),
                            KeyedLookups.typedPprRows(types).cached(o.cacheBytes(), cacheLookups))
                    .uid("typed-ppr-fetch-" + round).setBufferTimeout(PartitionedPpr.ROUND_BUFFER_TIMEOUT_MS);
            stage = stage.keyBy(new PartialKey(), Types.LONG)
                    .connect(answers.keyBy(new AnswerKey(), Types.LONG))
                    .process(new TypedPprFunctions.Round(round, rounds))
                    .returns(TypeInformation.of(Partial.class))
                    .name("typed-ppr-round-" + round).uid("typed-ppr-round-" + round + runTag)
                    .setBufferTimeout(PartitionedPpr.ROUND_BUFFER_TIMEOUT_MS);
        }
        SingleOutputStreamOperator<TypedPartialBatch> selected = stage
                .process(new TypedPprFunctions.Finish(nodeData))
                .returns(TypeInformation.of(TypedPartialBatch.class))
                .name("typed-ppr-select").uid("typed-ppr-select" + runTag);
        boolean includeSampledEdges = o.includeSampledEdges();
        TrainerShares shares = o.shares();
        return PartitionedTypedKHop.withNodeData(env, spec, files, layout, nodeData, selected, runTag,
                (dtype, scale, offset, dims) -> new TypedPprMessageFunction(layout, includeSampledEdges, dtype, scale,
                        offset, dims, shares), "ppr-messages", o.cacheBytes(), cacheLookups);
    }

    /** One edge type's load groups as node keys: their sizes (degrees) and their edges one by one. */
    static final class TypeKeys implements FlatMapFunction<EdgeGroup, Edge> {
        private static final long serialVersionUID = 1L;
        private final int edgeType;
        private final int keyType;
        private final int valueType;

        TypeKeys(int edgeType, int keyType, int valueType) {
            this.edgeType = edgeType;
            this.keyType = keyType;
            this.valueType = valueType;
        }

        GroupSize size(EdgeGroup group) {
            return new GroupSize(TypedPprBatchPush.key(keyType, group.node), edgeType, group.neighbors.length);
        }

        @Override
        public void flatMap(EdgeGroup group, Collector<Edge> out) {
            long node = TypedPprBatchPush.key(keyType, group.node);
            for (int i = 0; i < group.neighbors.length; i++) {
                out.collect(new Edge(node, TypedPprBatchPush.key(valueType, group.neighbors[i]), edgeType,
                        group.order, i, null));
            }
        }
    }

    /** Keys a group size by its node. */
    static final class SizeNode implements KeySelector<GroupSize, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(GroupSize size) {
            return size.node;
        }
    }

    /** Keys an edge by its neighbour (whose degrees it needs). */
    static final class EdgeNeighbor implements KeySelector<Edge, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Edge edge) {
            return edge.neighbor;
        }
    }

    /** Keys a degree-carrying edge by the node whose rows it joins. */
    static final class EdgeNode implements KeySelector<Edge, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Edge edge) {
            return edge.node;
        }
    }

    /** Keys built rows by their node. */
    static final class RowsNode implements KeySelector<Rows, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Rows rows) {
            return rows.node;
        }
    }

    /** Keys a typed PPR batch by (epoch, batch id). */
    static final class PartialKey implements KeySelector<Partial, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Partial batch) {
            return batch.batchKey;
        }
    }

    /** Keys a typed PPR answer by its batch. */
    static final class AnswerKey implements KeySelector<Answer, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Answer answer) {
            return answer.batchKey;
        }
    }
}
