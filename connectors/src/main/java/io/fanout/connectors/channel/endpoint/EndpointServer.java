package io.fanout.connectors.channel.endpoint;

import io.fanout.connectors.channel.options.ChannelOptions;
import io.fanout.connectors.channel.options.ChannelSinkOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The endpoint's transport: the listening socket, the acceptor thread (which also expires the
 * sessions of clients that left) and the set of open client connections.
 */
final class EndpointServer {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelEndpoint.class);
    /** How often the acceptor wakes to expire sessions of clients that left. */
    private static final int EXPIRY_CHECK_MS = 100;

    private final ServerSocket server;
    private final Set<ClientConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();
    private Thread acceptor;
    private String name;
    private EndpointDelivery delivery;
    private Function<Socket, ClientConnection> newConnection;

    private EndpointServer(ServerSocket server) {
        this.server = server;
    }

    /** Listens on the bind host, at the configured port plus {@code index} (or an ephemeral port). */
    static EndpointServer bind(ChannelSinkOptions options, int index) throws IOException {
        int port = options.port() == 0 ? 0 : options.port() + index;
        if (port > 65535) {
            throw new IllegalArgumentException("option " + ChannelOptions.PORT.key() + " = " + options.port() + " plus endpoint index "
                    + index + " exceeds 65535");
        }
        // Plain even with TLS: each connection looks at its first byte, so a plain client gets a
        // plain ERROR saying to use TLS instead of a reset (ClientConnection).
        ServerSocket s = new ServerSocket();
        try {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(options.bindHost(), port), 64);
            s.setSoTimeout(EXPIRY_CHECK_MS);
        } catch (IOException e) {
            s.close();
            throw new IOException("channel endpoint " + index + " cannot listen on " + options.bindHost() + ":" + port
                    + " (option " + ChannelOptions.BIND_HOST.key() + "/" + ChannelOptions.PORT.key() + "): " + e.getMessage(), e);
        }
        return new EndpointServer(s);
    }

    ServerSocket socket() {
        return server;
    }

    /** Starts accepting: every accepted socket becomes a connection whose sender thread starts at once. */
    void start(String endpointName, int index, EndpointDelivery d, Function<Socket, ClientConnection> factory) {
        this.name = endpointName;
        this.delivery = d;
        this.newConnection = factory;
        acceptor = new Thread(this::acceptLoop, "fanout-channel-" + index + "-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int nextConnectionId() {
        return connectionIds.incrementAndGet();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (SocketTimeoutException e) {
                delivery.expireSessions();
                continue;
            } catch (IOException e) {
                if (!server.isClosed()) {
                    LOG.warn("{} accept failed: {}", name, e.toString());
                }
                continue;
            }
            if (delivery.isClosed()) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // dropping it anyway
                }
                break;
            }
            ClientConnection c = newConnection.apply(socket);
            connections.add(c);
            c.sender.start();
            delivery.expireSessions();
        }
    }

    /** Removes a closed connection; true if it was still counted. */
    boolean forget(ClientConnection c) {
        return connections.remove(c);
    }

    boolean isListening() {
        return !server.isClosed();
    }

    int connectedClients() {
        return connections.size();
    }

    /** Stops listening, closes every connection and waits (briefly) for their threads. */
    void close() {
        try {
            server.close();
        } catch (IOException e) {
            LOG.warn("{} closing server socket: {}", name, e.toString());
        }
        List<ClientConnection> open = new ArrayList<>(connections);
        for (ClientConnection c : open) {
            c.closeSocket();
        }
        join(acceptor);
        for (ClientConnection c : open) {
            join(c.sender);
            join(c.receiver);
        }
    }

    private static void join(Thread t) {
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(2_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
