package io.fanout.connectors.channel.endpoint;

import io.fanout.connectors.channel.protocol.ChannelProtocol;
import io.fanout.connectors.channel.registry.EndpointInfo;
import io.fanout.connectors.channel.registry.EndpointRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

/** What the endpoint publishes in the registry directory: its {@code endpoint-<index>.json}, serving then finished. */
final class EndpointRegistration {
    private final EndpointRegistry registry;
    private final EndpointInfo info;

    EndpointRegistration(Path dir, ServerSocket server, int index, int numEndpoints, String jobId, String token, boolean tls) {
        this.registry = new EndpointRegistry(dir);
        // The registry names the oldest version served, so version 2 clients still accept the file.
        this.info = new EndpointInfo(ChannelProtocol.MIN_VERSION, index, numEndpoints, advertisedHost(server), server.getLocalPort(),
                EndpointInfo.State.SERVING, jobId, token, tls);
    }

    /** The bind address, or this machine's host name when bound to a wildcard address. */
    private static String advertisedHost(ServerSocket s) {
        InetAddress a = s.getInetAddress();
        if (!a.isAnyLocalAddress()) {
            return a.getHostAddress();
        }
        try {
            return InetAddress.getLocalHost().getCanonicalHostName();
        } catch (IOException e) {
            return "127.0.0.1";
        }
    }

    EndpointRegistry registry() {
        return registry;
    }

    EndpointInfo info() {
        return info;
    }

    Path file() {
        return registry.fileOf(info.index());
    }

    void publishServing() throws IOException {
        registry.write(info);
    }

    void publishFinished() throws IOException {
        registry.write(info.withState(EndpointInfo.State.FINISHED));
    }
}
