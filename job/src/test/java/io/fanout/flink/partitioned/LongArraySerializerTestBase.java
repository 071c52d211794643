package io.fanout.flink.partitioned;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/** Flink's serializer checks for the partitioned store's variable-length {@code long[]} serializers. */
abstract class LongArraySerializerTestBase extends SerializerTestBase<long[]> {

    @Override
    protected int getLength() {
        return -1;
    }

    @Override
    protected Class<long[]> getTypeClass() {
        return long[].class;
    }

    /** The bytes {@code serializer} writes for {@code values}. */
    static int bytes(TypeSerializer<long[]> serializer, long[] values) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        serializer.serialize(values, out);
        return out.length();
    }
}
