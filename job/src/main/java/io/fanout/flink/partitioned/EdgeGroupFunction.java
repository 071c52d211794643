package io.fanout.flink.partitioned;

import io.fanout.graph.GraphLoader;
import io.fanout.store.GraphSpec;
import java.util.Arrays;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * {@link EdgeFileFunction} for the PPR loads: one edge split's stored edges grouped by node ({@link EdgeGroup},
 * {@link SplitGroups}), so one record and one state write carry a node's run of edges instead of one edge (a
 * per-edge record and RocksDB put bounded the load). One split is emitted whole before the next element or
 * checkpoint barrier, so a restore never loads a split twice. The k-hop lookups take the groups a subtask owns as
 * one record ({@link EdgeGroupBatchFunction}).
 */
public class EdgeGroupFunction implements FlatMapFunction<Long, EdgeGroup> {
    private static final long serialVersionUID = 1L;

    private final GraphSpec spec;
    private final java.util.ArrayList<GraphLoader.EdgeSplit> splits;
    private transient SplitGroups groups;

    /** @param splits the graph's edge splits ({@link PartitionedKHop#edgeSplits}); an input element is an index into them */
    public EdgeGroupFunction(GraphSpec spec, java.util.List<GraphLoader.EdgeSplit> splits) {
        this.spec = spec;
        this.splits = new java.util.ArrayList<>(splits);
    }

    @Override
    public void flatMap(Long splitIndex, Collector<EdgeGroup> out) throws Exception {
        if (groups == null) {
            groups = new SplitGroups();
        }
        groups.read(spec, splits, splitIndex, (node, order, neighbors, weights, times, eids, from, to) ->
                out.collect(new EdgeGroup(node, order, Arrays.copyOfRange(neighbors, from, to))));
    }
}
