package io.fanout.flink.partitioned;

import java.io.IOException;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;

/**
 * Counts a keyed batch's answers against the number the batch waits for, so a stage reads the batch (its whole
 * partial subgraph, from RocksDB) once, when the batch or its last answer arrives, not on every answer (which made
 * a stage quadratic in the answers it gathers). Answers may arrive before their batch.
 */
final class AnswerTally {
    private final ValueState<Integer> answered;
    private final ValueState<Integer> expected;

    AnswerTally(RuntimeContext context) {
        this(context, "");
    }

    /** A tally whose two state names start with {@code prefix}, beside another tally of the same key. */
    AnswerTally(RuntimeContext context, String prefix) {
        answered = context.getState(new ValueStateDescriptor<>(prefix + "answered", Integer.class));
        expected = context.getState(new ValueStateDescriptor<>(prefix + "expected", Integer.class));
    }

    /** The current key's batch arrived and waits for {@code n} answers: true if they are all in already. */
    boolean expect(int n) throws IOException {
        expected.update(n);
        return count() >= n;
    }

    /** One more answer for the current key: true if it is the last one of a batch that already arrived. */
    boolean answer() throws IOException {
        return answer(1);
    }

    /** {@code n} more answers (one answer group) for the current key: true if they complete a batch that arrived. */
    boolean answer(int answers) throws IOException {
        int now = count() + answers;
        answered.update(now);
        Integer n = expected.value();
        return n != null && now >= n;
    }

    /**
     * {@code n} more answers to wait for, when the count is learnt piece by piece (PPR's neighbour degrees, asked for
     * by each list group as it is answered).
     */
    void expectMore(int n) throws IOException {
        Integer e = expected.value();
        expected.update(e == null ? n : e + n);
    }

    /** Whether every answer expected so far (none: true) has arrived. */
    boolean settled() throws IOException {
        Integer n = expected.value();
        return count() >= (n == null ? 0 : n);
    }

    /** The current key's batch is done. */
    void clear() {
        answered.clear();
        expected.clear();
    }

    private int count() throws IOException {
        Integer count = answered.value();
        return count == null ? 0 : count;
    }
}
