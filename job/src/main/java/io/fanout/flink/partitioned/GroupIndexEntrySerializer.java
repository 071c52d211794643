package io.fanout.flink.partitioned;

import io.fanout.sampling.partitioned.NeighborBuckets;
import java.io.IOException;
import org.apache.flink.api.common.typeutils.SimpleTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * The serializer of a node's group index entries ({@link NeighborBuckets.GroupIndex}: {@code [order key,
 * neighbours...]} or {@code [-1 - order key, size]}): the order key (file index << 40 | byte offset) as two varints,
 * file index and offset, with the entry's kind in the length's low bit; the rest as {@link CompactLongArraySerializer}'s
 * zig-zag varints.
 *
 * <p>Why: on R-MAT graphs most of a node's groups hold one to a few edges, so each group's order key is a large share
 * of the index. As one zig-zag varint a key of a part of a few MB took 7 bytes; as file index and offset it takes 4-5
 * (R-MAT 2^18 x 16, p=2: 2 bytes per group, about 0.4 checkpoint bytes per stored edge, both hop copies).
 * Any {@code long[]} round-trips; the layout is not {@link CompactLongArraySerializer}'s, so a savepoint whose group
 * index was written by that one does not restore (Flink refuses the serializer change).
 */
public final class GroupIndexEntrySerializer extends LongArrayStateSerializer {
    private static final long serialVersionUID = 1L;
    private static final int OFFSET_BITS = 40;
    private static final long OFFSET_MASK = (1L << OFFSET_BITS) - 1;

    public static final GroupIndexEntrySerializer INSTANCE = new GroupIndexEntrySerializer();

    @Override
    public void serialize(long[] record, DataOutputView target) throws IOException {
        if (record == null) {
            throw new IllegalArgumentException("the partitioned store stores no null group index entry");
        }
        boolean reference = record.length > 0 && record[0] < 0;
        VarintWriter out = VarintWriter.to(target);
        out.put(((long) record.length << 1) | (reference ? 1 : 0));
        if (record.length > 0) {
            long order = reference ? -1 - record[0] : record[0];
            out.put(order >>> OFFSET_BITS);
            out.put(order & OFFSET_MASK);
            for (int i = 1; i < record.length; i++) {
                out.putZigZag(record[i]);
            }
        }
        out.finish();
    }

    @Override
    public long[] deserialize(DataInputView source) throws IOException {
        long header = CompactLongArraySerializer.readVarLong(source);
        long length = header >>> 1;
        if (length > Integer.MAX_VALUE - 8 || (length == 0 && header != 0)) {
            throw new IOException("corrupt group index entry: header " + header);
        }
        long[] out = new long[(int) length];
        if (out.length == 0) {
            return out;
        }
        long file = CompactLongArraySerializer.readVarLong(source);
        long offset = CompactLongArraySerializer.readVarLong(source);
        if (file >= 1L << (63 - OFFSET_BITS) || offset > OFFSET_MASK) {
            throw new IOException("corrupt group index entry: order key " + file + ":" + offset);
        }
        long order = file << OFFSET_BITS | offset;
        out[0] = (header & 1) != 0 ? -1 - order : order;
        for (int i = 1; i < out.length; i++) {
            long z = CompactLongArraySerializer.readVarLong(source);
            out[i] = (z >>> 1) ^ -(z & 1);
        }
        return out;
    }

    @Override
    public void copy(DataInputView source, DataOutputView target) throws IOException {
        VarintWriter out = VarintWriter.to(target);
        long header = CompactLongArraySerializer.readVarLong(source);
        out.put(header);
        long varints = header >>> 1 == 0 ? 0 : (header >>> 1) + 1; // file and offset for the order key
        for (long i = 0; i < varints; i++) {
            out.put(CompactLongArraySerializer.readVarLong(source));
        }
        out.finish();
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
