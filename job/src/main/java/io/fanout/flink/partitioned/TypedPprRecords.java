package io.fanout.flink.partitioned;

import io.fanout.sampling.ppr.PprStateTooLargeException;
import io.fanout.sampling.ppr.TypedPprBatchPush;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * The records of the partitioned typed PPR ({@link PartitionedTypedPpr}), Flink POJOs. Nodes are typed PPR keys
 * ({@link TypedPprBatchPush#key}: node type ordinal, then id), so one keyed operator holds every node type.
 */
public final class TypedPprRecords {
    private TypedPprRecords() {}

    /** One load group's size along one edge type, counted into its key node's degree (keyed by {@link #node}). */
    public static class GroupSize {
        public long node;
        public int edgeType;
        public int size;

        public GroupSize() {}

        GroupSize(long node, int edgeType, int size) {
            this.node = node;
            this.edgeType = edgeType;
            this.size = size;
        }
    }

    /**
     * One stored edge of one edge type, keyed by {@link #neighbor} into the degree join, then by {@link #node} with
     * the neighbour's degree along every edge type ({@link #neighborDegrees}, null before the join).
     */
    public static class Edge {
        public long node;
        public long neighbor;
        public int edgeType;
        /** The edge's load group and place in it: sorting by them gives the row order. */
        public long order;
        public int position;
        public int[] neighborDegrees;

        public Edge() {}

        Edge(long node, long neighbor, int edgeType, long order, int position, int[] neighborDegrees) {
            this.node = node;
            this.neighbor = neighbor;
            this.edgeType = edgeType;
            this.order = order;
            this.position = position;
            this.neighborDegrees = neighborDegrees;
        }
    }

    /** One node's {@code TypedNodeRows} as bytes, built once and kept by every fetch round (keyed by {@link #node}). */
    public static class Rows {
        public long node;
        public byte[] rows;

        public Rows() {}

        Rows(long node, byte[] rows) {
            this.node = node;
            this.rows = rows;
        }
    }

    /** The rows one fetch request asked for, back to its batch (keyed by {@link #batchKey}). */
    public static class Answer {
        public long batchKey;
        public long[] nodes;
        /** Per node its rows' bytes (a node without edges gets empty rows). */
        public byte[][] rows;

        public Answer() {}

        Answer(long batchKey, long[] nodes, byte[][] rows) {
            this.batchKey = batchKey;
            this.nodes = nodes;
            this.rows = rows;
        }
    }

    /** A batch between two typed PPR fetch rounds (keyed by {@link #batchKey}): its {@code TypedPprBatchPush}. */
    public static class Partial {
        public long batchKey;
        public int epoch;
        public int batchId;
        public int numBatches;
        /** Seed ids (of the seed type) as the batch gave them. */
        public long[] seeds;
        public int[] inputIds;
        /** {@code TypedPprBatchPush.toBytes()}. */
        public byte[] state;
        /** Nodes whose rows the batch asked for in the coming round (0 = its pushes are finished). */
        public int pending;

        public Partial() {}

        /** The push's state; one too large for a batch fails the job without restarts (a restart fails alike). */
        static byte[] stateOf(TypedPprBatchPush push) {
            try {
                return push.toBytes();
            } catch (PprStateTooLargeException e) {
                throw new SuppressRestartsException(e);
            }
        }
    }
}
