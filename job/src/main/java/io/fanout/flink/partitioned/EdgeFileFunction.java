package io.fanout.flink.partitioned;

import io.fanout.graph.GraphFormatException;
import io.fanout.graph.GraphLoader;
import io.fanout.store.GraphSpec;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Reads one edge split per input element (a byte range of a part, its index in
 * {@link PartitionedKHop#edgeSplits}) and emits its stored edges, so the splits load in parallel on the
 * TaskManagers, never on the client. One split is emitted whole before the next element or checkpoint barrier, so
 * a restore never loads a split twice.
 */
public class EdgeFileFunction implements FlatMapFunction<Long, EdgeRecord> {
    private static final long serialVersionUID = 1L;

    private final GraphSpec spec;
    private final java.util.ArrayList<GraphLoader.EdgeSplit> splits;

    /** @param splits the graph's edge splits ({@link PartitionedKHop#edgeSplits}); an input element is an index into them */
    public EdgeFileFunction(GraphSpec spec, java.util.List<GraphLoader.EdgeSplit> splits) {
        this.spec = spec;
        this.splits = new java.util.ArrayList<>(splits);
    }

    @Override
    public void flatMap(Long splitIndex, Collector<EdgeRecord> out) throws Exception {
        try {
            GraphLoader.streamEdges(spec.edges(), spec.typedPart(), spec.directed(), splits.get(Math.toIntExact(splitIndex)), spec.direction(),
                    (node, neighbor, order) -> out.collect(new EdgeRecord(node, neighbor, order)));
        } catch (GraphFormatException e) {
            throw LoadFailure.badInput(e);
        }
    }
}
