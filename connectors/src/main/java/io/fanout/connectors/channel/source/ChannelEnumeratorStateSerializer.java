package io.fanout.connectors.channel.source;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Checkpoint format of a {@link ChannelEnumeratorState}. Version 2, big-endian: u8 discovered (0/1),
 * i32 number of unassigned splits, then each split in the {@link ChannelSplitSerializer} layout of the
 * same version number (version 1 states, with version-1 splits, are still read).
 */
public final class ChannelEnumeratorStateSerializer implements SimpleVersionedSerializer<ChannelEnumeratorState> {
    public static final ChannelEnumeratorStateSerializer INSTANCE = new ChannelEnumeratorStateSerializer();
    public static final int VERSION = 2;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(ChannelEnumeratorState state) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(state.discovered() ? 1 : 0);
        out.writeInt(state.unassigned().size());
        for (ChannelSplit s : state.unassigned()) {
            ChannelSplitSerializer.write(s, out);
        }
        out.flush();
        return bytes.toByteArray();
    }

    @Override
    public ChannelEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION && version != 1) {
            throw new IOException("unknown channel enumerator state version " + version + " (this build reads 1 and " + VERSION + ")");
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
        int discovered = in.readUnsignedByte();
        if (discovered > 1) {
            throw new IOException("corrupt channel enumerator state: discovered flag " + discovered);
        }
        int n = in.readInt();
        if (n < 0 || n > serialized.length) {
            throw new IOException("corrupt channel enumerator state: " + n + " splits");
        }
        List<ChannelSplit> splits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            splits.add(ChannelSplitSerializer.read(in, version));
        }
        if (in.available() != 0) {
            throw new IOException("corrupt channel enumerator state: " + in.available() + " trailing bytes");
        }
        return new ChannelEnumeratorState(discovered == 1, splits);
    }
}
