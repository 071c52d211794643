package io.fanout.flink.partitioned;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.function.Consumer;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;

/**
 * Groups a batch's frontier into one {@link RequestGroup} per lookup subtask: the subtask that owns a node's key
 * group (Flink's own assignment) gets all of the batch's nodes it owns in one record, keyed by the first of them.
 * Per-record costs (serialisation, the network exchange, the answer's state writes) dominated a lookup per node.
 * Senders and lookups run at the job's parallelism and max parallelism; the lookup checks every node it is asked
 * about is its own ({@link #checkOwned}).
 */
final class RequestRouting {
    /** At most this many nodes per group, so a huge frontier does not become one huge record. */
    static final int MAX_GROUP = 4096;

    private RequestRouting() {}

    /**
     * The requests of {@code frontier} (the batch's nodes to expand at {@code hop}) for lookups of
     * {@code parallelism} subtasks over {@code maxParallelism} key groups, frontier order kept within each group.
     */
    static void groups(PartialBatch batch, int hop, long[] frontier, int maxParallelism, int parallelism,
            Consumer<RequestGroup> out) {
        groups(batch, hop, frontier, null, maxParallelism, parallelism, out);
    }

    /**
     * As above, each frontier node in disjoint tree {@code frontierTrees[i]} (null: not disjoint), at its tree's
     * seed time when the batch has seed times.
     */
    static void groups(PartialBatch batch, int hop, long[] frontier, int[] frontierTrees, int maxParallelism,
            int parallelism, Consumer<RequestGroup> out) {
        split(frontier, maxParallelism, parallelism, (nodes, positions) -> out.accept(new RequestGroup(batch.batchKey,
                batch.epoch, batch.batchId, hop, batch.graphVersion, nodes, positions)
                .inTrees(frontierTrees, batch.seedTimes)));
    }

    /** Receives one subtask's share of a node list ({@link #split}): the nodes and their positions in the list. */
    @FunctionalInterface
    interface Share {
        void accept(long[] nodes, int[] positions);
    }

    /**
     * Splits {@code nodes} by the lookup subtask that owns each (at the sending task {@code task}'s parallelism and
     * max parallelism), list order kept within a share, at most {@link #MAX_GROUP} nodes a share.
     */
    static void split(long[] nodes, TaskInfo task, Share out) {
        split(nodes, task.getMaxNumberOfParallelSubtasks(), task.getNumberOfParallelSubtasks(), out);
    }

    /** As above, for lookups of {@code parallelism} subtasks over {@code maxParallelism} key groups. */
    static void split(long[] nodes, int maxParallelism, int parallelism, Share out) {
        LongArrayList[] owned = new LongArrayList[parallelism];
        IntArrayList[] positions = new IntArrayList[parallelism];
        for (int i = 0; i < nodes.length; i++) {
            int subtask = parallelism == 1 ? 0 : subtaskOf(nodes[i], maxParallelism, parallelism);
            if (owned[subtask] == null) {
                owned[subtask] = new LongArrayList();
                positions[subtask] = new IntArrayList();
            }
            owned[subtask].add(nodes[i]);
            positions[subtask].add(i);
            if (owned[subtask].size() == MAX_GROUP) {
                out.accept(owned[subtask].toLongArray(), positions[subtask].toIntArray());
                owned[subtask].clear();
                positions[subtask].clear();
            }
        }
        for (int s = 0; s < parallelism; s++) {
            if (owned[s] != null && !owned[s].isEmpty()) {
                out.accept(owned[s].toLongArray(), positions[s].toIntArray());
            }
        }
    }

    /**
     * The subtask owning key {@code node}: Flink's assignment ({@link KeyGroupRangeAssignment#assignKeyToParallelOperator})
     * from the key's {@code Long} hash code, without boxing it: a box per frontier node per hop, on both sides
     * (R-MAT 2^16, p=2, heap backend: {@code Long.valueOf} 2.5 % of the CPU samples, about half of them here).
     */
    static int subtaskOf(long node, int maxParallelism, int parallelism) {
        return KeyGroupRangeAssignment.computeOperatorIndexForKeyGroup(maxParallelism, parallelism,
                KeyGroupRangeAssignment.computeKeyGroupForKeyHash(Long.hashCode(node), maxParallelism));
    }

    /** As above, for lookups at the parallelism and max parallelism of the sending task {@code task}. */
    static void groups(PartialBatch batch, int hop, long[] frontier, int[] frontierTrees, TaskInfo task,
            Consumer<RequestGroup> out) {
        groups(batch, hop, frontier, frontierTrees, task.getMaxNumberOfParallelSubtasks(),
                task.getNumberOfParallelSubtasks(), out);
    }

    /** Fails unless the lookup subtask {@code task} owns {@code node}: senders and lookups disagree on routing. */
    static void checkOwned(long node, TaskInfo task) {
        int parallelism = task.getNumberOfParallelSubtasks();
        if (parallelism > 1 && subtaskOf(node, task.getMaxNumberOfParallelSubtasks(), parallelism)
                != task.getIndexOfThisSubtask()) {
            throw new IllegalStateException("node " + node + " was routed to lookup subtask "
                    + task.getIndexOfThisSubtask() + " of " + parallelism + ", which does not own it: the partitioned"
                    + " store's operators must all run at the job's parallelism and max parallelism");
        }
    }

    /** The answer of the group's node {@code index}, {@code node}; {@link #toKey} before it reads its keyed state. */
    @FunctionalInterface
    interface NodeAnswer {
        long[] sampled(int index, long node) throws Exception;
    }

    /**
     * Makes {@code node} the current key of the lookup {@code operator}, checked to be the subtask's own (a node
     * answered from a heap copy of its state skips both: it was this subtask's when it was read).
     */
    static void toKey(AbstractStreamOperator<?> operator, long node) {
        checkOwned(node, operator.getRuntimeContext().getTaskInfo());
        operator.setCurrentKey(node);
    }

    /** The answers to {@code group}, node by node through {@code answer}, as one record. */
    static AnswerGroup answerEach(RequestGroup group, NodeAnswer answer) throws Exception {
        int[] ends = new int[group.nodes.length];
        // Each node's answer kept, then copied once into the group's array: a growing list copied its elements
        // about three times over (its growth and the final array), 8 % of the lookup threads' samples on R-MAT 2^16.
        long[][] sampled = new long[group.nodes.length][];
        int total = 0;
        for (int i = 0; i < group.nodes.length; i++) {
            sampled[i] = answer.sampled(i, group.nodes[i]);
            total = Math.addExact(total, sampled[i].length);
            ends[i] = total;
        }
        long[] neighbors = new long[total];
        for (int i = 0; i < sampled.length; i++) {
            System.arraycopy(sampled[i], 0, neighbors, ends[i] - sampled[i].length, sampled[i].length);
        }
        return new AnswerGroup(group.batchKey, group.positions, ends, neighbors);
    }
}
