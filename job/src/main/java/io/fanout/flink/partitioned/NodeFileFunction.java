package io.fanout.flink.partitioned;

import io.fanout.features.FeatureDType;
import io.fanout.features.NodeFeatures;
import io.fanout.features.NodeFileReader;
import io.fanout.graph.GraphFormatException;
import java.nio.file.Path;
import org.apache.flink.api.common.functions.FlatMapFunction;
import org.apache.flink.util.Collector;

/**
 * Reads one part of the node file(s) per input element (its index in {@link NodeFileReader#parts}) and emits
 * each row with its features encoded as messages ship them, so node data loads in parallel on the
 * TaskManagers. As {@link EdgeFileFunction}, a part is emitted whole before the next element or barrier.
 */
public class NodeFileFunction implements FlatMapFunction<Long, NodeRecord> {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final FeatureDType dtype;
    /** uint8: the whole file's per-column scale and offset; else null. */
    private final float[] scale;
    private final float[] offset;

    public NodeFileFunction(Path path, FeatureDType dtype, float[] scale, float[] offset) {
        this.path = path.toString();
        this.dtype = dtype;
        this.scale = scale;
        this.offset = offset;
    }

    @Override
    public void flatMap(Long part, Collector<NodeRecord> out) throws Exception {
        try {
            NodeFileReader.streamRows(Path.of(path), Math.toIntExact(part), (id, label, features) ->
                    out.collect(new NodeRecord(id, label, NodeFeatures.encodeRow(features, dtype, scale, offset))));
        } catch (GraphFormatException e) {
            throw LoadFailure.badInput(e);
        }
    }
}
