package io.fanout.flink.partitioned;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The partitioned store's serializer of {@code long[]} state values (neighbour lists, group indexes, heads): the
 * length and each value as a zig-zag varint, so a node id below 2^20 takes 3 bytes instead of Flink's fixed 8.
 *
 * <p>Why: the adjacency is kept once per hop, and with 8-byte ids RocksDB's files and every checkpoint held about
 * 16 bytes per stored edge; node ids of real graphs are far below 2^56, and the lists cannot be sorted to
 * delta-encode them (a list's order is the sampler's position order). Self-delimiting, so RocksDB's list state
 * (elements joined by a delimiter, read back one by one) keeps working; negative ids cost little (zig-zag).
 */
public final class CompactLongArraySerializer extends LongArrayStateSerializer {
    private static final long serialVersionUID = 1L;

    public static final CompactLongArraySerializer INSTANCE = new CompactLongArraySerializer();

    @Override
    public void serialize(long[] record, DataOutputView target) throws IOException {
        if (record == null) {
            throw new IllegalArgumentException("the partitioned store stores no null long[] value");
        }
        VarintWriter out = VarintWriter.to(target);
        out.put(record.length);
        for (long v : record) {
            out.putZigZag(v);
        }
        out.finish();
    }

    @Override
    public long[] deserialize(DataInputView source) throws IOException {
        long length = readVarLong(source);
        if (length < 0 || length > Integer.MAX_VALUE - 8) {
            throw new IOException("corrupt compact long[] state value: length " + length);
        }
        long[] out = new long[(int) length];
        for (int i = 0; i < out.length; i++) {
            long z = readVarLong(source);
            out[i] = (z >>> 1) ^ -(z & 1);
        }
        return out;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        VarintWriter out = VarintWriter.to(target);
        long length = readVarLong(source);
        out.put(length);
        for (long i = 0; i < length; i++) {
            out.put(readVarLong(source));
        }
        out.finish();
    }

    /** An unsigned LEB128 varint ({@link VarintWriter#put}: 7 bits a byte, the high bit set on all but the last). */
    static long readVarLong(DataInputView in) throws IOException {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = in.readUnsignedByte();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IOException("corrupt compact long[] state value: a varint longer than 10 bytes");
    }

    @Override
    public TypeSerializerSnapshot<long[]> snapshotConfiguration() {
        return new Snapshot();
    }

    /** Restores this serializer from a checkpoint or savepoint (no parameters). */
    public static final class Snapshot extends SimpleTypeSerializerSnapshot<long[]> {
        public Snapshot() {
            super(() -> INSTANCE);
        }
    }
}
