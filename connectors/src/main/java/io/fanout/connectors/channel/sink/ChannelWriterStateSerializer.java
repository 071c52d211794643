package io.fanout.connectors.channel.sink;

import io.fanout.connectors.channel.endpoint.ChannelEndpoint;
import io.fanout.connectors.message.EncodedMessage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Checkpoint format of a channel sink writer ({@link ChannelEndpoint.Snapshot}): the completed-epoch
 * watermark, then every buffered or unacknowledged message (epoch, batch id, number of batches,
 * payload). Version 1.
 */
public final class ChannelWriterStateSerializer implements SimpleVersionedSerializer<ChannelEndpoint.Snapshot> {
    public static final ChannelWriterStateSerializer INSTANCE = new ChannelWriterStateSerializer();

    @Override
    public int getVersion() {
        return 1;
    }

    @Override
    public byte[] serialize(ChannelEndpoint.Snapshot state) throws IOException {
        long size = 8;
        for (EncodedMessage s : state.messages()) {
            size += 16 + s.payload.length;
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new IOException("channel writer state of " + size + " bytes is too large for one checkpoint entry");
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream((int) size);
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(state.watermarkEpoch());
        out.writeInt(state.messages().size());
        for (EncodedMessage s : state.messages()) {
            out.writeInt(s.epoch);
            out.writeInt(s.batchId);
            out.writeInt(s.numBatches);
            out.writeInt(s.payload.length);
            out.write(s.payload);
        }
        out.flush();
        return bytes.toByteArray();
    }

    @Override
    public ChannelEndpoint.Snapshot deserialize(int version, byte[] serialized) throws IOException {
        if (version != 1) {
            throw new IOException("unknown channel writer state version " + version + " (this code reads version 1)");
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized));
        int watermark = in.readInt();
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt channel writer state: " + n + " messages");
        }
        List<EncodedMessage> messages = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int epoch = in.readInt();
            int batchId = in.readInt();
            int numBatches = in.readInt();
            int len = in.readInt();
            if (len < 0 || len > in.available()) {
                throw new IOException("corrupt channel writer state: message " + i + " claims " + len + " bytes");
            }
            byte[] payload = new byte[len];
            in.readFully(payload);
            messages.add(new EncodedMessage(epoch, batchId, numBatches, payload));
        }
        return new ChannelEndpoint.Snapshot(watermark, messages);
    }
}
