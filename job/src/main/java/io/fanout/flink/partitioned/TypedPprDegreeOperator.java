package io.fanout.flink.partitioned;

import io.fanout.flink.partitioned.TypedPprRecords.Edge;
import io.fanout.flink.partitioned.TypedPprRecords.GroupSize;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Puts each neighbour's degree along every edge type on the edges of a typed graph, as {@link NeighborDegreeOperator}
 * puts one degree (a channel's queue threshold sums a neighbour's degrees over the channel's edge types before its
 * own rows are fetched). Keyed by node key x (RocksDB): input 1 counts x's load groups per edge type, input 2 is
 * every edge u -> x, appended to x's askers; when both end, each edge goes out with x's degrees.
 */
public class TypedPprDegreeOperator extends AbstractStreamOperator<Edge>
        implements TwoInputStreamOperator<GroupSize, Edge, Edge>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final ListStateDescriptor<long[]> ASKERS = new ListStateDescriptor<>("typed-askers",
            PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    private final int numEdgeTypes;

    private transient ValueState<int[]> degrees;
    /** Edges u -> x of the current key x: {@code [u, edge type, order, position]} each. */
    private transient ListState<long[]> askers;
    private transient int ended;

    TypedPprDegreeOperator(int numEdgeTypes) {
        this.numEdgeTypes = numEdgeTypes;
    }

    @Override
    public void open() throws Exception {
        super.open();
        degrees = getRuntimeContext().getState(new ValueStateDescriptor<>("typed-degrees",
                PrimitiveArrayTypeInfo.INT_PRIMITIVE_ARRAY_TYPE_INFO));
        askers = getRuntimeContext().getListState(ASKERS);
    }

    @Override
    public void processElement1(StreamRecord<GroupSize> element) throws Exception {
        int[] d = degrees.value();
        if (d == null) {
            d = new int[numEdgeTypes];
        }
        d[element.getValue().edgeType] += element.getValue().size;
        degrees.update(d);
    }

    @Override
    public void processElement2(StreamRecord<Edge> element) throws Exception {
        Edge edge = element.getValue();
        askers.add(new long[] {edge.node, edge.edgeType, edge.order, edge.position});
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (++ended < 2) {
            return;
        }
        KeyedDrain.forEachKey(this, ASKERS, (key, keyAskers) -> {
            int[] d = degrees.value();
            int[] deg = d == null ? new int[numEdgeTypes] : d;
            long x = (Long) key;
            for (long[] asker : keyAskers.get()) {
                output.collect(new StreamRecord<>(new Edge(asker[0], x, (int) asker[1], asker[2], (int) asker[3],
                        deg)));
            }
            keyAskers.clear();
        });
    }
}
