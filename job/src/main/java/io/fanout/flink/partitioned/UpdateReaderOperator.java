package io.fanout.flink.partitioned;

import io.fanout.flink.updates.UpdateLine;
import io.fanout.graph.EdgeUpdateParser;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.OutputTag;

/**
 * The one reader of the graph-update lines (parallelism 1: versions form one sequence): parses them
 * ({@link EdgeUpdateParser}) into stored-edge updates for the lookups and announces each committed version twice:
 * as a watermark (its own, never the source's), which reaches every lookup subtask however the updates are keyed,
 * and as a record on {@link #COMMITTED} for the batch start. Before any update it emits watermark 0: the loaded
 * graph.
 */
public class UpdateReaderOperator extends AbstractStreamOperator<EdgeUpdate>
        implements OneInputStreamOperator<UpdateLine, EdgeUpdate>, BoundedOneInput {
    private static final long serialVersionUID = 1L;

    /** Accumulator: update rows read. */
    public static final String UPDATES = "fanout.graph-updates";

    /** Side output: each committed version, once, ascending. */
    public static final OutputTag<Long> COMMITTED = new OutputTag<>("graph-versions", Types.LONG);

    private final EdgeUpdateParser parser;

    private transient Map<String, Long> socketLines;
    private transient ListState<long[]> position;
    private transient LongCounter updates;
    private transient EdgeUpdateParser.Sink sink;

    public UpdateReaderOperator(EdgeUpdateParser parser) {
        this.parser = parser;
    }

    @Override
    public void initializeState(StateInitializationContext context) throws Exception {
        super.initializeState(context);
        position = context.getOperatorStateStore().getListState(new ListStateDescriptor<>("update-position",
                PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
        for (long[] p : position.get()) {
            parser.restore(p);
        }
    }

    @Override
    public void snapshotState(StateSnapshotContext context) throws Exception {
        super.snapshotState(context);
        position.update(java.util.List.of(parser.position()));
    }

    @Override
    public void open() throws Exception {
        super.open();
        socketLines = new HashMap<>();
        updates = getRuntimeContext().getLongCounter(UPDATES);
        sink = new EdgeUpdateParser.Sink() {
            @Override
            public void update(long node, long neighbor, boolean add, long version, long sequence, boolean primary,
                    String where) {
                if (primary) {
                    updates.add(1);
                }
                output.collect(new StreamRecord<>(EdgeUpdate.of(node, neighbor, add, version, sequence, primary, where)));
            }

            @Override
            public void commit(long version) {
                output.collect(COMMITTED, new StreamRecord<>(version));
                output.emitWatermark(new Watermark(version));
            }
        };
        output.emitWatermark(new Watermark(parser.committed()));
    }

    @Override
    public void processElement(StreamRecord<UpdateLine> element) throws Exception {
        UpdateLine line = element.getValue();
        if (line.text == null) {
            parser.endOfFile(sink);
            return;
        }
        long number = line.line;
        if (number == 0) {
            number = socketLines.merge(line.source, 1L, Long::sum);
        }
        parser.line(line.source, number, line.text, sink);
    }

    @Override
    public void endInput() throws Exception {
        parser.endOfFile(sink); // the stream ended: everything it had is read
    }

    @Override
    public void processWatermark(Watermark mark) {
        // The source's watermarks are not versions: this operator emits its own.
    }

    @Override
    public void processWatermarkStatus(WatermarkStatus status) {
        // Idle or not, the update stream must never hold back or release the sampling path's watermarks.
    }
}
