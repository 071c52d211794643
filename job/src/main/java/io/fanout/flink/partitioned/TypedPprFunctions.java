package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import io.fanout.flink.partitioned.TypedPprRecords.Answer;
import io.fanout.flink.partitioned.TypedPprRecords.Partial;
import io.fanout.sampling.ppr.PprChannels;
import io.fanout.sampling.ppr.TypedNodeRows;
import io.fanout.sampling.ppr.TypedPprBatchPush;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * The batch side of the partitioned typed PPR, keyed by batch: start (one {@link TypedPprBatchPush} per batch), the
 * fetch rounds (push with the rows fetched, ask for the rows missing) and the finish (the memory store's selection
 * as a {@link TypedPartialBatch}). The algorithm is {@link TypedPprBatchPush}'s; these only move its state.
 */
public final class TypedPprFunctions {
    private TypedPprFunctions() {}

    /** Side output of fetch round {@code round}'s requests. */
    static OutputTag<PprFetchRequest> requests(int round) {
        return SideOutputs.tag("typed-ppr-round-" + round + "-requests", PprFetchRequest.class);
    }

    /** What every batch's push is built from: the graph's shape and the PPR options. */
    static final class Setup implements Serializable {
        private static final long serialVersionUID = 1L;
        final TypedLayout layout;
        /** --ppr-channels as written, or null (parsed again where used: PprChannels is not serializable). */
        final String channels;
        final double alpha;
        final double eps;
        final int maxPprNodes;
        final boolean residualTopUp;
        final boolean includeSampledEdges;

        Setup(TypedLayout layout, PprChannels channels, double alpha, double eps, int maxPprNodes,
                boolean residualTopUp, boolean includeSampledEdges) {
            this.layout = layout;
            this.channels = channels == null ? null : channels.toString();
            this.alpha = alpha;
            this.eps = eps;
            this.maxPprNodes = maxPprNodes;
            this.residualTopUp = residualTopUp;
            this.includeSampledEdges = includeSampledEdges;
        }

        List<String> edgeTypeNames() {
            List<String> names = new ArrayList<>();
            layout.edgeTypes.forEach(t -> names.add(t.toString()));
            return names;
        }

        TypedPprBatchPush push(long[] seedKeys) {
            PprChannels parsed = channels == null ? null : PprChannels.parse(channels, layout.edgeTypes);
            return new TypedPprBatchPush(seedKeys, layout.nodeTypes.size(), layout.keyType, edgeTypeNames(), parsed,
                    alpha, eps, maxPprNodes, residualTopUp, includeSampledEdges);
        }
    }

    /** Starts a batch: one push per distinct seed and channel; round 1 fetches the seeds' rows. */
    static final class Start extends ProcessFunction<SeedBatch, Partial> {
        private static final long serialVersionUID = 1L;
        private final Setup setup;
        /** The seed type's node ids by index, or null when ids equal indices. */
        private final long[] nodeIds;

        Start(Setup setup, long[] nodeIds) {
            this.setup = setup;
            this.nodeIds = nodeIds;
        }

        @Override
        public void processElement(SeedBatch batch, Context ctx, Collector<Partial> out) {
            long[] seeds = new long[batch.size()];
            long[] keys = new long[seeds.length];
            for (int i = 0; i < seeds.length; i++) {
                seeds[i] = batch.seedId(i, nodeIds);
                keys[i] = TypedPprBatchPush.key(setup.layout.seedType, seeds[i]);
            }
            TypedPprBatchPush push = setup.push(keys);
            long[] missing = push.advance(true);
            Partial start = new Partial();
            start.batchKey = batch.key();
            start.epoch = batch.epoch;
            start.batchId = batch.batchId;
            start.numBatches = batch.numBatches;
            start.seeds = seeds;
            start.inputIds = batch.inputIds;
            start.state = Partial.stateOf(push);
            start.pending = missing.length;
            PprFetchRequest.send(start.batchKey, 0, missing, getRuntimeContext().getTaskInfo(),
                    r -> ctx.output(requests(1), r));
            out.collect(start);
        }
    }

    /**
     * Fetch round {@code r}: input 1 a batch after round r-1, input 2 the rows it asked for; once every row is in
     * ({@link GatherStageFunction}), the pushes go on and the rows they miss go out on {@link #requests(int)
     * requests(r+1)}. The last round allows no further fetch. A batch whose pushes finished passes through.
     */
    static final class Round extends GatherStageFunction<Partial, Answer> {
        private static final long serialVersionUID = 1L;
        private final int round;
        private final int rounds;

        Round(int round, int rounds) {
            super("typed-ppr-batch", Partial.class, "typed-ppr-answers", Answer.class);
            this.round = round;
            this.rounds = rounds;
        }

        @Override
        protected boolean passesOn(Partial partial) {
            return partial.pending == 0;
        }

        @Override
        protected int expected(Partial partial) {
            return partial.pending;
        }

        @Override
        protected int counted(Answer answer) {
            return answer.nodes.length;
        }

        @Override
        protected void complete(Partial partial, List<Answer> answers, Context ctx, Collector<Partial> out) {
            TypedPprBatchPush push = TypedPprBatchPush.fromBytes(partial.state);
            for (Answer a : answers) {
                for (int i = 0; i < a.nodes.length; i++) {
                    push.addRows(a.nodes[i], TypedNodeRows.fromBytes(a.rows[i]));
                }
            }
            long[] missing = push.advance(round < rounds);
            partial.state = Partial.stateOf(push);
            partial.pending = missing.length;
            OutputTag<PprFetchRequest> tag = requests(round + 1);
            PprFetchRequest.send(partial.batchKey, 0, missing, getRuntimeContext().getTaskInfo(),
                    r -> ctx.output(tag, r));
            out.collect(partial);
        }
    }

    /**
     * A batch after its last round as its sampled subgraph ({@link TypedPprBatchPush#select}, the memory store's
     * selection and layout, node keys as ids per type); with labelled node files, one request per node of each such
     * type for its features and label.
     */
    static final class Finish extends ProcessFunction<Partial, TypedPartialBatch> {
        private static final long serialVersionUID = 1L;
        private final boolean[] nodeData;

        Finish(boolean[] nodeData) {
            this.nodeData = nodeData.clone();
        }

        @Override
        public void processElement(Partial partial, Context ctx, Collector<TypedPartialBatch> out) {
            TypedPprBatchPush.Result result = TypedPprBatchPush.fromBytes(partial.state).select();
            TypedPartialBatch batch = new TypedPartialBatch();
            batch.batchKey = partial.batchKey;
            batch.epoch = partial.epoch;
            batch.batchId = partial.batchId;
            batch.numBatches = partial.numBatches;
            batch.seeds = partial.seeds;
            batch.inputIds = partial.inputIds;
            int t = result.nodes.length;
            batch.ids = new long[t][];
            for (int type = 0; type < t; type++) {
                long[] keys = result.nodes[type];
                long[] ids = new long[keys.length];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = TypedPprBatchPush.idOf(keys[i]);
                }
                batch.ids[type] = ids;
            }
            batch.pprEdgeIndex = result.edgeIndex;
            batch.pprWeights = result.weights;
            batch.pprColumns = result.columns;
            batch.rows = result.sampledRows;
            batch.cols = result.sampledCols;
            TypedLayout.sendNodeDataRequests(batch.ids, nodeData, batch.batchKey, getRuntimeContext().getTaskInfo(),
                    ctx::output);
            out.collect(batch);
        }
    }
}
