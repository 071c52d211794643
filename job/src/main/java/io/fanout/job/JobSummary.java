package io.fanout.job;

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

    JobSummary(Map<String, Object> accumulators, double seconds, int graphNodes, long graphEdges, long graphHeapBytes) {
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
        return String.format(Locale.ROOT,
                "fanout summary%n"
                        + "  graph           %,d nodes, %,d stored edges, %,d heap bytes (%.2f bytes/edge)%n"
                        + "  batches         %,d (%,d seeds)%n"
                        + "  sampled         %,d nodes, %,d edges, %.1f MB of messages%n"
                        + "  job time        %.2f s (from submission to the end, start-up included)%n"
                        + "  throughput      %,.0f seeds/s, %,.0f sampled edges/s",
                graphNodes, graphEdges, graphHeapBytes, bytesPerEdge(), batches, seeds, sampledNodes, sampledEdges,
                messageBytes / 1e6, seconds, seedsPerSecond(), sampledEdgesPerSecond());
    }
}
