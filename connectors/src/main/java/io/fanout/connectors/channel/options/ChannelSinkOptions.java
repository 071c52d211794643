package io.fanout.connectors.channel.options;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

/** Validated settings of a channel sink and its endpoints ({@code ChannelSink}, {@code ChannelEndpoint}); see {@link ChannelOptions} for their meaning. */
public final class ChannelSinkOptions implements Serializable {
    private static final long serialVersionUID = 1L;
    /** Smallest accepted frame limit: room for every control frame. */
    static final int MIN_FRAME_BYTES = 64;

    private final String registryDir;
    private final String bindHost;
    private final int port;
    private final int capacity;
    private final long bufferBytes;
    private final Duration linger;
    private final int maxFrameBytes;
    private final String token;
    private final Duration sessionTimeout;
    private final Duration heartbeatInterval;
    /** PEM certificate chain and PKCS#8 key paths; both null = plain TCP. */
    private final String tlsCert;
    private final String tlsKey;
    /** Data-parallel trainers of the job (its --trainers): each endpoint serves rank r the batches with id mod this == r. */
    private final int trainers;

    private ChannelSinkOptions(Builder b) {
        this.trainers = b.trainers;
        this.tlsCert = b.tlsCert;
        this.tlsKey = b.tlsKey;
        this.token = b.token;
        this.sessionTimeout = b.sessionTimeout;
        this.heartbeatInterval = b.heartbeatInterval;
        this.registryDir = b.registryDir;
        this.bindHost = b.bindHost;
        this.port = b.port;
        this.capacity = b.capacity;
        this.bufferBytes = b.bufferBytes;
        this.linger = b.linger;
        this.maxFrameBytes = (int) b.maxFrameBytes;
    }

    /** Reads and validates the {@code fanout.channel.*} options; errors name the option key and value. */
    public static ChannelSinkOptions fromConfiguration(ReadableConfig config) {
        String registry = config.getOptional(ChannelOptions.REGISTRY)
                .orElseThrow(() -> new IllegalArgumentException("option " + ChannelOptions.REGISTRY.key() + " is required (a directory)"));
        return builder(registry)
                .bindHost(config.get(ChannelOptions.BIND_HOST))
                .port(config.get(ChannelOptions.PORT))
                .capacity(config.get(ChannelOptions.CAPACITY))
                .bufferBytes(config.get(ChannelOptions.BUFFER_BYTES).getBytes())
                .linger(config.get(ChannelOptions.LINGER))
                .maxFrameBytes(config.get(ChannelOptions.MAX_FRAME_BYTES).getBytes())
                .token(config.getOptional(ChannelOptions.TOKEN).orElse(null))
                .sessionTimeout(config.get(ChannelOptions.SESSION_TIMEOUT))
                .heartbeatInterval(config.get(ChannelOptions.HEARTBEAT_INTERVAL))
                .tls(config.getOptional(ChannelOptions.TLS_CERT).orElse(null), config.getOptional(ChannelOptions.TLS_KEY).orElse(null))
                .build();
    }

    /** A builder with these settings (the token included). */
    public Builder toBuilder() {
        return builder(registryDir).bindHost(bindHost).port(port).capacity(capacity).bufferBytes(bufferBytes).linger(linger)
                .maxFrameBytes(maxFrameBytes).token(token).sessionTimeout(sessionTimeout).heartbeatInterval(heartbeatInterval)
                .tls(tlsCert, tlsKey).trainers(trainers);
    }

    /**
     * These settings for a job of {@code trainers} data-parallel trainers: not a user option of the
     * channel but the job's own trainer count, which clients that read by rank must match.
     */
    public ChannelSinkOptions withTrainers(int trainers) {
        return toBuilder().trainers(trainers).build();
    }

    /** A builder with the defaults of {@link ChannelOptions}. */
    public static Builder builder(String registryDir) {
        return new Builder(registryDir);
    }

    public String registryDir() {
        return registryDir;
    }

    public String bindHost() {
        return bindHost;
    }

    /** 0 = ephemeral; otherwise the base port, endpoint i listens on port + i. */
    public int port() {
        return port;
    }

    public int capacity() {
        return capacity;
    }

    public long bufferBytes() {
        return bufferBytes;
    }

