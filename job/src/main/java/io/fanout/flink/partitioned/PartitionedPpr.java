package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.store.GraphSpec;
import java.io.IOException;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/**
 * Wires the partitioned PPR dataflow, GiGL's distributed PPR unrolled: edge splits read as load groups (as the k-hop
 * lookups load) -> each neighbour's degree put on its edges (keyed, once) -> each node's capped list built (keyed,
 * once) -> one keyed fetch operator per round holding its own copy of the lists; seed batches
 * -> start -> round 1 .. R, each keyed by batch (push with the lists fetched, ask for the lists the pushes miss)
 * -> selection -> (node data) -> messages. R is {@code --ppr-max-fetch-iterations}: a DataStream job has no cycles,
 * so the rounds are operators, as the k-hop hops are ({@link PartitionedKHop}).
 */
public final class PartitionedPpr {
    /**
     * The buffer timeout of every PPR round's operators (start, fetches, rounds): 0, each record sent as it is made.
     * Their records are one per (batch, round, subtask), kilobytes each, and a batch crosses two exchanges per round,
     * so with the job's 20 ms ({@code FlinkSettings}) each crossing could wait for the output flusher: pubmed, p=2,
     * five epochs, eight runs each, alternated: heap backend 1.27-1.44 M -> 1.29-1.64 M sampled edges/s, submission
     * to the first message 0.7-0.9 s -> 0.6-0.9 s; RocksDB 0.95-1.33 M -> 1.01-1.52 M, 1.2-1.8 s -> 1.1-1.8 s. The
     * load's operators keep the job's timeout (their records are many and small), and so do k-hop's hops, whose
     * buffers fill: R-MAT 2^18 x 16 did not move.
     */
    static final long ROUND_BUFFER_TIMEOUT_MS = 0;

    private PartitionedPpr() {}

    /**
     * The PPR messages of {@code batches} over the graph {@code spec} names: pushes with {@code o.alpha()},
     * {@code o.eps()}, {@code o.maxPprNodes()} and {@code o.residualTopUp()} over lists capped to
     * {@code o.pprMaxNeighbors()}, fetched in {@code o.pprRounds()} rounds. With {@code o.graphUpdates()} each batch
     * reads the graph at the version committed when it starts ({@code #META.graph_version}), its lists and their
     * neighbours' degrees, from {@code o.bucketSize()}-neighbour buckets. {@code o.runTag()}: see
     * {@link StageOptions#runTag}.
     */
    public static DataStream<EncodedMessage> build(StreamExecutionEnvironment env, DataStream<SeedBatch> batches,
            GraphSpec spec, StageOptions o) throws IOException {
        if (o.graphUpdates() != null) {
            return versioned(env, batches, spec, o);
        }
        int rounds = o.pprRounds();
        DataStream<EdgeGroup> groups = PartitionedKHop.edgeGroups(env, spec);
        DataStream<PprEdge> askers = groups.flatMap(new GroupEdges()).returns(TypeInformation.of(PprEdge.class))
                .name("ppr-group-edges").uid("ppr-group-edges");
        DataStream<PprEdge> pprEdges = groups.keyBy(new PartitionedKHop.GroupNode(), Types.LONG)
                .connect(askers.keyBy(new EdgeNeighbor(), Types.LONG))
                .transform("ppr-neighbor-degrees", TypeInformation.of(PprEdge.class), new NeighborDegreeOperator())
                .uid("ppr-neighbor-degrees");
        // Each node's capped list, built once; every round's fetch operator stores it as one value.
        DataStream<PprNodeList> lists = pprEdges.keyBy(new PprEdgeNode(), Types.LONG)
                .transform("ppr-lists", TypeInformation.of(PprNodeList.class),
                        new PprListOperator(o.pprMaxNeighbors(), o.seed()))
                .uid("ppr-lists");
        String saved = savedGraph(spec, o);
        SingleOutputStreamOperator<PprPartial> stage = batches
                .map(new SavedGraphCheck(saved)).returns(batches.getType())
                .name("saved-graph-check").uid(SavedGraphCheck.UID)
                .process(start(o))
                .returns(TypeInformation.of(PprPartial.class))
                .name("ppr-start").uid("ppr-start" + o.runTag())
                .setBufferTimeout(ROUND_BUFFER_TIMEOUT_MS);
        for (int round = 1; round <= rounds; round++) {
            DataStream<PprAnswerGroup> answers = lists.keyBy(new ListNode(), Types.LONG)
                    .connect(stage.getSideOutput(PprRoundFunction.requests(round)).keyBy(new RequestNode(), Types.LONG))
                    .transform("ppr-fetch-" + round, TypeInformation.of(PprAnswerGroup.class),
                            KeyedLookups.pprLists().cached(o.cacheBytes(), cacheLookups(spec, rounds)))
                    .uid("ppr-fetch-" + round).setBufferTimeout(ROUND_BUFFER_TIMEOUT_MS);
            stage = round(stage, answers, round, o);
        }
        return finish(env, spec, stage, o);
    }

