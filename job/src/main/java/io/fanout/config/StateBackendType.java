package io.fanout.config;

/** Flink's keyed-state backend for a job: where {@code --store partitioned} keeps the graph. */
public enum StateBackendType {
    /** RocksDB on the TaskManagers' local disks: graphs larger than their memory, incremental checkpoints. */
    ROCKSDB,
    /** Flink's heap backend: the graph as objects in the TaskManagers' heap, no serialisation per read. */
    HASHMAP;

    /** The value of Flink's {@code state.backend.type} for this backend. */
    public String flinkName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return flinkName();
    }
}
