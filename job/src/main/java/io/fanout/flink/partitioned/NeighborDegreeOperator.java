package io.fanout.flink.partitioned;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Puts each neighbour's degree on the edges, for PPR's queue threshold {@code alpha * eps * max(deg(w), 1)} (GiGL
 * reads it from a degree tensor it holds whole; here it travels with the edge, so no heap grows with the graph).
 * Keyed by node x (RocksDB): input 1 is x's own list as load groups ({@link EdgeGroup}: one state update per group
 * counts deg(x)), input 2 every edge u -> x ({@link PprEdge} without a degree), appended to x's askers by a blind
 * RocksDB merge. When both inputs end, each edge u -> x goes out carrying deg(x).
 *
 * <p>That last step walks the askers' keys ({@link KeyedDrain#forEachKey}: no list of the graph's nodes on the
 * heap), and each node's askers are read by one point read and cleared.
 */
public class NeighborDegreeOperator extends AbstractStreamOperator<PprEdge>
        implements TwoInputStreamOperator<EdgeGroup, PprEdge, PprEdge>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final ListStateDescriptor<long[]> ASKERS = new ListStateDescriptor<>("askers",
            PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    private transient ValueState<Integer> degree;
    /** Edges u -> x of the current key x: {@code [u, order, position]} each. */
    private transient ListState<long[]> askers;
    private transient int ended;

    @Override
    public void open() throws Exception {
        super.open();
        degree = getRuntimeContext().getState(new ValueStateDescriptor<>("degree", Types.INT));
        askers = getRuntimeContext().getListState(ASKERS);
    }

    @Override
    public void processElement1(StreamRecord<EdgeGroup> element) throws Exception {
        Integer d = degree.value();
        int size = element.getValue().neighbors.length;
        degree.update(d == null ? size : d + size);
    }

    @Override
    public void processElement2(StreamRecord<PprEdge> element) throws Exception {
        PprEdge edge = element.getValue();
        askers.add(new long[] {edge.node, edge.order, edge.position});
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (++ended < 2) {
            return;
        }
        KeyedDrain.forEachKey(this, ASKERS, (key, keyAskers) -> {
            Integer d = degree.value();
            int deg = d == null ? 0 : d;
            long x = (Long) key;
            for (long[] asker : keyAskers.get()) {
                output.collect(new StreamRecord<>(new PprEdge(asker[0], x, asker[1], (int) asker[2], deg)));
            }
            keyAskers.clear();
        });
    }
}
