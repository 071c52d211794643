package io.fanout.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.batch.SeedBatch;
import io.fanout.flink.source.enumerator.SeedBatchEnumeratorState;
import io.fanout.flink.source.split.SeedBatchSplit;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * Runs a seed source's ({@link SeedBatchSource}, {@link SeedFileSource}) real enumerator and readers in one thread, passing split requests
 * and assignments through a queue the way Flink's source coordinator does (never re-entrantly), and
 * checkpointing through the source's own serializers. Lets tests stop, snapshot and restore at any
 * batch, which a MiniCluster cannot do deterministically.
 */
public final class LocalSourceRun<T> {
    /** One emitted record (a batch, or a seed slot) and the reader (subtask) that emitted it. */
    public record Emitted<T>(int subtask, T record) {}

    /** A checkpoint as Flink stores it: the serialized enumerator state and each reader's serialized splits. */
    public record Snapshot(int enumVersion, byte[] enumState, int splitVersion, List<List<byte[]>> readerSplits) {}

    private final Source<T, SeedBatchSplit, SeedBatchEnumeratorState> source;
    private final int parallelism;
    private final Deque<Message> inbox = new ArrayDeque<>();
    private final SplitEnumerator<SeedBatchSplit, SeedBatchEnumeratorState> enumerator;
    private final List<SourceReader<T, SeedBatchSplit>> readers;
    private final boolean[] ended;
    /** Every split the enumerator assigned, in assignment order. */
    public final List<SeedBatchSplit> assignments = new ArrayList<>();
    /** Assignments per subtask since the last {@link #snapshot()}: what Flink hands back on a reader failure. */
    private final Map<Integer, List<SeedBatchSplit>> assignedSinceSnapshot = new HashMap<>();
    private Snapshot lastSnapshot;
    /** Everything emitted, in order. */
    public final List<Emitted<T>> emitted = new ArrayList<>();

    private record Message(int subtask, Runnable action) {}

    private LocalSourceRun(Source<T, SeedBatchSplit, SeedBatchEnumeratorState> source, int parallelism, Snapshot restoreFrom) throws Exception {
        this.source = source;
        this.parallelism = parallelism;
        EnumContext enumContext = new EnumContext();
        if (restoreFrom == null) {
            enumerator = source.createEnumerator(enumContext);
        } else {
            enumerator = source.restoreEnumerator(enumContext, source.getEnumeratorCheckpointSerializer()
                    .deserialize(restoreFrom.enumVersion(), restoreFrom.enumState()));
        }
        enumerator.start();
        readers = new ArrayList<>();
        ended = new boolean[parallelism];
        for (int i = 0; i < parallelism; i++) {
            List<SeedBatchSplit> restored = restoreFrom == null || i >= restoreFrom.readerSplits().size()
                    ? List.of() : deserializeSplits(restoreFrom, i);
            startReader(i, restored);
        }
    }

    /** A fresh run. */
    public static <T> LocalSourceRun<T> start(Source<T, SeedBatchSplit, SeedBatchEnumeratorState> source,
            int parallelism) throws Exception {
        return new LocalSourceRun<>(source, parallelism, null);
    }

    /** A run restored from a snapshot, as after a global failover. */
    public static <T> LocalSourceRun<T> restore(Source<T, SeedBatchSplit, SeedBatchEnumeratorState> source,
            int parallelism, Snapshot snapshot) throws Exception {
        return new LocalSourceRun<>(source, parallelism, snapshot);
    }

    private List<SeedBatchSplit> deserializeSplits(Snapshot snapshot, int subtask) throws IOException {
        List<SeedBatchSplit> splits = new ArrayList<>();
        for (byte[] bytes : snapshot.readerSplits().get(subtask)) {
            splits.add(source.getSplitSerializer().deserialize(snapshot.splitVersion(), bytes));
        }
        return splits;
    }

