package io.fanout.connectors.channel.client;

import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;

/** What an endpoint's reading thread tells the consumer, in arrival order through one queue. */
sealed interface ReaderEvent permits ReaderEvent.Item, ReaderEvent.EpochEnd, ReaderEvent.Done, ReaderEvent.Failed {
    /** A message, with the connection generation and session it came on (for de-dup and ack). */
    record Item(EndpointConnection from, int generation, long session, long seq, EncodedMessage sample) implements ReaderEvent {}

    /** END_OF_EPOCH from one endpoint. */
    record EpochEnd(EndpointConnection from, int epoch) implements ReaderEvent {}

    /** END_OF_STREAM from one endpoint, or it is finished in the registry. */
    record Done(EndpointConnection from) implements ReaderEvent {}

    /** The endpoint failed for good (refused, broke the protocol, stalled, not reachable again). */
    record Failed(EndpointConnection from, IOException error) implements ReaderEvent {}
}
