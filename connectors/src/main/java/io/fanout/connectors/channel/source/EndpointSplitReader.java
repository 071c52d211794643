package io.fanout.connectors.channel.source;

import io.fanout.connectors.channel.client.ChannelReader;
import io.fanout.connectors.channel.client.EndpointDialer;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.channel.tls.ChannelTls;
import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one live endpoint split (each gets its own fetcher thread, see {@link ChannelFetcherManager}): dials
 * the endpoint, resuming the checkpointed session, grants the prefetch window and returns one credit per
 * message received, but acknowledges nothing itself (unless the source acknowledges on receipt): the reader
 * does, once a checkpoint covers the message.
 * Unacknowledged messages are what the endpoint sends again after a restore. A lost connection fails the
 * split (and so the task): Flink restores it from the last checkpoint, where the session is resumed.
 */
final class EndpointSplitReader implements SplitReader<ChannelRecord, ChannelSplit> {
    private static final Logger LOG = LoggerFactory.getLogger(EndpointSplitReader.class);

    private final ChannelSource source;
    /** This reader's live sessions by split id, shared with the task thread that acknowledges. */
    private final Map<String, EndpointSession> sessions;
    private ChannelSplit split;
    private EndpointSession session;
    private volatile boolean closed;
    /** TLS with the source's CA (read once, here where the reader runs), or null for plain TCP. */
    private final SSLContext tls;

    EndpointSplitReader(ChannelSource source, Map<String, EndpointSession> sessions) {
        this.source = source;
        this.sessions = sessions;
        this.tls = source.tlsCa() == null ? null
                : ChannelTls.clientContext(Path.of(source.tlsCa()), "ChannelSource.withTlsCa");
    }

    @Override
    public RecordsWithSplitIds<ChannelRecord> fetch() throws IOException {
        RecordsBySplits.Builder<ChannelRecord> out = new RecordsBySplits.Builder<>();
        if (split == null) {
            return out.build();
        }
        if (session == null && !connect()) {
            out.addFinishedSplit(split.splitId());
            split = null;
            return out.build();
        }
        Frame f;
        try {
            f = session.read();
        } catch (IOException e) {
            if (session.isClosed()) {
                return out.build(); // the reader closed the session to stop this fetcher
            }
            if (!(e instanceof SocketTimeoutException)) {
                throw e;
            }
            throw new IOException("channel source: " + session.describe() + " sent nothing, not even a heartbeat, for "
                    + source.stallTimeout().toSeconds() + " s (stall timeout)", e);
        }
        if (f instanceof Frame.Message m) {
            session.credit(1);
            if (!source.acknowledgeOnCheckpoint()) {
                session.acknowledge(new long[] {m.seq()}); // on receipt: for jobs without checkpoints
            }
            out.add(split.splitId(), new ChannelRecord(new EncodedMessage(m.epoch(), m.batchId(), m.numBatches(), m.payload()), m.seq(), -1));
        } else if (f instanceof Frame.EndOfStream) {
            // Sent only once every message is acknowledged: all of them are in a completed checkpoint.
            LOG.info("channel source: {} ended its stream", session.describe());
            out.addFinishedSplit(split.splitId());
            finish();
        } else if (f instanceof Frame.Error err) {
            throw new IOException("channel source: " + session.describe() + " sent ERROR: " + err.text());
        } else if (f == null) {
            throw new IOException("channel source: " + session.describe() + " closed the connection before END_OF_STREAM");
        }
        // HEARTBEAT, END_OF_EPOCH: nothing to hand over (epochs are the consumer's business)
        return out.build();
    }

    /** Dials, resuming the split's session; false when the endpoint is finished (nothing left for anyone). */
    private boolean connect() throws IOException {
        ChannelReader.Options options = ChannelReader.Options.defaults().withPrefetch(source.prefetch())
                .withConnectTimeout(source.connectTimeout()).withToken(source.token()).withStallTimeout(source.stallTimeout());
        if (tls != null) {
            options = options.tlsCa(Path.of(source.tlsCa())); // named in the dialer's TLS messages
        }
        String dir = source.registryDir();
        EndpointDialer dialer = new EndpointDialer(split.endpointIndex(), InetSocketAddress.createUnresolved(split.host(), split.port()),
                dir == null ? null : new EndpointRegistry(Path.of(dir)), options, tls);
        EndpointDialer.Link link = dialer.dial(System.nanoTime() + source.connectTimeout().toNanos(), true, split.session(), () -> closed);
        if (link == null) {
            LOG.info("channel source: {} is finished: nothing left to read", dialer.describe());
            return false;
        }
        session = new EndpointSession(dialer, link);
        sessions.put(split.splitId(), session);
        LOG.info("channel source: {} {} session {}", dialer.describe(), session.resumed() ? "resumed" : "started",
                Long.toHexString(session.id()));
        session.credit(source.prefetch());
        return true;
    }

    private void finish() {
        sessions.remove(split.splitId());
        session.close();
        session = null;
        split = null;
    }

    @Override
    public void handleSplitsChanges(SplitsChange<ChannelSplit> change) {
        if (!(change instanceof SplitsAddition) || split != null || change.splits().size() != 1) {
            throw new IllegalStateException("channel source: an endpoint split reader reads exactly one split, got " + change);
        }
        split = change.splits().get(0);
    }

    @Override
    public void wakeUp() {
        // A blocked read ends with the next frame: the endpoint sends a heartbeat at least every interval.
    }

    @Override
    public void close() {
        closed = true;
        if (session != null) {
            sessions.remove(split.splitId(), session);
            session.close();
        }
    }
}
