package io.fanout.job;

import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.flink.runtime.jobgraph.DistributionPattern;
import org.apache.flink.runtime.jobgraph.IntermediateDataSet;
import org.apache.flink.runtime.jobgraph.JobEdge;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.runtime.jobmanager.scheduler.SlotSharingGroup;

/**
 * The network buffers and task slots a job graph needs before its tasks can start.
 *
 * <p>Flink's minimums for a streaming (pipelined) exchange: each result partition needs its subpartitions + 1
 * buffers, each input gate one floating buffer plus, for every remote input channel, 2 exclusive ones (Flink 2's
 * fixed buffers per channel; {@code NettyShuffleUtils}, {@code InputGateSpecUtils}). A task that cannot get them
 * fails with "Insufficient number of network buffers", and so does every restart: they grow with parallelism squared
 * on each all-to-all exchange (keyBy).
 */
final class NetworkBuffers {
    /** Exclusive buffers per remote input channel (no longer configurable in Flink 2). */
    static final int BUFFERS_PER_CHANNEL = 2;

    private NetworkBuffers() {}

    /** Buffers the graph's subtasks need when all run in one TaskManager (the local MiniCluster: channels are local). */
    static long oneTaskManager(JobGraph graph) {
        long total = 0;
        for (JobVertex vertex : graph.getVertices()) {
            total += (long) vertex.getParallelism() * perSubtask(vertex, false);
        }
        return total;
    }

    /**
     * Buffers one TaskManager of {@code slots} slots needs at most among others: a slot holds one subtask of each
     * vertex (slot sharing), and channels from other TaskManagers are remote.
     */
    static long perTaskManager(JobGraph graph, int slots) {
        long total = 0;
        for (JobVertex vertex : graph.getVertices()) {
            total += (long) Math.min(slots, vertex.getParallelism()) * perSubtask(vertex, true);
        }
        return total;
    }

    /** The all-to-all exchanges of the graph (each grows with parallelism squared), for messages. */
    static int allToAllExchanges(JobGraph graph) {
        int exchanges = 0;
        for (JobVertex vertex : graph.getVertices()) {
            for (JobEdge input : vertex.getInputs()) {
                exchanges += input.getDistributionPattern() == DistributionPattern.ALL_TO_ALL ? 1 : 0;
            }
        }
        return exchanges;
    }

    /** Task slots the graph needs: per slot sharing group, its largest parallelism. */
    static int slots(JobGraph graph) {
        Map<SlotSharingGroup, Integer> largest = new IdentityHashMap<>();
        int unshared = 0;
        for (JobVertex vertex : graph.getVertices()) {
            SlotSharingGroup group = vertex.getSlotSharingGroup();
            if (group == null) {
                unshared += vertex.getParallelism();
            } else {
                largest.merge(group, vertex.getParallelism(), Math::max);
            }
        }
        return unshared + largest.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static long perSubtask(JobVertex vertex, boolean remote) {
        int parallelism = vertex.getParallelism();
        long buffers = 0;
        for (IntermediateDataSet output : vertex.getProducedDataSets()) {
            for (JobEdge consumer : output.getConsumers()) {
                buffers += channels(consumer, consumer.getTarget().getParallelism(), parallelism) + 1;
            }
        }
        for (JobEdge input : vertex.getInputs()) {
            long channels = channels(input, input.getSource().getProducer().getParallelism(), parallelism);
            buffers += 1 + (remote ? BUFFERS_PER_CHANNEL * channels : 0);
        }
        return buffers;
    }

    /** The channels one subtask of parallelism {@code own} has to the {@code other} side of {@code edge}. */
    private static long channels(JobEdge edge, int other, int own) {
        return edge.getDistributionPattern() == DistributionPattern.ALL_TO_ALL ? other
                : Math.max(1, (other + own - 1) / own);
    }
}
