package io.fanout.connectors.channel.sink;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

/** Validated settings of a {@link ChannelSink}; see {@link ChannelOptions} for their meaning. */
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

    private ChannelSinkOptions(Builder b) {
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
                .build();
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

    /** How long a connection may go without a frame before the endpoint sends HEARTBEAT. */
    public Duration heartbeatInterval() {
        return heartbeatInterval;
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
                && token.equals(x.token) && sessionTimeout.equals(x.sessionTimeout) && heartbeatInterval.equals(x.heartbeatInterval);
    }

    @Override
    public int hashCode() {
        return Objects.hash(registryDir, bindHost, port, capacity, bufferBytes, linger, maxFrameBytes, token, sessionTimeout, heartbeatInterval);
    }

    @Override
    public String toString() {
        return "ChannelSinkOptions{registry=" + registryDir + ", bind=" + bindHost + ":" + port + ", capacity=" + capacity
                + ", bufferBytes=" + bufferBytes + ", linger=" + linger + ", maxFrameBytes=" + maxFrameBytes + ", sessionTimeout=" + sessionTimeout
                + ", heartbeatInterval=" + heartbeatInterval + "}";
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

        public ChannelSinkOptions build() {
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
            return new ChannelSinkOptions(this);
        }

        private static IllegalArgumentException invalid(String key, Object value, String expected) {
            return new IllegalArgumentException("invalid value for option " + key + ": " + value + " (expected " + expected + ")");
        }
    }
}
