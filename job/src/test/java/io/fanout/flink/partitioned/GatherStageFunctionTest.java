package io.fanout.flink.partitioned;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.co.KeyedCoProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedTwoInputStreamOperatorTestHarness;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A gather stage on a real RocksDB keyed backend (Flink's operator test harness): waiting batches are kept on the heap,
 * not in keyed state, and a checkpoint of them restores where their keys go, at another parallelism too.
 */
class GatherStageFunctionTest {
    private static final int MAX_PARALLELISM = 128;
    private static final int BATCHES = 40;

    /** A batch waiting for {@code expected} answers. */
    public static class Batch {
        public long key;
        public int expected;
        public String tag;

        public Batch() {}

        Batch(long key, int expected) {
            this.key = key;
            this.expected = expected;
            this.tag = "batch-" + key;
        }
    }

    /** One answer for batch {@code key}. */
    public static class Answer {
        public long key;
        public int value;

        public Answer() {}

        Answer(long key, int value) {
            this.key = key;
            this.value = value;
        }
    }

    /** Completes a batch with the sum of its answers in its tag. */
    static final class Summing extends GatherStageFunction<Batch, Answer> {
        private static final long serialVersionUID = 1L;

        Summing() {
            super("test-batch", Batch.class, "test-answers", Answer.class);
        }

        @Override
        protected int expected(Batch batch) {
            return batch.expected;
        }

        @Override
        protected int counted(Answer answer) {
            return 1;
        }

        @Override
        protected void complete(Batch batch, List<Answer> answers, Context ctx, Collector<Batch> out) {
            int sum = answers.stream().mapToInt(a -> a.value).sum();
            batch.tag = batch.tag + "=" + sum + "/" + answers.size();
            out.collect(batch);
        }
    }

    private final List<KeyedTwoInputStreamOperatorTestHarness<Long, Batch, Answer, Batch>> opened = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (var harness : opened) {
            harness.close();
        }
    }

    private KeyedTwoInputStreamOperatorTestHarness<Long, Batch, Answer, Batch> harness(int parallelism, int subtask,
            OperatorSubtaskState restored) throws Exception {
        KeySelector<Batch, Long> batchKey = b -> b.key;
        KeySelector<Answer, Long> answerKey = a -> a.key;
        var harness = new KeyedTwoInputStreamOperatorTestHarness<>(new KeyedCoProcessOperator<>(new Summing()),
                batchKey, answerKey, Types.LONG, MAX_PARALLELISM, parallelism, subtask);
        harness.setStateBackend(new EmbeddedRocksDBStateBackend());
        if (restored != null) {
            harness.initializeState(restored);
        }
        harness.open();
        opened.add(harness);
        return harness;
    }

    private static int owner(long key, int parallelism) {
        return KeyGroupRangeAssignment.assignKeyToParallelOperator(key, MAX_PARALLELISM, parallelism);
    }

    private static TreeMap<Long, String> completed(List<KeyedTwoInputStreamOperatorTestHarness<Long, Batch, Answer, Batch>> harnesses) {
        TreeMap<Long, String> out = new TreeMap<>();
        for (var harness : harnesses) {
            for (Object o : harness.getOutput()) {
                if (o instanceof StreamRecord<?> r && r.getValue() instanceof Batch b) {
                    assertThat(out.put(b.key, b.tag)).as("batch %d completed once", b.key).isNull();
                }
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Summing function(KeyedTwoInputStreamOperatorTestHarness<Long, Batch, Answer, Batch> harness) {
        return (Summing) ((KeyedCoProcessOperator<Long, Batch, Answer, Batch>) harness.getOperator()).getUserFunction();
    }

    private static long keysIn(KeyedTwoInputStreamOperatorTestHarness<Long, ?, ?, ?> harness, String state) {
        try (var stream = harness.getOperator().getKeyedStateBackend().getKeys(state, VoidNamespace.INSTANCE)) {
            return stream.count();
        }
    }

    /** Batches wait at parallelism {@code from} with one answer of three in, then finish at parallelism {@code to}. */
    private void waitingBatchesRestoreWhereTheirKeysGo(int from, int to) throws Exception {
        List<KeyedTwoInputStreamOperatorTestHarness<Long, Batch, Answer, Batch>> before = new ArrayList<>();
        for (int i = 0; i < from; i++) {
            before.add(harness(from, i, null));
        }
        for (long key = 0; key < BATCHES; key++) {
            var h = before.get(owner(key, from));
            if (key % 2 == 0) {
                h.processElement1(new StreamRecord<>(new Batch(key, 3)));
                h.processElement2(new StreamRecord<>(new Answer(key, 1)));
            } else { // the answer first, then its batch
                h.processElement2(new StreamRecord<>(new Answer(key, 1)));
                h.processElement1(new StreamRecord<>(new Batch(key, 3)));
            }
        }
        assertThat(completed(before)).isEmpty();
        OperatorSubtaskState[] snapshots = new OperatorSubtaskState[from];
        for (int i = 0; i < from; i++) {
            // The waiting batches are on the heap: none in keyed state (RocksDB), their answers are.
            assertThat(keysIn(before.get(i), "test-batch")).isZero();
            assertThat(keysIn(before.get(i), "test-answers")).isPositive();
            snapshots[i] = before.get(i).snapshot(1, 1);
        }
        OperatorSubtaskState all = AbstractStreamOperatorTestHarness.repackageState(snapshots);

        List<KeyedTwoInputStreamOperatorTestHarness<Long, Batch, Answer, Batch>> after = new ArrayList<>();
        for (int i = 0; i < to; i++) {
            after.add(harness(to, i, AbstractStreamOperatorTestHarness.repartitionOperatorState(all, MAX_PARALLELISM,
                    from, to, i)));
        }
        for (int i = 0; i < to; i++) {
            final int subtask = i;
            long owned = java.util.stream.LongStream.range(0, BATCHES).filter(k -> owner(k, to) == subtask).count();
            assertThat(function(after.get(i)).waitingBatches()).as("subtask %d keeps its own keys' batches", i)
                    .isEqualTo((int) owned);
        }
        for (long key = 0; key < BATCHES; key++) {
            var h = after.get(owner(key, to));
            h.processElement2(new StreamRecord<>(new Answer(key, 10)));
            h.processElement2(new StreamRecord<>(new Answer(key, 100)));
        }
        TreeMap<Long, String> done = completed(after);
        assertThat(done).hasSize(BATCHES);
        done.forEach((key, tag) -> assertThat(tag).isEqualTo("batch-" + key + "=111/3"));
        for (var h : after) {
            assertThat(keysIn(h, "test-answers")).as("answers cleared").isZero();
            assertThat(function(h).waitingBatches()).isZero();
        }
    }

    @Test
    void waitingBatchesRestoreAtTheSameParallelism() throws Exception {
        waitingBatchesRestoreWhereTheirKeysGo(2, 2);
    }

    @Test
    void waitingBatchesRestoreOnFewerSubtasks() throws Exception {
        waitingBatchesRestoreWhereTheirKeysGo(2, 1);
    }

    @Test
    void waitingBatchesRestoreOnMoreSubtasks() throws Exception {
        waitingBatchesRestoreWhereTheirKeysGo(1, 3);
    }
}
