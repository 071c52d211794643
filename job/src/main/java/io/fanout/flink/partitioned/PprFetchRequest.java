package io.fanout.flink.partitioned;

import java.util.function.Consumer;
import org.apache.flink.api.common.TaskInfo;

/**
 * A batch's requests in one PPR fetch round for the nodes one fetch subtask owns (a Flink POJO keyed by
 * {@link #node}, the first of them, so the keyed exchange routes it to that subtask): one record per (batch, round,
 * subtask), not per node, as the k-hop lookups' {@link RequestGroup}s. Built by {@link #send}.
 */
public class PprFetchRequest {
    /** The routing key: {@code nodes[0]}. */
    public long node;
    public long batchKey;
    /** The nodes whose lists (or, to a degree lookup, degrees) the batch asks for, all owned by one subtask. */
    public long[] nodes;
    /** The graph version the batch reads (0 without graph updates). */
    public long version;

    public PprFetchRequest() {}

    public PprFetchRequest(long batchKey, long[] nodes, long version) {
        this.node = nodes[0];
        this.batchKey = batchKey;
        this.nodes = nodes;
        this.version = version;
    }

    /** The requests for {@code missing}, one per subtask that owns some of them (as {@code task} routes). */
    static void send(long batchKey, long version, long[] missing, TaskInfo task, Consumer<PprFetchRequest> out) {
        RequestRouting.split(missing, task, (nodes, positions) -> out.accept(new PprFetchRequest(batchKey, nodes,
                version)));
    }
}
