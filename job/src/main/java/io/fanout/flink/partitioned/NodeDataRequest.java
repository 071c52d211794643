package io.fanout.flink.partitioned;

import java.util.function.Consumer;
import org.apache.flink.api.common.TaskInfo;

/**
 * Asks one node-data lookup subtask for the features and labels of the batch's nodes it owns, for the batch's
 * message (a Flink POJO keyed by {@link #node}, the first of them): one record per (batch, subtask), as the hops'
 * {@link RequestGroup}s. Per node, the records, their exchange and the node-data stage's state writes per answer
 * made a job with a node file sample at a fraction of its rate without one (pubmed labels, p=2: RocksDB 8.1 M
 * sampled edges/s without, 0.48 M with). Built by {@link #sendAll}.
 */
public class NodeDataRequest {
    /** The routing key: {@code nodes[0]}. */
    public long node;
    public long batchKey;
    /** The nodes asked for, all owned by one lookup subtask. */
    public long[] nodes;
    /** Each node's position in the batch's {@code ids}: where its row goes. */
    public int[] positions;

    public NodeDataRequest() {}

    public NodeDataRequest(long batchKey, long[] nodes, int[] positions) {
        this.node = nodes[0];
        this.batchKey = batchKey;
        this.nodes = nodes;
        this.positions = positions;
    }

    /**
     * The requests for every node of a batch's {@code ids}, one per lookup subtask that owns some of them (as the
     * sending task {@code task} routes: lookups run at its parallelism and max parallelism), each node with its
     * position in {@code ids}.
     */
    static void sendAll(long[] ids, long batchKey, TaskInfo task, Consumer<NodeDataRequest> out) {
        RequestRouting.split(ids, task, (nodes, positions) -> out.accept(new NodeDataRequest(batchKey, nodes,
                positions)));
    }
}
