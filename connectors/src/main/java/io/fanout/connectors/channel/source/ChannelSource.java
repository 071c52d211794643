package io.fanout.connectors.channel.source;

import io.fanout.connectors.message.EncodedMessage;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A Flink source (FLIP-27, on flink-connector-base's reader framework) of the messages another Fanout job
 * produced, so a Flink job can consume samples: from offline {@code .samples} files (one split per file,
 * resumed at the checkpointed byte offset: exactly once) or live from channel endpoints (one split per
 * endpoint, a channel protocol v3 session each).
 *
 * <p>Live mode is exactly once with checkpointing: a message is acknowledged to its endpoint only when a
 * checkpoint that covers it completes, so after a failure the endpoint still holds everything emitted
 * since, and sends it again to the restored reader, which resumes its checkpointed session; each split
 * also checkpoints the (epoch, batch) keys it emitted and drops copies of them (messages whose
 * acknowledgement was lost, or batches a restarted producing job sends again). Without checkpointing, use
 * {@link #withAcknowledgeOnCheckpoint withAcknowledgeOnCheckpoint(false)}.
 *
 * <p>Use with {@code env.fromSource(ChannelSource.files(List.of(dir)), WatermarkStrategy.noWatermarks(), "samples")}.
 */
public final class ChannelSource implements Source<EncodedMessage, ChannelSplit, ChannelEnumeratorState>,
        ResultTypeQueryable<EncodedMessage> {
    private static final long serialVersionUID = 1L;

    /** Flink's POJO type of {@link EncodedMessage}. */
    public static final TypeInformation<EncodedMessage> TYPE = Types.POJO(EncodedMessage.class);

    /** Where the splits come from. */
    public enum Mode {
        /** {@code .samples} files, given as files or directories (searched recursively). */
        FILES,
        /** Live endpoints given as {@code host:port}, in endpoint-index order. */
        ENDPOINTS,
        /** Live endpoints found in a channel registry directory ({@code endpoint-<i>.json}). */
        REGISTRY
    }

    private final Mode mode;
    private final List<String> inputs;
    private final long connectTimeoutMillis;
    private final int prefetch;
    private final String token;
    private final boolean acknowledgeOnCheckpoint;
    /** PEM file of the CA that signed the endpoints' certificates (TLS only), or null for plain TCP. */
    private final String tlsCa;

    private ChannelSource(Mode mode, List<String> inputs, long connectTimeoutMillis, int prefetch) {
        this(mode, inputs, connectTimeoutMillis, prefetch, "", true, null);
    }

    private ChannelSource(Mode mode, List<String> inputs, long connectTimeoutMillis, int prefetch, String token,
            boolean acknowledgeOnCheckpoint, String tlsCa) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("channel source: no " + (mode == Mode.FILES ? "files" : "endpoints") + " given");
        }
        if (connectTimeoutMillis <= 0 || prefetch < 1) {
            throw new IllegalArgumentException("channel source: connect timeout and prefetch must be positive, got "
                    + connectTimeoutMillis + " ms, " + prefetch);
        }
        this.mode = mode;
        this.inputs = List.copyOf(inputs);
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.prefetch = prefetch;
        this.token = token == null ? "" : token;
        this.acknowledgeOnCheckpoint = acknowledgeOnCheckpoint;
        this.tlsCa = tlsCa;
    }

    /** Reads the {@code .samples} files given, or found under the directories given (hidden and in-progress files skipped). */
    public static ChannelSource files(List<String> filesOrDirectories) {
        return new ChannelSource(Mode.FILES, filesOrDirectories, 60_000, 4);
    }

    /** Reads live from the endpoints {@code host:port}; endpoint i is the i-th entry. */
    public static ChannelSource endpoints(List<String> hostPorts) {
        for (String hp : hostPorts) {
            io.fanout.connectors.channel.client.ChannelReader.parseEndpoints(hp); // fail now on a malformed entry
        }
        return new ChannelSource(Mode.ENDPOINTS, hostPorts, 60_000, 4);
    }

    /** Reads live from every endpoint registered in the channel registry directory {@code dir}. */
    public static ChannelSource registry(String dir) {
        return new ChannelSource(Mode.REGISTRY, List.of(dir), 60_000, 4);
    }

    /** How long to wait for the registry to be complete and for endpoints to answer (default 60 s). */
    public ChannelSource withConnectTimeout(Duration timeout) {
        return new ChannelSource(mode, inputs, timeout.toMillis(), prefetch, token, acknowledgeOnCheckpoint, tlsCa);
    }

    /** Messages each endpoint may send ahead of consumption (default 4). */
    public ChannelSource withPrefetch(int n) {
        return new ChannelSource(mode, inputs, connectTimeoutMillis, n, token, acknowledgeOnCheckpoint, tlsCa);
    }

    /** The channel's access token; default: read from the registry files in registry mode. */
    public ChannelSource withToken(String t) {
        return new ChannelSource(mode, inputs, connectTimeoutMillis, prefetch, t, acknowledgeOnCheckpoint, tlsCa);
    }

    /**
     * Live mode: acknowledge each message to its endpoint when a checkpoint that covers it completes (true, the
     * default: exactly once; the job must checkpoint, since an endpoint holds at most its capacity of
     * unacknowledged messages and waits for the acknowledgements), or on receipt (false: for jobs without
     * checkpointing; a failure loses the messages received and not yet emitted downstream).
     */
    public ChannelSource withAcknowledgeOnCheckpoint(boolean onCheckpoint) {
        return new ChannelSource(mode, inputs, connectTimeoutMillis, prefetch, token, onCheckpoint, tlsCa);
    }

    /**
     * Live mode: connect with TLS, trusting the CA (or bundle) in the PEM file {@code pemFile}, for a channel served
     * with {@code fanout.channel.tls-cert}/{@code tls-key}; the file must be readable where the source's readers run.
     */
    public ChannelSource withTlsCa(String pemFile) {
        if (pemFile == null || pemFile.isBlank()) {
            throw new IllegalArgumentException("channel source: withTlsCa needs a PEM file, got '" + pemFile + "'");
        }
        return new ChannelSource(mode, inputs, connectTimeoutMillis, prefetch, token, acknowledgeOnCheckpoint, pemFile);
    }

    /** The CA PEM file live endpoints are trusted by (TLS), or null for plain TCP. */
    public String tlsCa() {
        return tlsCa;
    }

    /** Whether live messages are acknowledged on checkpoint completion (see {@link #withAcknowledgeOnCheckpoint}). */
    public boolean acknowledgeOnCheckpoint() {
        return acknowledgeOnCheckpoint;
    }

    /** The access token given, or "" (then the registry's, in registry mode). */
    public String token() {
        return token;
    }

    public Mode mode() {
        return mode;
    }

    /** Files/directories, {@code host:port} entries, or the one registry directory. */
    public List<String> inputs() {
        return inputs;
    }

    public Duration connectTimeout() {
        return Duration.ofMillis(connectTimeoutMillis);
    }

    public int prefetch() {
        return prefetch;
    }

    /** How long an endpoint may stay silent (not even a heartbeat) before its split fails: the channel client's default. */
    public Duration stallTimeout() {
        return io.fanout.connectors.channel.client.ChannelReader.DEFAULT_STALL_TIMEOUT;
    }

    /** The registry directory, or null unless {@link Mode#REGISTRY}. */
    String registryDir() {
        return mode == Mode.REGISTRY ? inputs.get(0) : null;
    }

    @Override
    public Boundedness getBoundedness() {
        // A live channel ends too (END_OF_STREAM), but not at a point known up front.
        return mode == Mode.FILES ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SourceReader<EncodedMessage, ChannelSplit> createReader(SourceReaderContext readerContext) {
        return new ChannelSourceReader(readerContext, this);
    }

    @Override
    public SplitEnumerator<ChannelSplit, ChannelEnumeratorState> createEnumerator(SplitEnumeratorContext<ChannelSplit> enumContext) {
        return restoreEnumerator(enumContext, ChannelEnumeratorState.initial());
    }

    @Override
    public SplitEnumerator<ChannelSplit, ChannelEnumeratorState> restoreEnumerator(SplitEnumeratorContext<ChannelSplit> enumContext,
            ChannelEnumeratorState checkpoint) {
        return new ChannelEnumerator(enumContext, this, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<ChannelSplit> getSplitSerializer() {
        return ChannelSplitSerializer.INSTANCE;
    }

    @Override
    public SimpleVersionedSerializer<ChannelEnumeratorState> getEnumeratorCheckpointSerializer() {
        return ChannelEnumeratorStateSerializer.INSTANCE;
    }

    @Override
    public TypeInformation<EncodedMessage> getProducedType() {
        return TYPE;
    }
}
