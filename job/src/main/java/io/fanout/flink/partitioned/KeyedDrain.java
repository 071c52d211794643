package io.fanout.flink.partitioned;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.KeyedStateFunction;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.util.function.ThrowingConsumer;

/** Walks the keys that hold a keyed state, for operators that act on every waiting key when an input ends. */
final class KeyedDrain {
    /**
     * The batches of each epoch whose waiting requests {@link #drain} answers first: enough for a trainer's first
     * steps, few enough to be a small part of the drain.
     */
    static final int FIRST_BATCHES = 4;

    private KeyedDrain() {}

    /** Whether the batch of {@code batchKey} (epoch in the high int, batch in the low) is one answered first. */
    static boolean firstBatch(long batchKey) {
        int batchId = (int) batchKey;
        return batchId >= 0 && batchId < FIRST_BATCHES;
    }

    /** The keys with a value in {@code stateName}, collected first (the caller updates state while it walks them). */
    static List<Object> keysOf(AbstractStreamOperator<?> operator, String stateName) throws Exception {
        List<Object> keys = new ArrayList<>();
        try (var stream = operator.getKeyedStateBackend().getKeys(stateName, VoidNamespace.INSTANCE)) {
            stream.forEach(keys::add);
        }
        return keys;
    }

    /**
     * Applies {@code action} to every key with a value in the list state {@code state}, that key current. Nothing is
     * collected on RocksDB: its keys stream from an iterator on an implicit snapshot, so {@code action} may clear the
     * state it is given (Flink's heap backend copies the keys first, but it holds all state on the heap anyway). For
     * walks over every loaded node, where {@link #keysOf} would build a list as large as the graph.
     */
    static <T> void forEachKey(AbstractStreamOperator<?> operator, ListStateDescriptor<T> state,
            KeyedStateFunction<Object, ListState<T>> action) throws Exception {
        operator.getKeyedStateBackend().applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE, state,
                action);
    }

    /** One node's loaded rows, sorted; see {@link #forEachNodeSorted}. */
    @FunctionalInterface
    interface NodeRows {
        void accept(long node, List<long[]> rows) throws Exception;
    }

    /**
     * {@link #forEachKey} over a list state of rows keyed by node: each node's rows read, cleared and sorted in
     * {@code order} (their list order: the load delivers them in any), then handed to {@code action}.
     */
    static void forEachNodeSorted(AbstractStreamOperator<?> operator, ListStateDescriptor<long[]> state,
            Comparator<long[]> order, NodeRows action) throws Exception {
        forEachKey(operator, state, (key, nodeRows) -> {
            List<long[]> loaded = new ArrayList<>();
            nodeRows.get().forEach(loaded::add);
            nodeRows.clear();
            loaded.sort(order);
            action.accept((Long) key, loaded);
        });
    }

    /**
     * Hands every request that waited in {@code waiting} (list state {@code stateName}) to {@code answer}, key by
     * key, and clears it: first the requests of each epoch's first batches ({@link #firstBatch} of the batch key
     * {@code batchKeyOf} gives), then the rest. A key's list is read before its
     * requests are answered, so {@code answer} may switch the current key (a request group answers each of its
     * nodes under its own).
     *
     * <p>Why two passes: the keys come in key order, which is no batch's order, so a batch's requests were answered
     * anywhere in a drain of every batch that arrived during the load, and its first message waited for most of the
     * drain (R-MAT 2^18 x 16, p=2, heap backend: up to a third of the time from submission to the first message). The
     * first pass answers a few batches whole on every subtask, so their messages go out while the rest is answered.
     * The first pass only reads: RocksDB pays one more read per waiting key (a request group), not per node.
     */
    static <R> void drain(AbstractStreamOperator<?> operator, String stateName, ListState<R> waiting,
            ToLongFunction<R> batchKeyOf, ThrowingConsumer<R, Exception> answer) throws Exception {
        List<Object> keys = keysOf(operator, stateName);
        answerEach(operator, keys, waiting, r -> firstBatch(batchKeyOf.applyAsLong(r)), false, answer);
        answerEach(operator, keys, waiting, r -> !firstBatch(batchKeyOf.applyAsLong(r)), true, answer);
    }

    /** One pass of {@link #drain}: each key's waiting requests that {@code which} picks, the list cleared if asked. */
    private static <R> void answerEach(AbstractStreamOperator<?> operator, List<Object> keys, ListState<R> waiting,
            Predicate<R> which, boolean clear, ThrowingConsumer<R, Exception> answer) throws Exception {
        List<R> requests = new ArrayList<>();
        for (Object key : keys) {
            operator.setCurrentKey(key);
            requests.clear();
            Iterable<R> stored = waiting.get();
            if (stored != null) {
                stored.forEach(r -> {
                    if (which.test(r)) {
                        requests.add(r);
                    }
                });
            }
            if (clear) {
                waiting.clear();
            }
            for (R request : requests) {
                answer.accept(request);
            }
        }
    }
}
