package io.fanout.connectors.channel.source;

import io.fanout.connectors.message.EncodedMessage;

/**
 * What a {@link ChannelSource} split reader hands to the task thread: a message and where it came from,
 * the channel session's seq (endpoint splits; acknowledged once a checkpoint covers it) or the file's
 * byte offset after it (file splits; the position to resume at).
 */
record ChannelRecord(EncodedMessage message, long seq, long offsetAfter) {}
