package io.fanout.config;

/** Where a job keeps its graph. */
public enum StoreType {
    /** Every TaskManager loads the whole graph into its heap, shared by its slots (the fast path). */
    MEMORY,
    /** The adjacency lives in Flink keyed state, partitioned by node (RocksDB); lookups are keyed exchanges. */
    PARTITIONED;

    @Override
    public String toString() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
