package io.fanout.flink.partitioned;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Node features and labels in keyed state (keyed by node id, RocksDB): input 1 loads the node-file rows, input 2
 * asks for a node's row for a batch's message. As in {@link NeighborLookupOperator}, a request that arrives while
 * rows are loading waits in keyed state until the row input ends. State per node: its label and encoded row.
 */
public class NodeDataLookupOperator extends AbstractStreamOperator<NodeDataAnswer>
        implements TwoInputStreamOperator<NodeRecord, NodeDataRequest, NodeDataAnswer>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final String WAITING = "waiting-node-requests";

    private transient ValueState<NodeRecord> row;
    private transient ListState<NodeDataRequest> waiting;
    private transient boolean rowsDone;

    @Override
    public void open() throws Exception {
        super.open();
        row = getRuntimeContext().getState(new ValueStateDescriptor<>("node-row", TypeInformation.of(NodeRecord.class)));
        waiting = getRuntimeContext().getListState(new ListStateDescriptor<>(WAITING,
                TypeInformation.of(NodeDataRequest.class)));
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
    public void processElement1(StreamRecord<NodeRecord> element) throws Exception {
        row.update(element.getValue());
    }

    @Override
    public void processElement2(StreamRecord<NodeDataRequest> element) throws Exception {
        if (rowsDone) {
            answer(element.getValue());
        } else {
            waiting.add(element.getValue());
        }
    }

    private void answer(NodeDataRequest request) throws Exception {
        NodeRecord stored = row.value();
        if (stored == null) {
            // Without --seeds the client's scan checked that every node has a row; given seeds it reads no graph
            // file, so this is a node file that does not cover the graph (or one changed since): every attempt
            // would fail the same way, so the job fails at once.
            throw new SuppressRestartsException(new IllegalStateException("node " + request.node
                    + " is in the graph but has no row in the node file (--node-features must cover every node)"));
        }
        output.collect(new StreamRecord<>(new NodeDataAnswer(request.batchKey, request.position, stored.label,
                stored.row)));
    }
}