    public Duration linger() {
        return linger;
    }

    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    /** The access token clients must present (generated at build time when not configured). */
    public String token() {
        return token;
    }

    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    /** The job's data-parallel trainers: the world size a ranked client must give (1: no ranks). */
    public int trainers() {
        return trainers;
    }

    /** How long a connection may go without a frame before the endpoint sends HEARTBEAT. */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /** Whether the endpoints serve TLS only ({@link ChannelOptions#TLS_CERT} and {@link ChannelOptions#TLS_KEY} set). */
    public boolean tls() {
        return tlsCert != null;
    }

    /** The PEM certificate chain file, or null (plain TCP). */
    public String tlsCert() {
        return tlsCert;
    }

    /** The PEM PKCS#8 key file, or null (plain TCP). */
    public String tlsKey() {
        return tlsKey;
    }

    /**
     * The endpoints' TLS context, loaded from the files (again on each task manager: the files must be
     * there too); null for plain TCP.
     *
     * @throws IllegalArgumentException naming the option and the file
     */
    public javax.net.ssl.SSLContext tlsContext() {
        return tlsCert == null ? null : io.fanout.connectors.channel.tls.ChannelTls.serverContext(
                java.nio.file.Paths.get(tlsCert), ChannelOptions.TLS_CERT.key(), java.nio.file.Paths.get(tlsKey), ChannelOptions.TLS_KEY.key());
    }

