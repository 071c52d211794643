package io.fanout.connectors.channel.options;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.Objects;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.ReadableConfig;

/** Validated settings of a shared-memory channel sink ({@code ShmChannelSink}); see {@link ShmOptions} for their meaning. */
public final class ShmSinkOptions implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Smallest and largest data area of a ring (the ring itself checks its file against the same bounds). */
    public static final long MIN_RING_BYTES = 64 << 10;
    public static final long MAX_RING_BYTES = 1L << 30;

    private final String dir;
    private final String name;
    private final long ringBytes;
    /** Data-parallel trainers (--trainers): above 1, each subtask writes one ring per rank. */
    private final int trainers;

    /**
     * @param dir directory of the ring files
     * @param name channel name (file prefix and gauge prefix)
     * @param ringBytes data bytes per ring
     * @throws IllegalArgumentException naming the option and value when one is invalid
     */
    public ShmSinkOptions(String dir, String name, long ringBytes) {
        this(dir, name, ringBytes, 1);
    }

    /** As {@link #ShmSinkOptions(String, String, long)}, for {@code trainers} data-parallel readers (ranks). */
    public ShmSinkOptions(String dir, String name, long ringBytes, int trainers) {
        if (dir == null || dir.isBlank()) {
            throw invalid(ShmOptions.SHM_DIR.key(), dir, "a directory path");
        }
        if (name == null || !name.matches("[A-Za-z0-9._-]+")) {
            throw invalid(ShmOptions.SHM_NAME.key(), name, "letters, digits, '.', '_' or '-'");
        }
        if (ringBytes < MIN_RING_BYTES || ringBytes > MAX_RING_BYTES || ringBytes % 8 != 0) {
            throw invalid(ShmOptions.SHM_BYTES.key(), new MemorySize(Math.max(0, ringBytes)), "a multiple of 8 bytes from 64 KiB to 1 GiB");
        }
        this.dir = dir;
        this.name = name;
        this.ringBytes = ringBytes;
        if (trainers < 1) {
            throw new IllegalArgumentException("trainers must be >= 1, got " + trainers);
        }
        this.trainers = trainers;
    }

    /** These settings for {@code trainers} ranks, each reading its own rings (batch b goes to rank b mod trainers). */
    public ShmSinkOptions withTrainers(int trainers) {
        return new ShmSinkOptions(dir, name, ringBytes, trainers);
    }

    /** Data-parallel ranks; 1: one reader takes every message (the rings of format version 1 as before). */
    public int trainers() {
        return trainers;
    }

    /** The ring of subtask {@code index} for rank {@code rank}: {@code <dir>/<name>-<index>-rank<rank>.ring}. */
    public Path ringPath(int index, int rank) {
        return Path.of(dir).resolve(name + "-" + index + "-rank" + rank + ".ring");
    }

    /** Reads and validates the {@code fanout.channel.shm-*} options (whether shm is on is the caller's business). */
    public static ShmSinkOptions fromConfiguration(ReadableConfig config) {
        return new ShmSinkOptions(config.get(ShmOptions.SHM_DIR), config.get(ShmOptions.SHM_NAME), config.get(ShmOptions.SHM_BYTES).getBytes());
    }

    public String dir() {
        return dir;
    }

    public String name() {
        return name;
    }

    public long ringBytes() {
        return ringBytes;
    }

    /** The ring file of subtask {@code index}: {@code <dir>/<name>-<index>.ring}. */
    public Path ringPath(int index) {
        return Path.of(dir).resolve(name + "-" + index + ".ring");
    }

    private static IllegalArgumentException invalid(String key, Object value, String expected) {
        return new IllegalArgumentException("invalid value for option " + key + ": " + value + " (expected " + expected + ")");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShmSinkOptions x && dir.equals(x.dir) && name.equals(x.name) && ringBytes == x.ringBytes && trainers == x.trainers;
    }

    @Override
    public int hashCode() {
        return Objects.hash(dir, name, ringBytes, trainers);
    }

    @Override
    public String toString() {
        return "ShmSinkOptions{dir=" + dir + ", name=" + name + ", ringBytes=" + ringBytes + ", trainers=" + trainers + "}";
    }
}
