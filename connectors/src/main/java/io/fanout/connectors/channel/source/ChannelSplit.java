package io.fanout.connectors.channel.source;

import java.util.Objects;
import org.apache.flink.api.connector.source.SourceSplit;

/**
 * One unit of work of a {@link ChannelSource} with its progress: either a {@code .samples} file and
 * the byte offset / record count read so far, or a live channel endpoint, the (epoch, batch) keys
 * already emitted from it (to drop duplicates after a restore) and the channel session to resume.
 */
public final class ChannelSplit implements SourceSplit {
    /** Which kind of input a split reads. */
    public enum Kind {
        FILE,
        ENDPOINT
    }

    private final Kind kind;
    private final String path;
    private final long byteOffset;
    private final long records;
    private final int endpointIndex;
    private final String host;
    private final int port;
    private final BatchKeySet received;
    private final long session;

    private ChannelSplit(Kind kind, String path, long byteOffset, long records, int endpointIndex, String host, int port,
            BatchKeySet received, long session) {
        this.kind = kind;
        this.path = path;
        this.byteOffset = byteOffset;
        this.records = records;
        this.endpointIndex = endpointIndex;
        this.host = host;
        this.port = port;
        this.received = received;
        this.session = session;
    }

    /** A {@code .samples} file to read from byte {@code byteOffset} (a record boundary), {@code records} already read. */
    public static ChannelSplit file(String path, long byteOffset, long records) {
        if (path == null || path.isEmpty() || byteOffset < 0 || records < 0) {
            throw new IllegalArgumentException("invalid file split: " + path + " at byte " + byteOffset + ", " + records + " records");
        }
        return new ChannelSplit(Kind.FILE, path, byteOffset, records, -1, null, 0, null, 0);
    }

    /** Endpoint {@code index} at {@code host:port}, with the keys already emitted from it. */
    public static ChannelSplit endpoint(int index, String host, int port, BatchKeySet received) {
        return endpoint(index, host, port, received, 0);
    }

    /** Endpoint {@code index} with the keys already emitted and the channel session to resume (0 = none yet). */
    public static ChannelSplit endpoint(int index, String host, int port, BatchKeySet received, long session) {
        if (index < 0 || host == null || host.isEmpty() || port < 1 || port > 65535) {
            throw new IllegalArgumentException("invalid endpoint split: endpoint " + index + " at " + host + ":" + port);
        }
        return new ChannelSplit(Kind.ENDPOINT, null, 0, 0, index, host, port, received == null ? new BatchKeySet() : received, session);
    }

    @Override
    public String splitId() {
        return kind == Kind.FILE ? "file:" + path : "endpoint-" + endpointIndex;
    }

    public Kind kind() {
        return kind;
    }

    /** File splits: the file. */
    public String path() {
        return path;
    }

    /** File splits: where to continue reading. */
    public long byteOffset() {
        return byteOffset;
    }

    /** File splits: records read before {@link #byteOffset()}. */
    public long records() {
        return records;
    }

    /** Endpoint splits: the endpoint index (sink subtask of the producing job). */
    public int endpointIndex() {
        return endpointIndex;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** Endpoint splits: the (epoch, batch) keys already emitted. */
    public BatchKeySet received() {
        return received;
    }

    /** Endpoint splits: the session id the endpoint gave this split's reader (0 = none yet), resumed after a restore. */
    public long session() {
        return session;
    }

    /** The same file split advanced to {@code offset} after {@code records} records. */
    public ChannelSplit withFilePosition(long offset, long recordsRead) {
        return file(path, offset, recordsRead);
    }

    /** The same endpoint split at another address (re-read from the registry) or with other keys. */
    public ChannelSplit withEndpoint(String newHost, int newPort, BatchKeySet keys) {
        return endpoint(endpointIndex, newHost, newPort, keys, session);
    }

    /** The same endpoint split with the keys emitted so far and the session they were read in. */
    public ChannelSplit withProgress(BatchKeySet keys, long newSession) {
        return endpoint(endpointIndex, host, port, keys, newSession);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ChannelSplit s)) {
            return false;
        }
        return kind == s.kind && Objects.equals(path, s.path) && byteOffset == s.byteOffset && records == s.records
                && endpointIndex == s.endpointIndex && Objects.equals(host, s.host) && port == s.port && Objects.equals(received, s.received)
                && session == s.session;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, path, byteOffset, records, endpointIndex, host, port, received, session);
    }

    @Override
    public String toString() {
        return kind == Kind.FILE
                ? "ChannelSplit{file " + path + " at byte " + byteOffset + " after " + records + " records}"
                : "ChannelSplit{endpoint " + endpointIndex + " " + host + ":" + port + ", session " + Long.toHexString(session) + ", " + received + "}";
    }
}
