package io.fanout.flink.partitioned;

import io.fanout.graph.GraphFormatException;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/** How a bad line met while the TaskManagers load the graph fails the job. */
final class LoadFailure {
    private LoadFailure() {}

    /**
     * A bad line fails the same way on every attempt, so the job fails at once with the file and line in its
     * cause instead of restarting for ever (a partitioned job given its seeds reads its input only here).
     */
    static SuppressRestartsException badInput(GraphFormatException e) {
        return new SuppressRestartsException(e);
    }
}
