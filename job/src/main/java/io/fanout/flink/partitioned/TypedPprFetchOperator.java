package io.fanout.flink.partitioned;

import io.fanout.flink.partitioned.TypedPprRecords.Answer;
import io.fanout.flink.partitioned.TypedPprRecords.Rows;
import io.fanout.sampling.ppr.TypedNodeRows;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * One typed PPR fetch round's row lookup over its own copy of the rows (keyed by node key, RocksDB), as
 * {@link PprFetchOperator} for plain lists: input 1 loads each node's rows ({@link TypedPprRowsOperator}), input 2
 * asks for nodes' rows ({@link PprFetchRequest} of node keys) and gets them back as one record per request. A node
 * without edges is answered with empty rows (dangling); a request that arrives while rows still load waits.
 */
public class TypedPprFetchOperator extends AbstractStreamOperator<Answer>
        implements TwoInputStreamOperator<Rows, PprFetchRequest, Answer>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "typed-waiting-requests";

    private final int numEdgeTypes;

    private transient ValueState<byte[]> rows;
    private transient ListState<PprFetchRequest> waiting;
    private transient boolean rowsDone;
    private transient byte[] empty;

    TypedPprFetchOperator(int numEdgeTypes) {
        this.numEdgeTypes = numEdgeTypes;
    }

    @Override
    public void open() throws Exception {
        super.open();
        rows = getRuntimeContext().getState(new ValueStateDescriptor<>("typed-ppr-rows",
                PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
        waiting = getRuntimeContext().getListState(new ListStateDescriptor<>(WAITING,
                TypeInformation.of(PprFetchRequest.class)));
        empty = TypedNodeRows.empty(numEdgeTypes).toBytes();
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (inputId != 1) {
            return;
        }
        rowsDone = true;
        KeyedDrain.drain(this, WAITING, waiting, this::answer);
    }

    @Override
    public void processElement1(StreamRecord<Rows> element) throws Exception {
        rows.update(element.getValue().rows);
    }

    @Override
    public void processElement2(StreamRecord<PprFetchRequest> element) throws Exception {
        if (rowsDone) {
            answer(element.getValue());
        } else {
            waiting.add(element.getValue());
        }
    }

    private void answer(PprFetchRequest request) throws Exception {
        byte[][] out = new byte[request.nodes.length][];
        for (int i = 0; i < out.length; i++) {
            RequestRouting.toKey(this, request.nodes[i]);
            byte[] stored = rows.value();
            out[i] = stored == null ? empty : stored;
        }
        output.collect(new StreamRecord<>(new Answer(request.batchKey, request.nodes, out)));
    }
}
