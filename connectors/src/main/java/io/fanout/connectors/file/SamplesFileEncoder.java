package io.fanout.connectors.file;

import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.flink.api.common.serialization.Encoder;

/** Flink {@link Encoder} writing each message as one {@code .samples} record ({@link SamplesFile}). */
public final class SamplesFileEncoder implements Encoder<EncodedMessage> {
    private static final long serialVersionUID = 1L;

    @Override
    public void encode(EncodedMessage sample, OutputStream out) throws IOException {
        SamplesFile.writeRecord(out, sample.bytes(), sample.length()); // owned or borrowed: written now, not kept
    }
}
