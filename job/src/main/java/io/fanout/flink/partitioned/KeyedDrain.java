package io.fanout.flink.partitioned;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.runtime.state.KeyedStateFunction;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.util.function.ThrowingConsumer;

/** Walks the keys that hold a keyed state, for operators that act on every waiting key when an input ends. */
final class KeyedDrain {
    private KeyedDrain() {}

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
     * key, and clears it. A key's list is read and cleared before its requests are answered, so {@code answer}
     * may switch the current key (a request group answers each of its nodes under its own).
     */
    static <R> void drain(AbstractStreamOperator<?> operator, String stateName, ListState<R> waiting,
            ThrowingConsumer<R, Exception> answer) throws Exception {
        for (Object key : keysOf(operator, stateName)) {
            operator.setCurrentKey(key);
            List<R> requests = new ArrayList<>();
            Iterable<R> stored = waiting.get();
            if (stored != null) {
                stored.forEach(requests::add);
            }
            waiting.clear();
            for (R request : requests) {
                answer.accept(request);
            }
        }
    }
}
