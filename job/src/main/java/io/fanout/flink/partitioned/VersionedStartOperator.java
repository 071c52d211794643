package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
import java.io.Serializable;
import java.util.function.Consumer;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.OutputTag;

/**
 * The batch start with graph updates, for k-hop ({@link BatchStartFunction}) and PPR ({@link PprStartFunction}):
 * input 2 is every committed graph version (broadcast from the one update reader), and each batch is fixed at the
 * highest version committed when it starts. The batches' watermarks (epoch ends) pass on untouched; the version
 * stream's never count.
 *
 * @param <O> the started batch
 * @param <R> its first requests, on {@code requests}
 */
public class VersionedStartOperator<O, R> extends AbstractStreamOperator<O>
        implements TwoInputStreamOperator<SeedBatch, Long, O> {
    private static final long serialVersionUID = 1L;

    /** Starts one batch at a graph version: its state, with its first requests sent to {@code requests}. */
    @FunctionalInterface
    public interface Starter<O, R> extends Serializable {
        O start(SeedBatch batch, long version, TaskInfo task, Consumer<R> requests);
    }

    private final Starter<O, R> starter;
    private final OutputTag<R> requests;

    private transient long version;
    private transient ListState<Long> checkpointed;

    public VersionedStartOperator(Starter<O, R> starter, OutputTag<R> requests) {
        this.starter = starter;
        this.requests = requests;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        checkpointed = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("graph-version", Types.LONG));
        for (Long v : checkpointed.get()) {
            version = Math.max(version, v);
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        checkpointed.update(java.util.List.of(version));
    }

    @Override
    public void processElement1(StreamRecord<SeedBatch> element) {
        O start = starter.start(element.getValue(), version, getRuntimeContext().getTaskInfo(),
                r -> output.collect(requests, element.hasTimestamp() ? new StreamRecord<>(r, element.getTimestamp())
                        : new StreamRecord<>(r)));
        output.collect(element.replace(start));
    }

    @Override
    public void processElement2(StreamRecord<Long> element) {
        version = Math.max(version, element.getValue());
    }

    @Override
    public void processWatermark1(Watermark mark) {
        output.emitWatermark(mark);
    }

    @Override
    public void processWatermark2(Watermark mark) {
        // Versions, not epochs.
    }

    @Override
    protected void processWatermarkStatus(WatermarkStatus status, int inputIndex) {
        if (inputIndex == 0) {
            output.emitWatermarkStatus(status);
        }
        // Input 2's idleness says nothing about epochs.
    }
}
