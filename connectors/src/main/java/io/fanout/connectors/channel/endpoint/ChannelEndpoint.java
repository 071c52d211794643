package io.fanout.connectors.channel.endpoint;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.options.ChannelOptions;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import io.fanout.connectors.message.EncodedMessage;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One channel endpoint (docs/channel-protocol.md, protocol v3, serving v2 clients too), no Flink inside: a TCP server over a
 * bounded buffer of messages that pulling clients share; with the TLS options ({@link ChannelSinkOptions#tls()}) it
 * serves TLS only.
 *
 * <p>Delivery: a buffered message goes to one client <em>session</em>, which keeps it as
 * sent-but-unacknowledged until the client acknowledges it (FETCH carries a cumulative ack). A
 * client that reconnects resumes its session and gets its unacknowledged messages again; a session
 * whose client stays away longer than the session timeout hands them back to the buffer for other
 * clients. Buffered plus unacknowledged messages are bounded by count and bytes: {@link #put}
 * blocks while the bound is reached, which is the sink's back-pressure; except while a client waits
 * for an epoch still being produced and nothing held is of it (blocking would hold back its stragglers).
 * A client (version 3) tells in each FETCH the epoch it reads; it gets no message of a later one.
 *
 * <p>Epochs: {@link #advanceWatermark} says every message of epochs up to {@code e} has been put;
 * once none of them is buffered or unacknowledged, every client gets END_OF_EPOCH(e) (cumulative).
 * {@link #snapshot()} / the restoring constructor carry buffered and unacknowledged messages across
 * a job restart.
 *
 * <p>The parts, one concern each: {@link EndpointServer} (listening socket, acceptor, expiry ticks),
 * {@link ClientConnection} (handshake, sender and receiver threads), {@link EndpointDelivery} (the
 * lock and every decision: bound, what to send next, acks), {@link HeldMessages} (buffer and
 * unacknowledged accounting), {@link ClientSession} (a client's unacknowledged and resend messages),
 * {@link CreditWindow}, {@link EpochGate}, {@link SessionTable} (sessions and their expiry) and
 * {@link EndpointRegistration} (the registry file). Every thread is a daemon.
 */
public final class ChannelEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelEndpoint.class);

    /** Receives delivery statistics (Flink metrics in the sink writer); called outside the lock. */
    public interface Listener {
        /** A MESSAGE frame of {@code payloadBytes} was written to a client. */
        void onSent(int payloadBytes);

        /** A credit waited {@code nanos} for a message (the client's fetch latency as the server sees it). */
        void onFetchLatency(long nanos);
    }

    /** What a checkpoint keeps: the completed-epoch watermark and every message not yet acknowledged. */
    public record Snapshot(int watermarkEpoch, List<EncodedMessage> messages) {}

    private final ChannelSinkOptions options;
    private final String name;
    private final EndpointServer server;
    private final EndpointRegistration registration;
    private final EndpointDelivery delivery;
    /**
     * An earlier attempt of this job's endpoint already finished (its registry file says so): every message of
     * its input was delivered and acknowledged, so what this attempt restores and is given again are copies.
     */
    private final boolean finishedBefore;
    private long copiesDropped;

    /**
     * Binds the server socket, starts accepting and registers the endpoint as {@code serving}.
     *
     * @param index this endpoint's index (sink subtask index)
     * @param numEndpoints number of endpoints (sink parallelism)
     * @param jobId written to the registry for information; may be null
     */
    public ChannelEndpoint(ChannelSinkOptions options, int index, int numEndpoints, String jobId) throws IOException {
        this(options, index, numEndpoints, jobId, null);
    }

    /**
     * As {@link #ChannelEndpoint(ChannelSinkOptions, int, int, String)}, first re-buffering what a
     * checkpoint kept ({@code restored} may be null).
     */
    public ChannelEndpoint(ChannelSinkOptions options, int index, int numEndpoints, String jobId, Snapshot restored)
            throws IOException {
        if (index < 0 || index >= numEndpoints) {
            throw new IllegalArgumentException("endpoint index " + index + " not in [0, " + numEndpoints + ")");
        }
        this.options = options;
        this.server = EndpointServer.bind(options, index);
        this.registration = new EndpointRegistration(Paths.get(options.registryDir()), server.socket(), index, numEndpoints, jobId,
                options.token(), options.tls());
        EndpointInfo info = registration.info();
        this.name = "channel endpoint " + index + "/" + numEndpoints + " (" + info.address() + (options.tls() ? ", TLS" : "") + ")";
        this.delivery = new EndpointDelivery(options, name);
        this.finishedBefore = finishedInAnEarlierAttempt(jobId, index);
        if (restored != null && !finishedBefore) {
            delivery.restore(restored);
        }
        ClientConnection.Context ctx = new ClientConnection.Context(options, index, numEndpoints, name,
                options.token().getBytes(StandardCharsets.UTF_8), delivery, server, options.tlsContext());
        server.start(name, index, delivery, socket -> new ClientConnection(ctx, socket, server.nextConnectionId()));
        if (finishedBefore) {
            // Its registry file stays "finished": the clients saw END_OF_STREAM and will not come back. Restored
            // from a checkpoint taken before that (a failover after this endpoint finished, while others had not),
            // waiting for them to take the copies would hold the job for ever.
            LOG.info("{} finished in an earlier attempt of job {} (registry {}): its {} restored messages and every message "
                    + "put are copies of delivered ones, dropped", name, jobId, registration.file(),
                    restored == null ? 0 : restored.messages().size());
            return;
        }
        try {
            registration.publishServing();
        } catch (IOException e) {
            close();
            throw new IOException(name + " cannot write its registry file " + registration.file() + ": " + e.getMessage(), e);
        }
        if (restored != null) {
            LOG.info("{} restored {} messages and completed epochs up to {} from a checkpoint", name, delivery.buffered(),
                    delivery.watermarkEpoch());
        }
        LOG.info("{} listening, registered in {}", name, registration.file());
    }

    /** Whether the registry says this endpoint of job {@code jobId} finished in an earlier attempt (never without a job id). */
    private boolean finishedInAnEarlierAttempt(String jobId, int index) {
        if (jobId == null) {
            return false;
        }
        try {
            return registration.registry().read(index)
                    .map(i -> i.state() == EndpointInfo.State.FINISHED && jobId.equals(i.jobId())).orElse(false);
        } catch (IOException e) {
            LOG.warn("{}: cannot read its registry file {}: {}", name, registration.file(), e.getMessage());
            return false;
        }
    }

    /** Sets who hears about sent messages and fetch latencies (or null). */
    public void setListener(Listener listener) {
        delivery.setListener(listener);
    }

    /** The registry entry of this endpoint (state as registered at start). */
    public EndpointInfo info() {
        return registration.info();
    }

    /** True until the endpoint's server socket is closed. */
    public boolean isListening() {
        return server.isListening();
    }

    /** Where the server listens. */
    public InetSocketAddress address() {
        return new InetSocketAddress(info().host(), info().port());
    }

    /** Messages waiting in the buffer (not yet sent). */
    public int buffered() {
        return delivery.buffered();
    }

    /** Bytes of the messages waiting in the buffer. */
    public long bufferedBytes() {
        return delivery.bufferedBytes();
    }

    /** Messages held: buffered plus sent but unacknowledged (what the count bound limits). */
    public int held() {
        return delivery.held();
    }

    /** Bytes held: buffered plus sent but unacknowledged (what the byte bound limits). */
    public long heldBytes() {
        return delivery.heldBytes();
    }

    /** The largest {@link #heldBytes()} seen so far. */
    public long peakHeldBytes() {
        return delivery.peakHeldBytes();
    }

    /** The last epoch announced with END_OF_EPOCH (-1 if none). */
    public int endedEpoch() {
        return delivery.endedEpoch();
    }

    /** MESSAGE frames written to clients so far (a re-sent message counts again). */
    public long delivered() {
        return delivery.delivered();
    }

    /** Clients currently connected. */
    public int connectedClients() {
        return server.connectedClients();
    }

    /**
     * Appends a message, blocking while the bound is reached (count or bytes of buffered plus
     * unacknowledged messages). A message larger than the byte bound is accepted once nothing is held.
     *
     * @throws IllegalArgumentException if the message would exceed the frame limit
     * @throws IllegalStateException if the endpoint is closed or its input already ended
     */
    public void put(EncodedMessage sample) throws InterruptedException {
        long frame = 1L + ChannelProtocol.MESSAGE_BODY_HEAD_BYTES + sample.payload.length;
        if (finishedBefore) {
            copiesDropped++;
            return;
        }
        if (frame > options.maxFrameBytes()) {
            throw new IllegalArgumentException("message epoch " + sample.epoch + " batch " + sample.batchId + " of " + sample.payload.length
                    + " bytes exceeds option " + ChannelOptions.MAX_FRAME_BYTES.key() + " = " + options.maxFrameBytes() + " bytes");
        }
        delivery.put(sample);
    }

    /**
     * Every message of epochs up to {@code epoch} has been put: once they are all acknowledged,
     * clients get END_OF_EPOCH. Never moves backwards.
     */
    public void advanceWatermark(int epoch) {
        delivery.advanceWatermark(epoch);
    }

    /** The state a checkpoint keeps: unacknowledged messages (in session order), then the buffer. */
    public Snapshot snapshot() {
        return delivery.snapshot();
    }

    /**
     * Ends the input: blocks until every message was delivered and acknowledged, then marks the
     * endpoint {@code finished} in the registry. Connected and late clients get END_OF_STREAM.
     */
    public void finishAndDrain() throws InterruptedException, IOException {
        if (finishedBefore) {
            delivery.finishAndDrain(0); // nothing held: returns at once; late clients get END_OF_STREAM
            registration.publishFinished();
            LOG.info("{} end of stream: finished in an earlier attempt, {} copies dropped", name, copiesDropped);
            return;
        }
        delivery.finishAndDrain(server.connectedClients());
        registration.publishFinished();
        LOG.info("{} end of stream: {} messages delivered, marked finished in {}", name, delivery.delivered(), registration.file());
    }

    /**
     * Closes the endpoint. After a completed {@link #finishAndDrain()} it first lingers (answering
     * late clients with END_OF_STREAM) for the configured time; otherwise (cancel, failure) it closes
     * at once: undelivered messages survive only in the last checkpoint.
     */
    @Override
    public void close() {
        if (delivery.isClosed()) {
            return;
        }
        if (delivery.shouldLinger()) {
            LOG.info("{} lingering {} for late clients", name, options.linger());
            try {
                Thread.sleep(options.linger().toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        int dropped = delivery.close();
        server.close();
        if (dropped > 0) {
            LOG.warn("{} closed with {} undelivered or unacknowledged messages", name, dropped);
        } else {
            LOG.info("{} closed", name);
        }
    }

    /** Restored snapshots of several writers (after a rescale) as one: every message, the lowest watermark. */
    public static Snapshot merge(Collection<Snapshot> parts) {
        if (parts == null || parts.isEmpty()) {
            return null;
        }
        int watermark = Integer.MAX_VALUE;
        List<EncodedMessage> all = new ArrayList<>();
        for (Snapshot p : parts) {
            watermark = Math.min(watermark, p.watermarkEpoch());
            all.addAll(p.messages());
        }
        return new Snapshot(watermark, all);
    }

    @Override
    public String toString() {
        return name;
    }
}
