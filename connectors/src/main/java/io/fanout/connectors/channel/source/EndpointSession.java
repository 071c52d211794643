package io.fanout.connectors.channel.source;

import io.fanout.connectors.channel.client.EndpointDialer;
import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import java.io.IOException;

/**
 * One connected channel session of an endpoint split. Its split reader's fetcher thread reads frames and
 * returns a credit per message; the task thread acknowledges seqs when a checkpoint completes. Writes are
 * serialised here because both threads write.
 */
final class EndpointSession implements AutoCloseable {
    private final EndpointDialer dialer;
    private final EndpointDialer.Link link;
    private final Object writeLock = new Object();
    private volatile boolean closed;

    EndpointSession(EndpointDialer dialer, EndpointDialer.Link link) {
        this.dialer = dialer;
        this.link = link;
    }

    long id() {
        return link.welcome().sessionId();
    }

    boolean resumed() {
        return link.welcome().resumed();
    }

    String describe() {
        return dialer.describe();
    }

    /** Reads the next frame (blocking; a silence longer than the stall timeout throws). */
    Frame read() throws IOException {
        return link.reader().read();
    }

    /** More messages the endpoint may send, without acknowledging anything. */
    void credit(long n) throws IOException {
        synchronized (writeLock) {
            link.writer().write(new Frame.Fetch(n, 0, ChannelProtocol.ANY_EPOCH));
        }
    }

    /** Acknowledges delivered messages: the endpoint forgets them (no credit returned: that went on delivery). */
    void acknowledge(long[] seqs) throws IOException {
        synchronized (writeLock) {
            for (long seq : seqs) {
                link.writer().write(new Frame.Fetch(0, seq, ChannelProtocol.ANY_EPOCH));
            }
        }
    }

    /** Closed by the reader (task shutting down): a read that fails now is no error. */
    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
        dialer.closeSocket();
    }
}