    /**
     * With graph updates: every round has a versioned copy of the whole adjacency for its list fetches and another
     * for the degrees of the fetched lists' neighbours (a degree at a version needs the list: a deletion of a missing
     * edge changes nothing), both fed the loaded edges and the updates keyed by node; a batch starts at the version
     * committed then and every fetch and degree of it is read at that version.
     */
    private static DataStream<EncodedMessage> versioned(StreamExecutionEnvironment env, DataStream<SeedBatch> batches,
            GraphSpec spec, StageOptions o) throws IOException {
        PartitionedKHop.VersionedGraph graph = PartitionedKHop.versionedGraph(env, spec, o.graphUpdates());
        String saved = savedGraph(spec, o) + ", graph updates, " + VersionedAdjacencyOperator.LAYOUT;
        SingleOutputStreamOperator<PprPartial> stage = batches
                .map(new SavedGraphCheck(saved)).returns(batches.getType())
                .name("saved-graph-check").uid(SavedGraphCheck.UID)
                .connect(graph.versions().broadcast())
                .transform("ppr-start", TypeInformation.of(PprPartial.class), new VersionedStartOperator<PprPartial, PprFetchRequest>(
                        start(o)::start, PprRoundFunction.requests(1)))
                .uid("ppr-start" + o.runTag()).setBufferTimeout(ROUND_BUFFER_TIMEOUT_MS);
        KeyedStream<EdgeUpdate, Long> adjacency = graph.adjacency().keyBy(new PartitionedKHop.UpdateNode(), Types.LONG);
        int bucketSize = o.bucketSize();
        for (int round = 1; round <= o.pprRounds(); round++) {
            SingleOutputStreamOperator<PprAnswerGroup> lists = adjacency
                    .connect(stage.getSideOutput(PprRoundFunction.requests(round)).keyBy(new RequestNode(), Types.LONG))
                    .transform("ppr-fetch-" + round, TypeInformation.of(PprAnswerGroup.class),
                            new VersionedPprFetchOperator(o.pprMaxNeighbors(), o.seed(), bucketSize,
                                    round == 1))
                    .uid("ppr-fetch-" + round).setBufferTimeout(ROUND_BUFFER_TIMEOUT_MS);
            DataStream<PprAnswerGroup> degrees = adjacency
                    .connect(lists.getSideOutput(VersionedPprFetchOperator.DEGREE_REQUESTS)
                            .keyBy(new RequestNode(), Types.LONG))
                    .transform("ppr-degrees-" + round, TypeInformation.of(PprAnswerGroup.class),
                            new VersionedPprDegreeOperator(bucketSize))
                    .uid("ppr-degrees-" + round).setBufferTimeout(ROUND_BUFFER_TIMEOUT_MS);
            stage = round(stage, lists.union(degrees), round, o);
        }
        return finish(env, spec, stage, o);
    }

