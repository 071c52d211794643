package io.fanout.flink.partitioned;

import io.fanout.flink.partitioned.TypedPprRecords.Answer;
import io.fanout.flink.partitioned.TypedPprRecords.Rows;
import io.fanout.sampling.ppr.TypedNodeRows;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * The partitioned store's keyed lookups of one value per node ({@link KeyedLookupOperator}), each with the state names
 * and types its savepoints hold: node data for messages, each PPR fetch round's lists and a typed PPR round's rows.
 */
final class KeyedLookups {
    private KeyedLookups() {}

    /**
     * Node features and labels: input 1 loads the node-file rows, input 2 asks for a node's row for a batch's message.
     * State per node: its label and encoded row.
     */
    static KeyedLookupOperator<NodeRecord, NodeRecord, NodeDataRequest, NodeDataAnswer> nodeData() {
        return new KeyedLookupOperator<>("node-row", TypeInformation.of(NodeRecord.class), "waiting-node-request-groups",
                TypeInformation.of(NodeDataRequest.class), new NodeData());
    }

    /**
     * One PPR fetch round's lists, its own copy: input 1 loads each node's list as a push reads it, built once for all
     * rounds by {@link PprListOperator} (in list order, capped to {@code num_neighbors_per_hop}, with each
     * neighbour's degree), input 2 asks for the lists of a group of nodes ({@link PprFetchRequest}, one per batch,
     * round and subtask) and gets them back as one record ({@link PprAnswerGroup}). A node without edges has no list:
     * it is answered as dangling.
     */
    static KeyedLookupOperator<PprNodeList, PprNodeList, PprFetchRequest, PprAnswerGroup> pprLists() {
        return new KeyedLookupOperator<>("ppr-list", TypeInformation.of(PprNodeList.class), "waiting-requests",
                TypeInformation.of(PprFetchRequest.class), new PprLists());
    }

    /**
     * One typed PPR fetch round's rows, its own copy, as {@link #pprLists} for plain lists: input 1 loads each node
     * key's rows ({@link TypedPprRowsOperator}), input 2 asks for node keys' rows. A node without edges is answered
     * with empty rows (dangling).
     */
    static KeyedLookupOperator<Rows, byte[], PprFetchRequest, Answer> typedPprRows(int numEdgeTypes) {
        return new KeyedLookupOperator<>("typed-ppr-rows", PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO,
                "typed-waiting-requests", TypeInformation.of(PprFetchRequest.class), new TypedPprRows(numEdgeTypes));
    }

    /** A lookup that stores each loaded record as it is. */
    private interface StoresLoaded<V, Q, A> extends KeyedLookupOperator.Lookup<V, V, Q, A> {
        @Override
        default V stored(V loaded) {
            return loaded;
        }
    }

    private static final class NodeData implements StoresLoaded<NodeRecord, NodeDataRequest, NodeDataAnswer> {
        private static final long serialVersionUID = 1L;

        @Override
        public long batchKey(NodeDataRequest request) {
            return request.batchKey;
        }

        @Override
        public NodeDataAnswer answer(NodeDataRequest request, KeyedLookupOperator.Values<NodeRecord> values)
                throws Exception {
            int n = request.nodes.length;
            int[] labels = new int[n];
            byte[] rows = null;
            int rowBytes = 0;
            for (int i = 0; i < n; i++) {
                NodeRecord stored = values.of(request.nodes[i]);
                if (stored == null) {
                    // Without --seeds the client's scan checked that every node has a row; given seeds it reads no
                    // graph file, so this is a node file that does not cover the graph (or one changed since): every
                    // attempt would fail the same way, so the job fails at once.
                    throw new SuppressRestartsException(new IllegalStateException("node " + request.nodes[i]
                            + " is in the graph but has no row in the node file (--node-features must cover every"
                            + " node)"));
                }
                if (rows == null) {
                    rowBytes = stored.row.length;
                    rows = new byte[Math.multiplyExact(n, rowBytes)];
                } else if (stored.row.length != rowBytes) {
                    throw new IllegalStateException("node " + request.nodes[i] + " has a row of " + stored.row.length
                            + " bytes, node " + request.nodes[0] + " one of " + rowBytes + ": one node file's rows"
                            + " are all alike");
                }
                labels[i] = stored.label;
                System.arraycopy(stored.row, 0, rows, i * rowBytes, rowBytes);
            }
            return new NodeDataAnswer(request.batchKey, request.positions, labels, rowBytes, rows);
        }

        /** The record, its row array and the row. */
        @Override
        public long cachedBytes(NodeRecord stored) {
            return 56 + stored.row.length;
        }
    }

    private static final class PprLists implements StoresLoaded<PprNodeList, PprFetchRequest, PprAnswerGroup> {
        private static final long serialVersionUID = 1L;

        @Override
        public long batchKey(PprFetchRequest request) {
            return request.batchKey;
        }

        @Override
        public PprAnswerGroup answer(PprFetchRequest request, KeyedLookupOperator.Values<PprNodeList> values)
                throws Exception {
            int n = request.nodes.length;
            int[] degrees = new int[n];
            int[] ends = new int[n];
            // The lists first, then one pair of arrays of their exact length (no list grown by copies, none copied
            // out again).
            PprNodeList[] found = new PprNodeList[n];
            int total = 0;
            for (int i = 0; i < n; i++) {
                PprNodeList stored = values.of(request.nodes[i]);
                if (stored != null) {
                    found[i] = stored;
                    degrees[i] = stored.degree;
                    total = Math.addExact(total, stored.neighbors.length);
                }
                ends[i] = total;
            }
            long[] neighbors = new long[total];
            int[] neighborDegrees = new int[total];
            for (int i = 0; i < n; i++) {
                PprNodeList stored = found[i];
                if (stored != null) {
                    int from = ends[i] - stored.neighbors.length;
                    System.arraycopy(stored.neighbors, 0, neighbors, from, stored.neighbors.length);
                    System.arraycopy(stored.neighborDegrees, 0, neighborDegrees, from, stored.neighborDegrees.length);
                }
            }
            return new PprAnswerGroup(request.batchKey, request.nodes, degrees, ends, neighbors, neighborDegrees);
        }

        /** The list object and its two arrays: 8 + 4 bytes per neighbour and the headers. */
        @Override
        public long cachedBytes(PprNodeList stored) {
            return 96 + 12L * stored.neighbors.length;
        }
    }

    private static final class TypedPprRows implements KeyedLookupOperator.Lookup<Rows, byte[], PprFetchRequest,
            Answer> {
        private static final long serialVersionUID = 1L;
        /** A dangling node's rows: one empty row per edge type. */
        private final byte[] empty;

        TypedPprRows(int numEdgeTypes) {
            empty = TypedNodeRows.empty(numEdgeTypes).toBytes();
        }

        @Override
        public byte[] stored(Rows loaded) {
            return loaded.rows;
        }

        @Override
        public long batchKey(PprFetchRequest request) {
            return request.batchKey;
        }

        @Override
        public Answer answer(PprFetchRequest request, KeyedLookupOperator.Values<byte[]> values) throws Exception {
            byte[][] out = new byte[request.nodes.length][];
            for (int i = 0; i < out.length; i++) {
                byte[] stored = values.of(request.nodes[i]);
                out[i] = stored == null ? empty : stored;
            }
            return new Answer(request.batchKey, request.nodes, out);
        }

        @Override
        public long cachedBytes(byte[] stored) {
            return 16 + stored.length;
        }
    }
}
