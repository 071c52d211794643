package io.fanout.connectors.channel.client;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.protocol.Frame;
import io.fanout.connectors.channel.protocol.FrameReader;
import io.fanout.connectors.channel.protocol.FrameWriter;
import io.fanout.connectors.channel.protocol.ProtocolException;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import io.fanout.connectors.channel.tls.ChannelTls;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds one endpoint (its registry file, or the given address), connects (TLS when the reader has a CA) and handshakes: HELLO
 * with the token and the session to resume, WELCOME back. Retries refused and reset connections
 * until the deadline (an endpoint restarting writes its new port into the registry); an endpoint
 * finished in the registry is done, not an error. Public so that {@code ChannelSource}'s endpoint split
 * reader dials and resumes sessions the same way {@link ChannelReader} does.
 */
public final class EndpointDialer {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelReader.class);

    /**
     * How long an endpoint may take to answer HELLO. A live endpoint answers at once; a registry file names
     * a restarted endpoint's old address until the new one writes its own, and another process listening
     * there meanwhile may never answer: the attempt ends and the registry is read again.
     */
    static final int HANDSHAKE_TIMEOUT_MS = 10_000;

    /** Something other than this endpoint answered at its registry address (see {@link #HANDSHAKE_TIMEOUT_MS}). */
    static final class StaleAddressException extends IOException {
        private static final long serialVersionUID = 1L;

        StaleAddressException(String message) {
            super(message);
        }
    }

    /** A handshaken connection. */
    public record Link(Socket socket, FrameReader reader, FrameWriter writer, Frame.Welcome welcome) {}

    private final int index;
    private final ChannelReader.Options options;
    /** Null when the endpoints were given as addresses. */
    private final EndpointRegistry registry;
    private volatile InetSocketAddress address;
    private String token;
    /** Null = plain TCP. */
    private final SSLContext tls;
    /** The last stale-address answer logged (logged once, not at every retry). */
    private String lastStale;
    /** The socket being connected or in use, so {@link #closeSocket} can break a blocked read. */
    private volatile Socket socket;

    public EndpointDialer(int index, InetSocketAddress address, EndpointRegistry registry, ChannelReader.Options options, SSLContext tls) {
        this.tls = tls;
        this.index = index;
        this.address = address;
        this.registry = registry;
        this.options = options;
        this.token = options.token();
    }

    public String describe() {
        InetSocketAddress a = address;
        return "endpoint " + index + " (" + (a == null ? "no registry file" : a.getHostString() + ":" + a.getPort()) + ")";
    }

    /** Registry state of this endpoint, or empty without registry / file. */
    private Optional<EndpointInfo> registered() throws IOException {
        return registry == null ? Optional.empty() : registry.read(index);
    }

    boolean finishedInRegistry() throws IOException {
        return registered().map(i -> i.state() == EndpointInfo.State.FINISHED).orElse(false);
    }

    /**
     * Connects and handshakes, resuming {@code session} (or a new one), until {@code deadline}; null
     * if the endpoint turned out finished or the reader closed.
     *
     * @throws SocketTimeoutException when the endpoint did not answer by the deadline
     * @throws ChannelReader.ServerError when it refused the handshake
     */
    public Link dial(long deadline, boolean first, long session, BooleanSupplier closed) throws IOException {
        while (true) {
            if (registry != null) {
                Optional<EndpointInfo> info = registered();
                if (info.isPresent()) {
                    if (info.get().state() == EndpointInfo.State.FINISHED) {
                        LOG.info("channel {} is finished in the registry", describe());
                        return null;
                    }
                    address = new InetSocketAddress(info.get().host(), info.get().port());
                    checkTlsMatches(info.get());
                    if (options.token().isEmpty() && info.get().token() != null) {
                        token = info.get().token();
                    }
                }
            }
            long remaining = (deadline - System.nanoTime()) / 1_000_000;
            if (remaining <= 0) {
                throw new SocketTimeoutException("channel " + describe() + " did not answer within "
                        + (first ? options.connectTimeout() : options.reconnectTimeout()));
            }
            InetSocketAddress a = address;
            if (a != null) {
                Socket s = new Socket();
                try {
                    InetSocketAddress target = a.isUnresolved() ? new InetSocketAddress(a.getHostString(), a.getPort()) : a;
                    s.connect(target, (int) Math.max(1, Math.min(remaining, 2_000)));
                    socket = s;
                    if (closed.getAsBoolean()) {
                        return null;
                    }
                    if (s.getLocalPort() == s.getPort() && s.getLocalAddress().equals(s.getInetAddress())) {
                        // Nothing listens at the (stale) local address, and TCP's simultaneous open connected
                        // the socket to itself: it would read its own HELLO back.
                        throw new StaleAddressException("nothing listens at " + a + " (the connection reached itself)");
                    }
                    s.setSoTimeout((int) Math.max(1, Math.min(remaining, HANDSHAKE_TIMEOUT_MS)));
                    if (tls != null) {
                        s = secure(s, a);
                        socket = s;
                    }
                    Link link = handshake(s, session);
                    // From now on a read that waits longer than the stall timeout means the
                    // endpoint stopped: a live one sends at least HEARTBEAT every few seconds.
                    s.setSoTimeout((int) options.stallTimeout().toMillis());
                    return link;
                } catch (ChannelReader.ServerError e) {
                    s.close();
                    throw e;
                } catch (StaleAddressException e) {
                    s.close();
                    if (!e.getMessage().equals(lastStale)) {
                        LOG.info("channel {}: {}; reading the registry again", describe(), e.getMessage());
                        lastStale = e.getMessage();
                    }
                } catch (ConnectException | SocketTimeoutException | EOFException e) {
                    s.close();
                    // Refused: an endpoint that finished and closed is done, not an error.
                    if (finishedInRegistry()) {
                        LOG.info("channel {} refused the connection and is finished in the registry", describe());
                        return null;
                    }
                } catch (SocketException e) {
                    s.close(); // reset while the endpoint restarts: try again
                }
            }
            ChannelReader.sleep();
            if (closed.getAsBoolean()) {
                return null;
            }
        }
    }

    /** Refuses a TLS endpoint without a CA, and a plain one with a CA (no silent downgrade). */
    private void checkTlsMatches(EndpointInfo info) throws ChannelReader.ServerError {
        if (info.servesTls() && tls == null) {
            throw new ChannelReader.ServerError("channel " + describe() + " serves TLS (\"tls\": true in its registry file): give the "
                    + "reader the CA that signed its certificate (ChannelReader.Options.tlsCa, ChannelSource.withTlsCa)");
        }
        if (!info.servesTls() && tls != null) {
            throw new ChannelReader.ServerError("channel " + describe() + " serves plain TCP (no \"tls\" in its registry file) but "
                    + "the reader was given a TLS CA (" + options.tlsCa() + "): refusing to connect without TLS");
        }
    }

    /** TLS over the connected socket, verifying the certificate against the CA and the endpoint's host. */
    private Socket secure(Socket plain, InetSocketAddress a) throws IOException {
        try {
            return ChannelTls.connect(tls, plain, a.getHostString(), a.getPort());
        } catch (SSLException e) {
            throw new ChannelReader.ServerError("channel " + describe() + ": TLS handshake failed: " + e.getMessage()
                    + " (the reader trusts the CA of " + options.tlsCa() + "; the endpoint's certificate must be signed by it and "
                    + "name host " + a.getHostString() + ")");
        }
    }

    private Link handshake(Socket s, long session) throws IOException {
        s.setTcpNoDelay(true);
        FrameWriter writer = new FrameWriter(new BufferedOutputStream(s.getOutputStream()));
        FrameReader reader = new FrameReader(new BufferedInputStream(s.getInputStream(), 1 << 16), options.maxFrameBytes());
        writer.write(new Frame.Hello(ChannelProtocol.VERSION, token, session));
        Frame f;
        try {
            f = reader.read();
        } catch (ProtocolException e) {
            if (registry == null) {
                throw e;
            }
            throw new StaleAddressException(s.getRemoteSocketAddress() + " answered HELLO with something other than the channel "
                    + "protocol (" + e.getMessage() + "): not this endpoint (a stale registry address?)");
        }
        if (f instanceof Frame.Welcome w) {
            if (registry != null && w.endpointIndex() != index) {
                throw new StaleAddressException(s.getRemoteSocketAddress() + " answered HELLO as endpoint " + w.endpointIndex()
                        + ": not this endpoint (a stale registry address?)");
            }
            if (w.version() != ChannelProtocol.VERSION) {
                throw new ChannelReader.ServerError("channel " + describe() + " speaks protocol version " + w.version() + ", this reader "
                        + ChannelProtocol.VERSION);
            }
            return new Link(s, reader, writer, w);
        }
        if (f instanceof Frame.Error err) {
            throw new ChannelReader.ServerError("channel " + describe() + " refused the handshake: " + err.text());
        }
        if (registry != null && f != null) {
            throw new StaleAddressException(s.getRemoteSocketAddress() + " answered HELLO with " + f.type()
                    + ", not WELCOME: not this endpoint (a stale registry address?)");
        }
        throw new ChannelReader.ServerError("channel " + describe() + " answered HELLO with " + (f == null ? "end of stream" : f.type())
                + (f == null && tls == null ? " (an endpoint serving TLS closes a plain connection: give the reader its CA: ChannelReader.Options.tlsCa, ChannelSource.withTlsCa)" : ""));
    }

    public void closeSocket() {
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