    /** A random 128-bit token in hex. */
    static String randomToken() {
        byte[] b = new byte[16];
        new java.security.SecureRandom().nextBytes(b);
        return java.util.HexFormat.of().formatHex(b);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ChannelSinkOptions)) {
            return false;
        }
        ChannelSinkOptions x = (ChannelSinkOptions) o;
        return registryDir.equals(x.registryDir) && bindHost.equals(x.bindHost) && port == x.port && capacity == x.capacity
                && bufferBytes == x.bufferBytes && linger.equals(x.linger) && maxFrameBytes == x.maxFrameBytes
                && token.equals(x.token) && sessionTimeout.equals(x.sessionTimeout) && heartbeatInterval.equals(x.heartbeatInterval)
                && Objects.equals(tlsCert, x.tlsCert) && Objects.equals(tlsKey, x.tlsKey) && trainers == x.trainers;
    }

    @Override
    public int hashCode() {
        return Objects.hash(registryDir, bindHost, port, capacity, bufferBytes, linger, maxFrameBytes, token, sessionTimeout, heartbeatInterval, tlsCert,
                tlsKey, trainers);
    }

    @Override
    public String toString() {
        return "ChannelSinkOptions{registry=" + registryDir + ", bind=" + bindHost + ":" + port + ", capacity=" + capacity
                + ", bufferBytes=" + bufferBytes + ", linger=" + linger + ", maxFrameBytes=" + maxFrameBytes + ", sessionTimeout=" + sessionTimeout
                + ", heartbeatInterval=" + heartbeatInterval + ", trainers=" + trainers + (tlsCert == null ? "" : ", tlsCert=" + tlsCert + ", tlsKey=" + tlsKey) + "}";
    }

    /** Builder of {@link ChannelSinkOptions}; {@link #build()} validates. */
    public static final class Builder {
        private final String registryDir;
        private String bindHost = ChannelOptions.BIND_HOST.defaultValue();
        private int port = ChannelOptions.PORT.defaultValue();
        private int capacity = ChannelOptions.CAPACITY.defaultValue();
        private long bufferBytes = ChannelOptions.BUFFER_BYTES.defaultValue().getBytes();
        private Duration linger = ChannelOptions.LINGER.defaultValue();
        private long maxFrameBytes = ChannelOptions.MAX_FRAME_BYTES.defaultValue().getBytes();
        private String token;
        private Duration sessionTimeout = ChannelOptions.SESSION_TIMEOUT.defaultValue();
        private Duration heartbeatInterval = ChannelOptions.HEARTBEAT_INTERVAL.defaultValue();
        private String tlsCert;
        private String tlsKey;
        private int trainers = 1;

        private Builder(String registryDir) {
            this.registryDir = registryDir;
        }

        public Builder bindHost(String bindHost) {
            this.bindHost = bindHost;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder capacity(int capacity) {
            this.capacity = capacity;
            return this;
        }

        public Builder bufferBytes(long bufferBytes) {
            this.bufferBytes = bufferBytes;
            return this;
        }

        public Builder linger(Duration linger) {
            this.linger = linger;
            return this;
        }

        public Builder maxFrameBytes(long maxFrameBytes) {
            this.maxFrameBytes = maxFrameBytes;
            return this;
        }

        /** The access token; null or unset = a random one generated by {@link #build()}. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        public Builder sessionTimeout(Duration sessionTimeout) {
            this.sessionTimeout = sessionTimeout;
            return this;
        }

        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        /** TLS with the PEM certificate chain {@code cert} and PKCS#8 key {@code key}; both null = plain TCP. */
        public Builder tls(String cert, String key) {
            this.tlsCert = cert;
            this.tlsKey = key;
            return this;
        }

        /** The job's data-parallel trainer count (see {@link ChannelSinkOptions#trainers()}), at least 1. */
        public Builder trainers(int trainers) {
            this.trainers = trainers;
            return this;
        }

        public ChannelSinkOptions build() {
            if (trainers < 1) {
                throw new IllegalArgumentException("trainers " + trainers + " (expected at least 1)");
            }
            if (token == null) {
                token = randomToken();
            }
            if (token.isEmpty() || token.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 0xffff) {
                throw invalid(ChannelOptions.TOKEN.key(), token.isEmpty() ? "(empty)" : "(" + token.length() + " chars)",
                        "1 to 65535 bytes of UTF-8, or unset for a random token");
            }
            if (sessionTimeout == null || sessionTimeout.isNegative()) {
                throw invalid(ChannelOptions.SESSION_TIMEOUT.key(), sessionTimeout, "zero or a positive duration");
            }
            if (heartbeatInterval == null || heartbeatInterval.isNegative() || heartbeatInterval.toMillis() < 1) {
                throw invalid(ChannelOptions.HEARTBEAT_INTERVAL.key(), heartbeatInterval, "a positive duration of at least 1 ms");
            }
            if (registryDir == null || registryDir.isBlank()) {
                throw invalid(ChannelOptions.REGISTRY.key(), registryDir, "a directory path");
            }
            if (bindHost == null || bindHost.isBlank()) {
                throw invalid(ChannelOptions.BIND_HOST.key(), bindHost, "a host name or address");
            }
            if (port < 0 || port > 65535) {
                throw invalid(ChannelOptions.PORT.key(), port, "0 (ephemeral) or a port 1-65535");
            }
            if (capacity < 1) {
                throw invalid(ChannelOptions.CAPACITY.key(), capacity, "at least 1 message");
            }
            if (bufferBytes < 1) {
                throw invalid(ChannelOptions.BUFFER_BYTES.key(), new MemorySize(Math.max(0, bufferBytes)), "at least 1 byte");
            }
            if (linger == null || linger.isNegative()) {
                throw invalid(ChannelOptions.LINGER.key(), linger, "zero or a positive duration");
            }
            if (maxFrameBytes < MIN_FRAME_BYTES || maxFrameBytes > Integer.MAX_VALUE - 8) {
                throw invalid(ChannelOptions.MAX_FRAME_BYTES.key(), maxFrameBytes + " bytes", "between " + MIN_FRAME_BYTES + " bytes and 2 GiB");
            }
            if ((tlsCert == null) != (tlsKey == null)) {
                String given = tlsCert != null ? ChannelOptions.TLS_CERT.key() : ChannelOptions.TLS_KEY.key();
                String missing = tlsCert != null ? ChannelOptions.TLS_KEY.key() : ChannelOptions.TLS_CERT.key();
                throw new IllegalArgumentException("option " + given + " is set but " + missing + " is not: TLS needs both "
                        + "the certificate chain and its private key (or neither, for plain TCP)");
            }
            if (tlsCert != null && (tlsCert.isBlank() || tlsKey.isBlank())) {
                throw invalid(tlsCert.isBlank() ? ChannelOptions.TLS_CERT.key() : ChannelOptions.TLS_KEY.key(), "(empty)", "a PEM file path");
            }
            ChannelSinkOptions built = new ChannelSinkOptions(this);
            // Load once now so an unreadable file, a bad PEM or a key of another certificate fails the
            // job up front, naming the option and the file, not on the first task manager.
            built.tlsContext();
            return built;
        }

        private static IllegalArgumentException invalid(String key, Object value, String expected) {
            return new IllegalArgumentException("invalid value for option " + key + ": " + value + " (expected " + expected + ")");
        }
    }
}
