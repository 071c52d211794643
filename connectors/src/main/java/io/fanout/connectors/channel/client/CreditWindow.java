package io.fanout.connectors.channel.client;

import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameWriter;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One endpoint's credit window as the reader grants it, and the FETCH frames that grant credits,
 * acknowledge handed-out messages and tell the epoch being read. The window starts at
 * {@code prefetch}; while the endpoint's messages are small it grows to as many as fit in
 * {@code prefetchBytes} (at most {@link ChannelReader#MAX_PREFETCH_WINDOW}), and shrinks back as
 * they grow. Thread-safe: the consumer and the reading thread (handshake) both use it.
 */
final class CreditWindow {
    private final int prefetch;
    private final long prefetchBytes;
    /** Credit window: messages the endpoint may have ahead of consumption. */
    private int window;
    /** Moving average of the sizes of its handed-out messages. */
    private double avgBytes;
    /** Credits not returned yet because the window shrank. */
    private int withhold;
    /**
     * Credits granted on the current connection, counted before each FETCH goes out (so the reading
     * thread never sees a MESSAGE before its credit); a server sending more is broken, not slow.
     */
    private final AtomicLong granted = new AtomicLong();
    /** The connection's writer once its handshake is done; null while there is none (no FETCH goes out). */
    private FrameWriter writer;

    CreditWindow(int prefetch, long prefetchBytes) {
        this.prefetch = prefetch;
        this.prefetchBytes = prefetchBytes;
        this.window = prefetch;
    }

    /** Credits granted on the current connection. */
    long granted() {
        return granted.get();
    }

    /** A new connection is welcomed: its credits start from nothing, so it is granted the whole window. */
    synchronized void open(FrameWriter w, int epochLimit) throws IOException {
        withhold = 0;
        granted.set(window);
        w.write(new Frame.Fetch(window, 0, epochLimit));
        writer = w;
    }

    /** The connection is lost: no FETCH of the consumer goes out before the next handshake. */
    synchronized void close() {
        writer = null;
    }

    /**
     * Acknowledges {@code ack} and returns its credit, after fitting the window to a handed-out
     * message of {@code bytes} ({@code < 0}: nothing to fit): a grown window sends its extra credits
     * along, a shrunk one keeps returning credits back until it is paid. Changes under a quarter of
     * the window are ignored, so it does not follow every wobble. {@code ack} 0 acknowledges nothing.
     */
    synchronized void giveBack(long ack, int bytes, int epochLimit) {
        int credits = 1;
        if (bytes >= 0 && prefetchBytes > 0) {
            avgBytes = avgBytes == 0 ? bytes : avgBytes + (bytes - avgBytes) / 8;
            int fit = (int) Math.max(prefetch, Math.min(ChannelReader.MAX_PREFETCH_WINDOW, (long) (prefetchBytes / Math.max(avgBytes, 1))));
            if (4L * Math.abs(fit - window) >= window) {
                if (fit > window) {
                    credits += fit - window;
                } else {
                    withhold += window - fit;
                }
                window = fit;
            }
        }
        int kept = Math.min(withhold, credits);
        withhold -= kept;
        credits -= kept;
        if (credits != 0 || ack != 0) {
            write(credits, ack, epochLimit);
        }
    }

    /** Tells the endpoint the epoch being read (a FETCH without credits or ack). */
    synchronized void sendEpochLimit(int epochLimit) {
        write(0, 0, epochLimit);
    }

    /**
     * One FETCH. A lost connection ignores it: the reading thread reconnects, and its handshake
     * FETCH grants the window afresh with the current epoch.
     */
    private void write(int credits, long ack, int epochLimit) {
        if (writer == null) {
            return;
        }
        try {
            granted.addAndGet(credits);
            writer.write(new Frame.Fetch(credits, ack, epochLimit));
        } catch (IOException e) {
            // The connection is gone: its reading thread notices and reconnects.
        }
    }
}
