package io.fanout.flink.partitioned;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;

/** What the partitioned store's varint {@code long[]} state serializers share: copies, no fixed length, no reuse. */
abstract class LongArrayStateSerializer extends TypeSerializerSingleton<long[]> {
    private static final long serialVersionUID = 1L;
    static final long[] EMPTY = new long[0];

    @Override
    public boolean isImmutableType() {
        return false;
    }

    @Override
    public long[] createInstance() {
        return EMPTY;
    }

    @Override
    public long[] copy(long[] from) {
        return from.clone();
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
