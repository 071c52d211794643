package io.fanout.flink.partitioned;

import io.fanout.graph.GraphFormatException;
import io.fanout.graph.GraphLoader;
import io.fanout.store.GraphSpec;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Reads one part of the edge files per input element (its index in the graph's sorted part list) and emits
 * its stored edges, so the parts load in parallel on the TaskManagers, never on the client. One part is
 * emitted whole before the next element or checkpoint barrier, so a restore never loads a part twice.
 */
public class EdgeFileFunction implements FlatMapFunction<Long, EdgeRecord> {
    private static final long serialVersionUID = 1L;

    private final GraphSpec spec;

    public EdgeFileFunction(GraphSpec spec) {
        this.spec = spec;
    }

    @Override
    public void flatMap(Long fileIndex, Collector<EdgeRecord> out) throws Exception {
        try {
            GraphLoader.streamEdges(spec.edges(), spec.directed(), Math.toIntExact(fileIndex), spec.direction(),
                    (node, neighbor, order) -> out.collect(new EdgeRecord(node, neighbor, order)));
        } catch (GraphFormatException e) {
            throw LoadFailure.badInput(e);
        }
    }
}
