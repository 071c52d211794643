package io.fanout.connectors.channel.options;

import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/** Flink configuration options of the shared-memory channel ({@code fanout.channel.shm*}). */
public final class ShmOptions {
    private ShmOptions() {}

    public static final ConfigOption<Boolean> SHM = ConfigOptions.key("fanout.channel.shm")
            .booleanType()
            .defaultValue(false)
            .withDescription("Serve the channel through shared-memory rings instead of TCP endpoints: one ring file per "
                    + "sink subtask, read in place by one trainer process on the same host.");

    public static final ConfigOption<String> SHM_DIR = ConfigOptions.key("fanout.channel.shm-dir")
            .stringType()
            .defaultValue("/dev/shm")
            .withDescription("Directory of the ring files; must be a memory-backed file system (tmpfs) shared with the "
                    + "trainers.");

    public static final ConfigOption<String> SHM_NAME = ConfigOptions.key("fanout.channel.shm-name")
            .stringType()
            .defaultValue("fanout")
            .withDescription("Channel name: subtask i writes <shm-dir>/<name>-<i>.ring (with --trainers N > 1, one"
                    + " ring per rank r: <name>-<i>-rank<r>.ring), and the gauges are <name>_qsize and"
                    + " <name>_bytes_used. Give concurrent jobs different names.");

    public static final ConfigOption<MemorySize> SHM_BYTES = ConfigOptions.key("fanout.channel.shm-bytes")
            .memoryType()
            .defaultValue(MemorySize.parse("256mb"))
            .withDescription("Data bytes of each ring (64 KiB to 1 GiB, a multiple of 8); the sink blocks while its ring "
                    + "is full. A message must fit: its blob plus 24 bytes.");

    /** Every shared-memory option, in --help order. */
    public static List<ConfigOption<?>> all() {
        return List.of(SHM, SHM_DIR, SHM_NAME, SHM_BYTES);
    }
}
