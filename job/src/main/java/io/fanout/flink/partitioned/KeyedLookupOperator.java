package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.ValueCache;
import org.apache.flink.api.common.accumulators.LongCounter;

import java.io.Serializable;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedMultiInput;
import org.apache.flink.streaming.api.operators.TwoInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * A keyed lookup of one value per node (keyed by node, RocksDB): input 1 loads the values, input 2 asks for the
 * values of a batch's nodes and gets one answer per request back. A request that arrives while values still load
 * waits in keyed state and is answered when the load input ends (as in {@link NeighborLookupOperator}). What is
 * stored, asked and answered is its {@link Lookup}'s ({@link KeyedLookups}: node data, PPR lists, typed PPR rows).
 *
 * @param <I> a loaded record
 * @param <S> the value stored per node
 * @param <Q> a request (routed by a node the subtask owns)
 * @param <A> its answer
 */
public class KeyedLookupOperator<I, S, Q, A> extends AbstractStreamOperator<A>
        implements TwoInputStreamOperator<I, Q, A>, BoundedMultiInput {
    private static final long serialVersionUID = 1L;

    /** What one lookup stores per node and how it answers a request. */
    public interface Lookup<I, S, Q, A> extends Serializable {
        /** The value a loaded record stores under its key. */
        S stored(I loaded);

        /**
         * The batch {@code request} is for ({@code SeedBatch#key}): the requests of each epoch's first batches that
         * waited for the load are answered first ({@link KeyedDrain#drain}).
         */
        long batchKey(Q request);

        /** The answer to {@code request}, reading the stored values of its nodes through {@code values}. */
        A answer(Q request, Values<S> values) throws Exception;

        /**
         * The heap bytes a stored value takes when cached ({@link ValueCache}), or -1: this lookup's values are not
         * cached (the default).
         */
        default long cachedBytes(S stored) {
            return -1;
        }
    }

    /** The stored values a request reads. */
    @FunctionalInterface
    public interface Values<S> {
        /** {@code node}'s stored value, or null when none was loaded ({@code node} made the current key). */
        S of(long node) throws Exception;
    }

    private final String stateName;
    private final TypeInformation<S> stateType;
    private final String waitingName;
    private final TypeInformation<Q> requestType;
    private final Lookup<I, S, Q, A> lookup;
    /** {@code --partitioned.cache-mb} in bytes (-1: automatic), and the cached lookup operators per task slot. */
    private long cacheBytes;
    private int cachedLookups;

    private transient ValueState<S> values;
    private transient ValueCache<S> cache;
    private transient ListState<Q> waiting;
    private transient Values<S> reader;
    private transient boolean loaded;

    /**
     * @param stateName the keyed value state of the stored values, and {@code stateType} its type; with
     *     {@code waitingName} (the waiting requests' list state of {@code requestType}), what a savepoint holds
     */
    KeyedLookupOperator(String stateName, TypeInformation<S> stateType, String waitingName,
            TypeInformation<Q> requestType, Lookup<I, S, Q, A> lookup) {
        this.stateName = stateName;
        this.stateType = stateType;
        this.waitingName = waitingName;
        this.requestType = requestType;
        this.lookup = lookup;
    }

    /**
     * Caches recently read values on the heap ({@link ValueCache}, for a {@link Lookup} whose values say their size),
     * sized as the k-hop head cache is ({@link NeighborLookupOperator#cacheCapacity}).
     *
     * @param cacheBytes {@code --partitioned.cache-mb} in bytes, 0 = off, -1 = automatic
     * @param lookups the cached lookup operators of the job per task slot (the automatic size shares among them)
     */
    KeyedLookupOperator<I, S, Q, A> cached(long cacheBytes, int lookups) {
        this.cacheBytes = cacheBytes;
        this.cachedLookups = lookups;
        return this;
    }

    @Override
    public void open() throws Exception {
        super.open();
        values = getRuntimeContext().getState(new ValueStateDescriptor<>(stateName, stateType));
        waiting = getRuntimeContext().getListState(new ListStateDescriptor<>(waitingName, requestType));
        cache = new ValueCache<>(cachedLookups == 0 ? 0
                : NeighborLookupOperator.cacheCapacity(this, cacheBytes, cachedLookups, stateName + " cache",
                        "lookups"));
        LongCounter hits = getRuntimeContext().getLongCounter(NeighborLookupOperator.CACHE_HITS);
        LongCounter misses = getRuntimeContext().getLongCounter(NeighborLookupOperator.CACHE_MISSES);
        reader = node -> {
            S hit = cache.get(node);
            if (hit != null) {
                hits.add(1);
                return hit;
            }
            RequestRouting.toKey(this, node);
            S stored = values.value();
            long size = stored == null ? -1 : lookup.cachedBytes(stored);
            if (size >= 0) {
                misses.add(1);
                cache.put(node, stored, size);
            }
            return stored;
        };
    }

    @Override
    public void endInput(int inputId) throws Exception {
        if (inputId != 1) {
            return;
        }
        loaded = true;
        KeyedDrain.drain(this, waitingName, waiting, lookup::batchKey, this::answer);
    }

    @Override
    public void processElement1(StreamRecord<I> element) throws Exception {
        values.update(lookup.stored(element.getValue()));
    }

    @Override
    public void processElement2(StreamRecord<Q> element) throws Exception {
        if (loaded) {
            answer(element.getValue());
        } else {
            waiting.add(element.getValue());
        }
    }

    private void answer(Q request) throws Exception {
        output.collect(new StreamRecord<>(lookup.answer(request, reader)));
    }
}
