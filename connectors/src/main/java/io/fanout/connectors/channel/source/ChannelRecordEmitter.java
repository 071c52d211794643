package io.fanout.connectors.channel.source;

import io.fanout.connectors.message.EncodedMessage;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Emits a {@link ChannelRecord} in the task thread and advances its split's state: a file's position, or
 * an endpoint's emitted keys (a copy of a key already emitted, re-sent after a restore, is dropped) and the
 * seqs to acknowledge once the next checkpoint completes.
 */
final class ChannelRecordEmitter implements RecordEmitter<ChannelRecord, EncodedMessage, ChannelSplitState> {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelRecordEmitter.class);

    @Override
    public void emitRecord(ChannelRecord record, SourceOutput<EncodedMessage> output, ChannelSplitState state) {
        EncodedMessage m = record.message();
        if (state.isFile()) {
            output.collect(m);
            state.byteOffset = record.offsetAfter();
            state.records++;
            return;
        }
        if (state.received.add(m.epoch, m.batchId)) {
            output.collect(m);
        } else {
            LOG.debug("channel source: {} dropped copy of epoch {} batch {}", state.split.splitId(), m.epoch, m.batchId);
        }
        // Copies too: the endpoint holds them until acknowledged, and the key they carry is checkpointed.
        state.delivered(record.seq());
    }
}