    /**
     * The loaded graph's description a savepoint is checked against ({@link SavedGraphCheck}): each fetch round holds
     * its own copy of the lists (uids ppr-fetch-N), so a savepoint restores into a job with the same rounds and cap.
     */
    private static String savedGraph(GraphSpec spec, StageOptions o) throws IOException {
        // Without updates the lists are not bucketed: bucket size 0, as savepoints of earlier runs describe them.
        int rounds = o.pprRounds();
        return SavedGraphCheck.describe(spec, rounds, o.graphUpdates() == null ? 0 : o.bucketSize())
                + ", ppr fetch rounds " + rounds + ", ppr-max-neighbors " + o.pprMaxNeighbors() + ", ppr layout 4";
    }

    /** The cached lookups the automatic cache size is shared by: one per fetch round, and the node-data lookup. */
    private static int cacheLookups(GraphSpec spec, int rounds) {
        return rounds + (spec.nodeFeatures() != null ? 1 : 0);
    }

    private static PprStartFunction start(StageOptions o) {
        return new PprStartFunction(o.seedIds(), o.alpha(), o.eps(), o.maxPprNodes(), o.residualTopUp());
    }

    private static SingleOutputStreamOperator<PprPartial> round(SingleOutputStreamOperator<PprPartial> stage,
            DataStream<PprAnswerGroup> answers, int round, StageOptions o) {
        return stage.keyBy(new PartialKey(), Types.LONG)
                .connect(answers.keyBy(new AnswerKey(), Types.LONG))
                .process(new PprRoundFunction(round, o.pprRounds()))
                .returns(TypeInformation.of(PprPartial.class))
                .name("ppr-round-" + round).uid("ppr-round-" + round + o.runTag())
                .setBufferTimeout(ROUND_BUFFER_TIMEOUT_MS);
    }

    private static DataStream<EncodedMessage> finish(StreamExecutionEnvironment env, GraphSpec spec,
            SingleOutputStreamOperator<PprPartial> stage, StageOptions o) throws IOException {
        String runTag = o.runTag();
        SingleOutputStreamOperator<PartialBatch> selected = stage
                .process(new PprFinishFunction(o.maxPprNodes(), o.residualTopUp(), spec.nodeFeatures() != null))
                .returns(TypeInformation.of(PartialBatch.class))
                .name("ppr-select").uid("ppr-select" + runTag);
        return PartitionedKHop.withNodeData(env, spec, selected, o.graphUpdates() != null, o, runTag,
                cacheLookups(spec, o.pprRounds()));
    }

    /** A load group's edges one by one, each with its group and place in it (its list order), without a degree. */
    static final class GroupEdges implements FlatMapFunction<EdgeGroup, PprEdge> {
        private static final long serialVersionUID = 1L;

        @Override
        public void flatMap(EdgeGroup group, Collector<PprEdge> out) {
            for (int i = 0; i < group.neighbors.length; i++) {
                out.collect(new PprEdge(group.node, group.neighbors[i], group.order, i, 0));
            }
        }
    }

    /** Keys an edge by its neighbour (whose degree it needs). */
    static final class EdgeNeighbor implements KeySelector<PprEdge, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(PprEdge edge) {
            return edge.neighbor;
        }
    }

    /** Keys a degree-carrying edge by the node whose list it joins. */
    static final class PprEdgeNode implements KeySelector<PprEdge, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(PprEdge edge) {
            return edge.node;
        }
    }

    /** Keys a built list by its node. */
    static final class ListNode implements KeySelector<PprNodeList, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(PprNodeList list) {
            return list.node;
        }
    }

    /** Keys a fetch request group by its first node (every node of a group has the same fetch subtask). */
    static final class RequestNode implements KeySelector<PprFetchRequest, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(PprFetchRequest request) {
            return request.node;
        }
    }

    /** Keys a batch by (epoch, batch id). */
    static final class PartialKey implements KeySelector<PprPartial, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(PprPartial batch) {
            return batch.batchKey;
        }
    }

    /** Keys an answer group by its batch. */
    static final class AnswerKey implements KeySelector<PprAnswerGroup, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(PprAnswerGroup answer) {
            return answer.batchKey;
        }
    }
}
