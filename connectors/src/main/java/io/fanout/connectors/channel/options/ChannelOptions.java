package io.fanout.connectors.channel.options;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/** Flink configuration options of the channel sink ({@code fanout.channel.*}). */
public final class ChannelOptions {
    private ChannelOptions() {}

    public static final ConfigOption<String> REGISTRY = ConfigOptions.key("fanout.channel.registry")
            .stringType()
            .noDefaultValue()
            .withDescription("Directory where every channel endpoint writes its endpoint-<index>.json; trainers read it "
                    + "to find the endpoints. Must be reachable by the trainers and fresh for each run.");

    public static final ConfigOption<String> BIND_HOST = ConfigOptions.key("fanout.channel.bind-host")
            .stringType()
            .defaultValue("127.0.0.1")
            .withDescription("Address the endpoints listen on. With a wildcard address (0.0.0.0 or ::) the registry "
                    + "advertises this machine's host name.");

    public static final ConfigOption<Integer> PORT = ConfigOptions.key("fanout.channel.port")
            .intType()
            .defaultValue(0)
            .withDescription("0 for an ephemeral port per endpoint; otherwise endpoint i listens on port + i.");

    public static final ConfigOption<Integer> CAPACITY = ConfigOptions.key("fanout.channel.capacity")
            .intType()
            .defaultValue(64)
            .withDescription("Messages held per endpoint (buffered plus sent but not yet acknowledged) before the sink "
                    + "blocks (back-pressure).");

    public static final ConfigOption<MemorySize> BUFFER_BYTES = ConfigOptions.key("fanout.channel.buffer-bytes")
            .memoryType()
            .defaultValue(MemorySize.parse("256mb"))
            .withDescription("Bytes of messages held per endpoint (buffered plus sent but not yet acknowledged) before "
                    + "the sink blocks; a single larger message is still accepted into an empty buffer.");

    public static final ConfigOption<Duration> LINGER = ConfigOptions.key("fanout.channel.linger")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("After its input ended and its buffer drained, how long an endpoint keeps answering late "
                    + "clients with END_OF_STREAM before it closes.");

    public static final ConfigOption<MemorySize> MAX_FRAME_BYTES = ConfigOptions.key("fanout.channel.max-frame-bytes")
            .memoryType()
            .defaultValue(MemorySize.parse("256mb"))
            .withDescription("Largest frame on the channel; a larger message fails the job with a clear error.");

    public static final ConfigOption<String> TOKEN = ConfigOptions.key("fanout.channel.token")
            .stringType()
            .noDefaultValue()
            .withDescription("Access token clients must send in HELLO. Default: a random token generated once when "
                    + "the job is built (kept across restarts), written into the registry files, which are owner-only "
                    + "(0600 files in a 0700 directory).");

    public static final ConfigOption<Duration> SESSION_TIMEOUT = ConfigOptions.key("fanout.channel.session-timeout")
            .durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("How long an endpoint keeps the sent-but-unacknowledged messages of a disconnected client "
                    + "for it to resume its session; after that they go back to the buffer for other clients.");

    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL = ConfigOptions.key("fanout.channel.heartbeat-interval")
            .durationType()
            .defaultValue(Duration.ofSeconds(5))
            .withDescription("An endpoint that sent a (protocol version 3) client nothing for this long sends it a "
                    + "HEARTBEAT, so the client can tell an idle endpoint from a stalled one (its stall timeout, "
                    + "30 s by default, should be several intervals).");

    public static final ConfigOption<String> TLS_CERT = ConfigOptions.key("fanout.channel.tls.cert")
            .stringType()
            .noDefaultValue()
            .withDescription("PEM certificate chain (leaf first) of the endpoints; with " + "fanout.channel.tls.key every "
                    + "endpoint serves TLS only (TLSv1.3/TLSv1.2) and its registry file says \"tls\": true. Both or neither; "
                    + "checked when the job starts. Default: none (plain TCP).");

    public static final ConfigOption<String> TLS_KEY = ConfigOptions.key("fanout.channel.tls.key")
            .stringType()
            .noDefaultValue()
            .withDescription("Unencrypted PEM PKCS#8 private key (RSA or EC, \"-----BEGIN PRIVATE KEY-----\") of the "
                    + "certificate of fanout.channel.tls.cert.");

    /** Every channel option, in --help order. */
    public static java.util.List<ConfigOption<?>> all() {
        return java.util.List.of(REGISTRY, BIND_HOST, PORT, CAPACITY, BUFFER_BYTES, LINGER, MAX_FRAME_BYTES, TOKEN,
                SESSION_TIMEOUT, HEARTBEAT_INTERVAL, TLS_CERT, TLS_KEY);
    }
}
