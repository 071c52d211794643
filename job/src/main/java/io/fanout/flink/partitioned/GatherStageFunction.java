package io.fanout.flink.partitioned;

import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;
import org.apache.flink.util.Collector;

/**
 * A stage keyed by batch that gathers what a batch asked for: input 1 is the batch, input 2 the answers (grouped or
 * one by one, in any order, before or after their batch). The answers wait in keyed state until the answers the
 * batch waits for are counted in ({@link AnswerTally}); then the state is cleared and {@link #complete} gets the batch
 * and its answers in arrival order, the last one straight from its input, not through state. The hop stages, the
 * node-data gathers and the PPR fetch rounds, plain and typed, are such stages; each names its own state (what a
 * savepoint holds).
 *
 * <p>A waiting batch is kept on the heap, by key, not in keyed state: it nearly always arrives before its answers (they
 * take a round trip through the lookups), and a PPR round's batch carries its whole push state (megabytes), which
 * RocksDB wrote, flushed and compacted away once per round (RocksDB's puts and gets of waiting batches were the largest
 * cost of a RocksDB-backed partitioned PPR job after its list reads). A checkpoint writes the waiting batches into union
 * operator state, and a restored subtask keeps those of its own key groups, so rescaling restores them where their
 * keys go. A batch found in keyed state ({@code batchState}, where savepoints of earlier versions hold them) is read
 * from there.
 *
 * @param <B> the batch, passed on once complete
 * @param <A> an answer
 */
abstract class GatherStageFunction<B, A> extends KeyedCoProcessFunction<Long, B, A, B>
        implements CheckpointedFunction {
    private static final long serialVersionUID = 1L;

    private final String batchState;
    private final Class<B> batchType;
    private final String answersState;
    private final Class<A> answerType;

    /** Batches of earlier versions' savepoints, waiting in keyed state. */
    private transient ValueState<B> batch;
    /** This subtask's waiting batches, by key. */
    private transient Long2ObjectOpenHashMap<B> waiting;
    /** The waiting batches at a checkpoint, every subtask's, with their keys. */
    private transient ListState<Tuple2<Long, B>> checkpointed;
    private transient ListState<A> answers;
    /** Answers counted against what the waiting batch expects. */
    private transient AnswerTally tally;

    /** The batch in value state {@code batchState}, its answers in list state {@code answersState}. */
    GatherStageFunction(String batchState, Class<B> batchType, String answersState, Class<A> answerType) {
        this.batchState = batchState;
        this.batchType = batchType;
        this.answersState = answersState;
        this.answerType = answerType;
    }

    /** The answers {@code batch} waits for (0: it completes at once). */
    protected abstract int expected(B batch) throws Exception;

    /** How many of the expected answers {@code answer} counts for (its nodes, or 1). */
    protected abstract int counted(A answer) throws Exception;

    /** {@code batch} with every answer it waited for (the state already cleared): the stage's work, then out. */
    protected abstract void complete(B batch, List<A> answers, Context ctx, Collector<B> out) throws Exception;

    /** Whether {@code batch} has nothing to gather here and goes on as it is, never stored. */
    protected boolean passesOn(B batch) {
        return false;
    }

    /** Whether the stage's own further waits (beyond the counted answers) are over; see {@link #clearMore}. */
    protected boolean settled() throws Exception {
        return true;
    }

    /** Clears the stage's own further keyed state when its batch completes. */
    protected void clearMore() {}

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        waiting = new Long2ObjectOpenHashMap<>();
        checkpointed = context.getOperatorStateStore().getUnionListState(new ListStateDescriptor<>(
                batchState + "-waiting", Types.TUPLE(Types.LONG, TypeInformation.of(batchType))));
        if (context.isRestored()) {
            TaskInfo task = getRuntimeContext().getTaskInfo();
            for (Tuple2<Long, B> entry : checkpointed.get()) {
                if (KeyGroupRangeAssignment.assignKeyToParallelOperator(entry.f0, task.getMaxNumberOfParallelSubtasks(),
                        task.getNumberOfParallelSubtasks()) == task.getIndexOfThisSubtask()) {
                    waiting.put(entry.f0.longValue(), entry.f1);
                }
            }
        }
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        List<Tuple2<Long, B>> entries = new ArrayList<>(waiting.size());
        waiting.long2ObjectEntrySet().forEach(e -> entries.add(Tuple2.of(e.getLongKey(), e.getValue())));
        checkpointed.update(entries);
    }

    /** Batches waiting for answers in this subtask (on the heap); also the metric {@code fanout.waitingBatches}. */
    int waitingBatches() {
        return waiting.size();
    }

    @Override
    public void open(OpenContext openContext) throws Exception {
        getRuntimeContext().getMetricGroup().addGroup("fanout").gauge("waitingBatches", this::waitingBatches);
        batch = getRuntimeContext().getState(new ValueStateDescriptor<>(batchState, TypeInformation.of(batchType)));
        answers = getRuntimeContext().getListState(new ListStateDescriptor<>(answersState,
                TypeInformation.of(answerType)));
        tally = new AnswerTally(getRuntimeContext());
    }

    @Override
    public void processElement1(B partial, Context ctx, Collector<B> out) throws Exception {
        if (passesOn(partial)) {
            out.collect(partial);
            return;
        }
        waiting.put(ctx.getCurrentKey().longValue(), partial);
        if (tally.expect(expected(partial)) && settled()) {
            finish(ctx, out, null);
        }
    }

    @Override
    public void processElement2(A answer, Context ctx, Collector<B> out) throws Exception {
        if (tally.answer(counted(answer)) && settled()) {
            finish(ctx, out, answer);
        } else {
            answers.add(answer);
        }
    }

    /** Every answer of the stored batch is in (in state, and {@code last} unless null). */
    private void finish(Context ctx, Collector<B> out, A last) throws Exception {
        B partial = waiting.remove(ctx.getCurrentKey().longValue());
        if (partial == null) {
            partial = batch.value();
            batch.clear();
        }
        List<A> received = new ArrayList<>();
        Iterable<A> stored = answers.get();
        if (stored != null) {
            stored.forEach(received::add);
        }
        if (last != null) {
            received.add(last);
        }
        answers.clear();
        tally.clear();
        clearMore();
        complete(partial, received, ctx, out);
    }
}
