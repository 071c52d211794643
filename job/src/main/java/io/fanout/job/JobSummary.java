package io.fanout.job;

import io.fanout.features.NodeFeatures;
import io.fanout.store.GraphStore;
import java.util.Locale;
import java.util.Map;

/** The few numbers a user wants after a run: batches, seeds/s, sampled edges/s, graph memory per edge. */
public final class JobSummary {
    public final long batches;
    public final long seeds;
    public final long sampledNodes;
    public final long sampledEdges;
    public final long messageBytes;
    public final double seconds;
    public final int graphNodes;
    public final long graphEdges;
    public final long graphHeapBytes;
    /** Features per node, 0 without a node file or with labels only. */
    public final int featureDim;
    /** The feature dtype's name (float32, float16, uint8), or null without a node file. */
    public final String featureDType;
    public final int featureBytesPerValue;
    public final long featureHeapBytes;
    /** Largest |stored - read| feature value (quantisation / rounding error). */
    public final double featureMaxError;

    JobSummary(Map<String, Object> accumulators, double seconds, GraphStore store) {
        this(accumulators, seconds, store.numNodes(), store.adjacency().numEdges(),
                store.adjacency().heapBytes() + store.ids().heapBytes(), store.features());
    }

    private JobSummary(Map<String, Object> accumulators, double seconds, int graphNodes, long graphEdges,
            long graphHeapBytes, NodeFeatures features) {
        this.featureDim = features == null ? 0 : features.dim();
        this.featureDType = features == null ? null : features.dtype().optionValue();
        this.featureBytesPerValue = features == null ? 0 : features.bytesPerValue();
        this.featureHeapBytes = features == null ? 0 : features.heapBytes();
        this.featureMaxError = features == null ? 0 : features.maxError();
        this.batches = count(accumulators, "fanout.batches");
        this.seeds = count(accumulators, "fanout.seeds");
        this.sampledNodes = count(accumulators, "fanout.sampled-nodes");
        this.sampledEdges = count(accumulators, "fanout.sampled-edges");
        this.messageBytes = count(accumulators, "fanout.message-bytes");
        this.seconds = seconds;
        this.graphNodes = graphNodes;
        this.graphEdges = graphEdges;
        this.graphHeapBytes = graphHeapBytes;
    }

    private static long count(Map<String, Object> accumulators, String name) {
        Object v = accumulators.get(name);
        return v instanceof Number ? ((Number) v).longValue() : 0L;
    }

    public double seedsPerSecond() {
        return seconds > 0 ? seeds / seconds : 0;
    }

    public double sampledEdgesPerSecond() {
        return seconds > 0 ? sampledEdges / seconds : 0;
    }

    /** Graph store heap bytes per stored (directed) edge. */
    public double bytesPerEdge() {
        return graphEdges > 0 ? (double) graphHeapBytes / graphEdges : 0;
    }

    @Override
    public String toString() {
        String features = featureDType == null ? "" : String.format(Locale.ROOT,
                "  node features   %,d x %,d %s (%d bytes/value%s), labels; %,d heap bytes%n", graphNodes, featureDim,
                featureDType, featureBytesPerValue, featureMaxError > 0 ? String.format(Locale.ROOT,
                        ", max error %.3g", featureMaxError) : "", featureHeapBytes);
        return String.format(Locale.ROOT,
                "fanout summary%n"
                        + "  graph           %,d nodes, %,d stored edges, %,d heap bytes (%.2f bytes/edge)%n"
                        + "%s"
                        + "  batches         %,d (%,d seeds)%n"
                        + "  sampled         %,d nodes, %,d edges, %.1f MB of messages%n"
                        + "  job time        %.2f s (from submission to the end, start-up included)%n"
                        + "  throughput      %,.0f seeds/s, %,.0f sampled edges/s",
                graphNodes, graphEdges, graphHeapBytes, bytesPerEdge(), features, batches, seeds, sampledNodes, sampledEdges,
                messageBytes / 1e6, seconds, seedsPerSecond(), sampledEdgesPerSecond());
    }
}
