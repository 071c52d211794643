package io.fanout.flink.partitioned;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;

/**
 * What the partitioned store's varint {@code long[]} state serializers share: values treated as immutable, no fixed
 * length, no reuse.
 *
 * <p>Immutable because no operator writes into an array it stored or read back (a changed list or head is a new
 * array, put again). The heap backend copies a value with its serializer's {@code copy} at its first access while
 * an asynchronous snapshot that still needs the old version is being written, reads included: with a copy of the
 * array, every node a lookup touched during a heap checkpoint had its head (up to a bucket of neighbours) or its
 * group index duplicated for the snapshot's duration, the graph's hot part held twice. Declared immutable, the map
 * entry is still copied and a list state's list is copied shallowly ({@code ArrayListSerializer}), never an array.
 */
abstract class LongArrayStateSerializer extends TypeSerializerSingleton<long[]> {
    private static final long serialVersionUID = 1L;
    static final long[] EMPTY = new long[0];

    @Override
    public boolean isImmutableType() {
        return true;
    }

    @Override
    public long[] createInstance() {
        return EMPTY;
    }

    @Override
    public long[] copy(long[] from) {
        return from; // immutable by the store's contract (above)
    }

    @Override
    public long[] copy(long[] from, long[] reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public long[] deserialize(long[] reuse, DataInputView source) throws IOException {
        return deserialize(source);
    }
}
