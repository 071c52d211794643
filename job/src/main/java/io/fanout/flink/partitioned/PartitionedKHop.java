package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.connectors.message.EncodedMessage;
import io.fanout.features.FeatureDType;
import io.fanout.features.NodeFeatures;
import io.fanout.features.NodeFileReader;
import io.fanout.graph.GraphLoader;
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
     * The messages of {@code batches}, sampled over the graph {@code spec} names.
     *
     * @param seedIds the seed list's node ids by index, or null when ids equal indices
     * @param bucketSize neighbours per stored bucket of a node's list ({@link NeighborLookupOperator})
     * @param runTag appended to the uids of the batch path (batch start, hop stages, node-data gather,
     *     messages): a job started from a savepoint of a loaded graph restores the graph operators (fixed uids)
     *     but not another run's batches in flight, when its tag differs
     */
    public static DataStream<EncodedMessage> build(StreamExecutionEnvironment env, DataStream<SeedBatch> batches,
            GraphSpec spec, int[] fanouts, boolean replace, long seed, long[] seedIds, int bucketSize, String runTag)
            throws IOException {
        int parts = GraphLoader.edgeFiles(spec.edges()).size();
        DataStream<EdgeRecord> edges = env
                .fromSource(new NumberSequenceSource(0, parts - 1), WatermarkStrategy.noWatermarks(), "edge-parts")
                .uid("edge-parts")
                .flatMap(new EdgeFileFunction(spec)).returns(TypeInformation.of(EdgeRecord.class))
                .name("edge-reader").uid("edge-reader");

        boolean nodeData = spec.nodeFeatures() != null;
        SingleOutputStreamOperator<PartialBatch> stage = batches
                .map(new SavedGraphCheck(SavedGraphCheck.describe(spec, fanouts.length, bucketSize)))
                .returns(batches.getType()).name("saved-graph-check").uid(SavedGraphCheck.UID)
                .process(new BatchStartFunction(seedIds)).returns(TypeInformation.of(PartialBatch.class))
                .name("batch-start").uid("batch-start" + runTag);
        for (int hop = 1; hop <= fanouts.length; hop++) {
            DataStream<HopAnswer> answers = edges.keyBy(new EdgeNode(), Types.LONG)
                    .connect(stage.getSideOutput(HopStageFunction.requests(hop)).keyBy(new RequestNode(), Types.LONG))
                    .transform("neighbors-hop-" + hop, TypeInformation.of(HopAnswer.class),
                            new NeighborLookupOperator(fanouts[hop - 1], replace, seed, bucketSize))
                    .uid("neighbors-hop-" + hop);
            stage = stage.keyBy(new PartialKey(), Types.LONG)
                    .connect(answers.keyBy(new AnswerKey(), Types.LONG))
                    .process(new HopStageFunction(hop, hop == fanouts.length, nodeData))
                    .returns(TypeInformation.of(PartialBatch.class))
                    .name("hop-" + hop).uid("hop-" + hop + runTag);
        }
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
                    .transform("node-data", TypeInformation.of(NodeDataAnswer.class), new NodeDataLookupOperator())
                    .uid("node-data");
            stage = stage.keyBy(new PartialKey(), Types.LONG)
                    .connect(nodeAnswers.keyBy(new NodeAnswerKey(), Types.LONG))
                    .process(new NodeDataStageFunction())
                    .returns(TypeInformation.of(PartialBatch.class))
                    .name("node-data-gather").uid("node-data-gather" + runTag);
        }
        return stage.map(new MessageFunction(nodeData ? spec.featureDType() : null, scale, offset))
                .returns(TypeInformation.of(EncodedMessage.class))
                .name("khop-messages").uid("khop-messages" + runTag);
    }

    /** Keys an edge by the node whose list it joins. */
    static final class EdgeNode implements KeySelector<EdgeRecord, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(EdgeRecord edge) {
            return edge.node;
        }
    }

    /** Keys a request by the node it asks about. */
    static final class RequestNode implements KeySelector<HopRequest, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(HopRequest request) {
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

    /** Keys an answer by its batch. */
    static final class AnswerKey implements KeySelector<HopAnswer, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(HopAnswer answer) {
            return answer.batchKey;
        }
    }
}
