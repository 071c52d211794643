package io.fanout.job;

import io.fanout.features.FeatureDType;
import io.fanout.flink.operator.GraphSamplingFunction.SamplingCounters;
import java.util.Arrays;
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
    /**
     * Seconds from the first message to the last (any subtask), 0 with fewer than two messages: sampling alone,
     * without start-up or a partitioned store's load.
     */
    public final double samplingWindowSeconds;
    /** Wall-clock time (epoch ms) the first message was emitted, 0 without messages. */
    public final long firstMessageMs;
    /** --store partitioned: node heads the lookups found in their heap cache, and read from keyed state. */
    public final long headCacheHits;
    public final long headCacheMisses;
    /** --store partitioned: milliseconds the lookups spent compacting the loaded adjacency, summed over subtasks. */
    public final long loadCompactionMs;
    /** Graph-update rows read (--store partitioned with graph updates). */
    public final long graphUpdates;
    /** Graph-update deletions of an edge the graph did not have: counted, logged and ignored. */
    public final long graphUpdatesMissingDeletes;

    /** The summary of a finished job from its accumulators (the graph as the TaskManagers loaded it). */
    JobSummary(Map<String, Object> accumulators, double seconds) {
        this.batches = count(accumulators, SamplingCounters.BATCHES);
        this.seeds = count(accumulators, SamplingCounters.SEEDS);
        this.sampledNodes = count(accumulators, SamplingCounters.NODES);
        this.sampledEdges = count(accumulators, SamplingCounters.EDGES);
        this.messageBytes = count(accumulators, SamplingCounters.BYTES);
        this.seconds = seconds;
        long first = count(accumulators, SamplingCounters.FIRST_MESSAGE_MS);
        long last = count(accumulators, SamplingCounters.LAST_MESSAGE_MS);
        this.samplingWindowSeconds = batches > 1 && last > first ? (last - first) / 1e3 : 0;
        this.firstMessageMs = batches > 0 ? first : 0;
        this.graphNodes = (int) count(accumulators, SamplingCounters.GRAPH_NODES);
        this.graphEdges = count(accumulators, SamplingCounters.GRAPH_EDGES);
        this.graphHeapBytes = count(accumulators, SamplingCounters.GRAPH_HEAP_BYTES);
        this.featureDim = (int) count(accumulators, SamplingCounters.FEATURE_DIM);
        this.featureBytesPerValue = (int) count(accumulators, SamplingCounters.FEATURE_VALUE_BYTES);
        this.featureDType = featureBytesPerValue == 0 ? null : Arrays.stream(FeatureDType.values())
                .filter(d -> d.bytes() == featureBytesPerValue).findFirst().map(FeatureDType::optionValue).orElse("?");
        this.featureHeapBytes = count(accumulators, SamplingCounters.FEATURE_HEAP_BYTES);
        Object error = accumulators.get(SamplingCounters.FEATURE_MAX_ERROR);
        this.featureMaxError = error instanceof Number ? ((Number) error).doubleValue() : 0;
        this.headCacheHits = count(accumulators, io.fanout.flink.partitioned.NeighborLookupOperator.CACHE_HITS);
        this.headCacheMisses = count(accumulators, io.fanout.flink.partitioned.NeighborLookupOperator.CACHE_MISSES);
        this.loadCompactionMs = count(accumulators, io.fanout.flink.partitioned.LoadCompaction.COMPACTION_MS);
        this.graphUpdates = count(accumulators, io.fanout.flink.partitioned.UpdateReaderOperator.UPDATES);
        this.graphUpdatesMissingDeletes = count(accumulators,
                io.fanout.flink.partitioned.VersionedNeighborLookupOperator.MISSING_DELETES);
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

    /**
     * Sampled edges per second within the sampling window (the first message's batch not counted: the window
     * starts when it is emitted), 0 when the window is empty.
     */
    public double windowSampledEdgesPerSecond() {
        return samplingWindowSeconds > 0 ? sampledEdges * (batches - 1.0) / batches / samplingWindowSeconds : 0;
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
                messageBytes / 1e6, seconds, seedsPerSecond(), sampledEdgesPerSecond())
                + (headCacheHits + headCacheMisses == 0 ? "" : String.format(Locale.ROOT,
                        "%n  lookup cache    %.1f %% of %,d node lookups (--partitioned.cache-mb)",
                        100.0 * headCacheHits / (headCacheHits + headCacheMisses), headCacheHits + headCacheMisses))
                + (loadCompactionMs == 0 ? "" : String.format(Locale.ROOT,
                        "%n  compaction      %.2f s after the load, summed over the lookup subtasks"
                                + " (--partitioned.compact-after-load)", loadCompactionMs / 1e3))
                + (graphUpdates == 0 && graphUpdatesMissingDeletes == 0 ? "" : String.format(Locale.ROOT,
                        "%n  graph updates   %,d rows read, %,d deletions of missing edges (ignored)", graphUpdates,
                        graphUpdatesMissingDeletes));
    }
}
