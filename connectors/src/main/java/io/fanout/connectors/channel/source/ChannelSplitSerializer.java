package io.fanout.connectors.channel.source;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Checkpoint format of a {@link ChannelSplit}. Version 2, big-endian (version 1 lacks the session and is still read):
 *
 * <pre>
 * u8 kind: 1 = file, 2 = endpoint
 * file:     i32 n, n bytes UTF-8 path; i64 byte offset; i64 records read
 * endpoint: i32 index; i32 n, n bytes UTF-8 host; i32 port;
 *           i32 runs, then per run i64 first key, i64 end key (exclusive), key = epoch &lt;&lt; 32 | batch id;
 *           i64 channel session id (0 = none)
 * </pre>
 */
public final class ChannelSplitSerializer implements SimpleVersionedSerializer<ChannelSplit> {
    public static final ChannelSplitSerializer INSTANCE = new ChannelSplitSerializer();
    public static final int VERSION = 2;
    static final int KIND_FILE = 1;
    static final int KIND_ENDPOINT = 2;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(ChannelSplit split) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        write(split, new DataOutputStream(bytes));
        return bytes.toByteArray();
    }

    @Override
    public ChannelSplit deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION && version != 1) {
            throw new IOException("unknown channel split format version " + version + " (this build reads 1 and " + VERSION + ")");
        }
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(serialized));
        ChannelSplit split = read(in, version);
        if (in.available() != 0) {
            throw new IOException("corrupt channel split: " + in.available() + " trailing bytes");
        }
        return split;
    }

    static void write(ChannelSplit split, DataOutputStream out) throws IOException {
        if (split.kind() == ChannelSplit.Kind.FILE) {
            out.writeByte(KIND_FILE);
            writeString(out, split.path());
            out.writeLong(split.byteOffset());
            out.writeLong(split.records());
        } else {
            out.writeByte(KIND_ENDPOINT);
            out.writeInt(split.endpointIndex());
            writeString(out, split.host());
            out.writeInt(split.port());
            List<long[]> runs = split.received().runs();
            out.writeInt(runs.size());
            for (long[] r : runs) {
                out.writeLong(r[0]);
                out.writeLong(r[1]);
            }
            out.writeLong(split.session());
        }
        out.flush();
    }

    static ChannelSplit read(DataInputStream in, int version) throws IOException {
        int kind = in.readUnsignedByte();
        try {
            if (kind == KIND_FILE) {
                String path = readString(in);
                long offset = in.readLong();
                long records = in.readLong();
                return ChannelSplit.file(path, offset, records);
            }
            if (kind == KIND_ENDPOINT) {
                int index = in.readInt();
                String host = readString(in);
                int port = in.readInt();
                int n = in.readInt();
                if (n < 0 || n > in.available() / 16) { // i.e. more runs than bytes left could hold
                    throw new IOException("corrupt channel split: " + n + " key runs in " + in.available() + " bytes");
                }
                List<long[]> runs = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    runs.add(new long[] {in.readLong(), in.readLong()});
                }
                long session = version >= 2 ? in.readLong() : 0;
                return ChannelSplit.endpoint(index, host, port, BatchKeySet.ofRuns(runs), session);
            }
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt channel split: " + e.getMessage(), e);
        }
        throw new IOException("corrupt channel split: unknown kind " + kind);
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > in.available()) {
            throw new IOException("corrupt channel split: string of " + n + " bytes in " + in.available());
        }
        return new String(in.readNBytes(n), StandardCharsets.UTF_8);
    }
}
