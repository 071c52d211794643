package io.fanout.flink.partitioned;

import io.fanout.batch.SeedBatch;
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
 * {@link PprStartFunction} with graph updates (as {@link VersionedBatchStartOperator} for k-hop): input 2 is every
 * committed graph version, and each batch's pushes read the graph at the highest version committed when it starts.
 */
public class VersionedPprStartOperator extends AbstractStreamOperator<PprPartial>
        implements TwoInputStreamOperator<SeedBatch, Long, PprPartial> {
    private static final long serialVersionUID = 1L;

    private final PprStartFunction starter;

    private transient long version;
    private transient ListState<Long> checkpointed;

    public VersionedPprStartOperator(PprStartFunction starter) {
        this.starter = starter;
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
        OutputTag<PprFetchRequest> tag = PprRoundFunction.requests(1);
        PprPartial start = starter.start(element.getValue(), version, getRuntimeContext().getTaskInfo(),
                r -> output.collect(tag, element.hasTimestamp() ? new StreamRecord<>(r, element.getTimestamp())
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
