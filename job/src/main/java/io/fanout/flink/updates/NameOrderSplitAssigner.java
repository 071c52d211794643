package io.fanout.flink.updates;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;
import java.util.PriorityQueue;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.assigners.FileSplitAssigner;

/**
 * Hands out update files in path name order among those waiting: Flink's default assigners follow listing or
 * locality order, and update files must be read in version order (name them so, e.g. zero-padded sequence numbers
 * or timestamps). Its one reader asks for the next file only when done with the current one.
 */
public final class NameOrderSplitAssigner implements FileSplitAssigner {
    private final PriorityQueue<FileSourceSplit> waiting = new PriorityQueue<>(
            Comparator.comparing((FileSourceSplit s) -> s.path().toString()).thenComparingLong(FileSourceSplit::offset));

    public NameOrderSplitAssigner(Collection<FileSourceSplit> splits) {
        waiting.addAll(splits);
    }

    @Override
    public Optional<FileSourceSplit> getNext(String hostname) {
        return Optional.ofNullable(waiting.poll());
    }

    @Override
    public void addSplits(Collection<FileSourceSplit> splits) {
        waiting.addAll(splits);
    }

    @Override
    public Collection<FileSourceSplit> remainingSplits() {
        return new ArrayList<>(waiting);
    }
}