    private void startReader(int subtask, List<SeedBatchSplit> restored) {
        // Flink's SourceOperator: create, hand over restored splits, then start.
        SourceReader<T, SeedBatchSplit> reader;
        try {
            reader = source.createReader(new ReaderContext(subtask));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        if (subtask < readers.size()) {
            readers.set(subtask, reader);
        } else {
            readers.add(reader);
        }
        ended[subtask] = false;
        if (!restored.isEmpty()) {
            reader.addSplits(restored);
        }
        reader.start();
    }

    /** Delivers queued requests and assignments until none is left. */
    public void deliver() {
        while (!inbox.isEmpty()) {
            inbox.poll().action().run();
        }
    }

    /** Delivers messages, then polls {@code subtask} once; returns its status. */
    public InputStatus poll(int subtask) throws Exception {
        deliver();
        if (ended[subtask]) {
            return InputStatus.END_OF_INPUT;
        }
        InputStatus status = readers.get(subtask).pollNext(new Output(subtask));
        ended[subtask] = status == InputStatus.END_OF_INPUT;
        return status;
    }

    /** Polls readers round-robin until {@code count} more batches were emitted (or all readers ended). */
    public void emit(int count) throws Exception {
        long target = (long) emitted.size() + count;
        int idleRounds = 0;
        while (emitted.size() < target && !allEnded()) {
            int before = emitted.size();
            for (int i = 0; i < parallelism && emitted.size() < target; i++) {
                poll(i);
            }
            idleRounds = emitted.size() == before && inbox.isEmpty() ? idleRounds + 1 : 0;
            assertThat(idleRounds).as("readers are stuck: nothing emitted and no message in flight").isLessThan(3);
        }
    }

    /** Runs every reader to its end. */
    public void runToEnd() throws Exception {
        emit(Integer.MAX_VALUE);
        deliver();
    }

    public boolean allEnded() {
        for (boolean e : ended) {
            if (!e) {
                return false;
            }
        }
        return true;
    }

    /** Snapshots enumerator and readers (enumerator first, as Flink does) through the source's serializers. */
    public Snapshot snapshot(long checkpointId) throws Exception {
        SimpleVersionedSerializer<SeedBatchEnumeratorState> enumSer = source.getEnumeratorCheckpointSerializer();
        SimpleVersionedSerializer<SeedBatchSplit> splitSer = source.getSplitSerializer();
        byte[] enumState = enumSer.serialize(enumerator.snapshotState(checkpointId));
        List<List<byte[]>> readerSplits = new ArrayList<>();
        for (SourceReader<T, SeedBatchSplit> reader : readers) {
            List<byte[]> splits = new ArrayList<>();
            for (SeedBatchSplit split : reader.snapshotState(checkpointId)) {
                splits.add(splitSer.serialize(split));
            }
            readerSplits.add(splits);
        }
        assignedSinceSnapshot.clear();
        lastSnapshot = new Snapshot(enumSer.getVersion(), enumState, splitSer.getVersion(), readerSplits);
        return lastSnapshot;
    }

    /**
     * A regional failover of one reader: it is replaced by a reader restored from the last snapshot,
     * messages to and from it are lost, and the splits assigned to it since the snapshot go back to
     * the enumerator (what Flink's SourceCoordinator.subtaskReset does). Returns what the failed
     * reader emitted since the snapshot, which downstream discards.
     */
    public List<T> failReader(int subtask, int emittedAtSnapshot) throws Exception {
        inbox.removeIf(m -> m.subtask() == subtask);
        List<T> lost = new ArrayList<>();
        for (int i = emitted.size() - 1; i >= emittedAtSnapshot; i--) {
            if (emitted.get(i).subtask() == subtask) {
                lost.add(emitted.remove(i).record());
            }
        }
        enumerator.addSplitsBack(assignedSinceSnapshot.getOrDefault(subtask, new ArrayList<>()), subtask);
        assignedSinceSnapshot.remove(subtask);
        startReader(subtask, deserializeSplits(lastSnapshot, subtask));
        return lost;
    }

    /** Keys (epoch << 32 | batch) of everything emitted, in order. */
    public long[] emittedKeys() {
        return emitted.stream().mapToLong(e -> ((SeedBatch) e.record()).key()).toArray();
    }

    @Override
    public String toString() {
        return "LocalSourceRun{" + parallelism + " readers, emitted " + emitted.size() + ", ended " + Arrays.toString(ended) + "}";
    }

    private final class ReaderContext implements SourceReaderContext {
        private final int subtask;

        ReaderContext(int subtask) {
            this.subtask = subtask;
        }

        @Override
        public SourceReaderMetricGroup metricGroup() {
            return UnregisteredMetricsGroup.createSourceReaderMetricGroup();
        }

        @Override
        public Configuration getConfiguration() {
            return new Configuration();
        }

        @Override
        public String getLocalHostName() {
            return "localhost";
        }

        @Override
        public int getIndexOfSubtask() {
            return subtask;
        }

        @Override
        public int currentParallelism() {
            return parallelism;
        }

        @Override
        public void sendSplitRequest() {
            inbox.add(new Message(subtask, () -> enumerator.handleSplitRequest(subtask, "localhost")));
        }

        @Override
        public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {
            throw new UnsupportedOperationException("the seed batch source sends no source events");
        }

        @Override
        public UserCodeClassLoader getUserCodeClassLoader() {
            return new UserCodeClassLoader() {
                @Override
                public ClassLoader asClassLoader() {
                    return LocalSourceRun.class.getClassLoader();
                }

                @Override
                public void registerReleaseHookIfAbsent(String name, Runnable hook) {}
            };
        }
    }

    private final class EnumContext implements SplitEnumeratorContext<SeedBatchSplit> {
        @Override
        public SplitEnumeratorMetricGroup metricGroup() {
            return UnregisteredMetricsGroup.createSplitEnumeratorMetricGroup();
        }

        @Override
        public void sendEventToSourceReader(int subtaskId, SourceEvent event) {
            throw new UnsupportedOperationException("the seed batch source sends no source events");
        }

        @Override
        public int currentParallelism() {
            return parallelism;
        }

        @Override
        public Map<Integer, ReaderInfo> registeredReaders() {
            Map<Integer, ReaderInfo> infos = new HashMap<>();
            for (int i = 0; i < parallelism; i++) {
                infos.put(i, new ReaderInfo(i, "localhost"));
            }
            return infos;
        }

        @Override
        public void assignSplits(SplitsAssignment<SeedBatchSplit> newSplitAssignments) {
            newSplitAssignments.assignment().forEach((subtask, splits) -> {
                assignments.addAll(splits);
                assignedSinceSnapshot.computeIfAbsent(subtask, s -> new ArrayList<>()).addAll(splits);
                List<SeedBatchSplit> copy = List.copyOf(splits);
                inbox.add(new Message(subtask, () -> readers.get(subtask).addSplits(copy)));
            });
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            inbox.add(new Message(subtask, () -> readers.get(subtask).notifyNoMoreSplits()));
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> void callAsync(Callable<T> callable, BiConsumer<T, Throwable> handler, long initialDelay, long period) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void runInCoordinatorThread(Runnable runnable) {
            inbox.add(new Message(-1, runnable));
        }
    }

    private final class Output implements ReaderOutput<T> {
        private final int subtask;

        Output(int subtask) {
            this.subtask = subtask;
        }

        @Override
        public void collect(T record) {
            emitted.add(new Emitted<>(subtask, record));
        }

        @Override
        public void collect(T record, long timestamp) {
            collect(record);
        }

        @Override
        public void emitWatermark(Watermark watermark) {}

        @Override
        public void markIdle() {}

        @Override
        public void markActive() {}

        @Override
        public SourceOutput<T> createOutputForSplit(String splitId) {
            return this;
        }

        @Override
        public void releaseOutputForSplit(String splitId) {}
    }
}
