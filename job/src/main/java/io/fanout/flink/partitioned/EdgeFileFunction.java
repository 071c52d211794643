package io.fanout.flink.partitioned;

import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import java.nio.file.Path;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Reads one part of the edge files per input element (its index in the graph's sorted part list) and emits
 * its stored edges, so the parts load in parallel on the TaskManagers, never on the client. One part is
 * emitted whole before the next element or checkpoint barrier, so a restore never loads a part twice.
 */
public class EdgeFileFunction implements FlatMapFunction<Long, EdgeRecord> {
    private static final long serialVersionUID = 1L;

    private final String graph;
    private final EdgeDirection direction;

    public EdgeFileFunction(String graph, EdgeDirection direction) {
        this.graph = graph;
        this.direction = direction;
    }

    @Override
    public void flatMap(Long fileIndex, Collector<EdgeRecord> out) throws Exception {
        GraphLoader.streamEdges(Path.of(graph), Math.toIntExact(fileIndex), direction,
                (node, neighbor, order) -> out.collect(new EdgeRecord(node, neighbor, order)));
    }
}
