package io.fanout.flink.partitioned;

import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * Puts each neighbour's degree on the edges, for PPR's queue threshold {@code alpha * eps * max(deg(w), 1)} (GiGL
 * reads it from a degree tensor it holds whole; here it travels with the edge, so no heap grows with the graph).
 * Keyed by node x (RocksDB): input 1 is every edge of x's own list (counted: deg(x)), input 2 every edge
 * u -> x (kept until the degree is final). When both inputs end, each edge u -> x goes out as a {@link PprEdge}
 * carrying deg(x).
 */
public class NeighborDegreeOperator extends AbstractStreamOperator<PprEdge>
        implements TwoInputStreamOperator<EdgeRecord, EdgeRecord, PprEdge>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;
    private static final String ASKERS = "askers";

    private transient ValueState<Integer> degree;
    /** Edges u -> x of the current key x: order -> u. */
    private transient MapState<Long, Long> askers;
    private transient int ended;

    @Override
    public void open() throws Exception {
        super.open();
        degree = getRuntimeContext().getState(new ValueStateDescriptor<>("degree", Types.INT));
        askers = getRuntimeContext().getMapState(new MapStateDescriptor<>(ASKERS, Types.LONG, Types.LONG));
    }

    @Override
    public void processElement1(StreamRecord<EdgeRecord> element) throws Exception {
        Integer d = degree.value();
        degree.update(d == null ? 1 : d + 1);
    }

    @Override
    public void processElement2(StreamRecord<EdgeRecord> element) throws Exception {
        EdgeRecord edge = element.getValue();
        askers.put(edge.order, edge.node);
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (++ended < 2) {
            return;
        }
        for (Object key : KeyedDrain.keysOf(this, ASKERS)) {
            setCurrentKey(key);
            Integer d = degree.value();
            int deg = d == null ? 0 : d;
            long x = (Long) key;
            for (Map.Entry<Long, Long> e : askers.entries()) {
                output.collect(new StreamRecord<>(new PprEdge(e.getValue(), x, e.getKey(), deg)));
            }
            askers.clear();
        }
    }
}
