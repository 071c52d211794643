package io.fanout.job;

import io.fanout.config.FanoutJobConfig;
import io.fanout.config.StateBackendType;
import io.fanout.config.StoreType;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.CheckpointingOptions;


/** The Flink settings a Fanout job runs with: the state backend (RocksDB tuned for the partitioned store, or the heap), checkpoints, no Kryo fallback. */
final class FlinkSettings {
    /** How long --store partitioned's tasks hold a partly filled network buffer, unless the user sets Flink's option. */
    static final Duration PARTITIONED_BUFFER_TIMEOUT = Duration.ofMillis(20);

    private FlinkSettings() {}

    /**
     * The Flink settings the job needs on top of the user's: the state backend (RocksDB tuned for the partitioned
     * store, or the heap), checkpoints, no Kryo fallback, and for the partitioned store a shorter buffer timeout.
     */
    static Configuration flinkConfiguration(FanoutJobConfig config) {
        Configuration conf = new Configuration(config.configuration);
        conf.set(StateBackendOptions.STATE_BACKEND, config.stateBackend.flinkName());
        if (!conf.contains(CheckpointingOptions.CHECKPOINTING_INTERVAL)) {
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval);
        }
        // Half the interval between one checkpoint's end and the next one's start. Flink's checkpoint scheduler starts
        // as the job turns RUNNING, stops as its tasks deploy and starts again once they all run, that time with the
        // minimum pause as its delay: with Flink's default of none, every job checkpointed the moment its last task
        // ran, whatever the interval, which in the partitioned store is in the middle of the load. R-MAT 2^18 x 16,
        // p=2, one-epoch jobs in a warm JVM, ten each: with the heap backend that checkpoint wrote 18-24 MB and the
        // loads took a median 1.68 s against 1.43 s with the pause; RocksDB's loads did not move (4.16 s, 4.29 s).
        // The pause also keeps a checkpoint longer than the interval (the heap backend writes the whole graph each
        // time) from being followed at once by the next.
        if (!conf.contains(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS)) {
            conf.set(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS,
                    conf.get(CheckpointingOptions.CHECKPOINTING_INTERVAL).dividedBy(2));
        }
        // A paused trainer holds the channel sink's task thread in write() (its back-pressure), and the
        // checkpoint barrier behind it; aligned or unaligned, no checkpoint of that subtask completes
        // until the trainer pulls. Such checkpoints time out and are tolerated, not failed over.
        if (!conf.contains(CheckpointingOptions.CHECKPOINTING_TIMEOUT)) {
            conf.set(CheckpointingOptions.CHECKPOINTING_TIMEOUT, config.checkpointTimeout);
        }
        if (!conf.contains(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER)) {
            conf.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER,
                    config.tolerableFailedCheckpoints < 0 ? Integer.MAX_VALUE : config.tolerableFailedCheckpoints);
        }
        // --store partitioned: a batch crosses two keyed exchanges per hop or PPR fetch round, and where traffic is
        // light (the first batches after the load, a slow feed, a PPR round of few open pushes) each crossing holds
        // it until the output flusher sends the partly filled buffer, up to Flink's 100 ms a crossing. pubmed PPR,
        // p=2, heap backend, two rounds each: submission to the first message 1.0-1.2 s at 100 ms, 0.8 s at 20 ms,
        // sampling as fast (1 ms: about 30 % slower, the buffers sent nearly empty); R-MAT k-hop's hops fill their
        // buffers and did not move either way. PPR's round operators send each record at once instead
        // (PartitionedPpr.ROUND_BUFFER_TIMEOUT_MS).
        if (config.store == StoreType.PARTITIONED && !conf.contains(ExecutionOptions.BUFFER_TIMEOUT)
                && !conf.contains(ExecutionOptions.BUFFER_TIMEOUT_ENABLED)) {
            conf.set(ExecutionOptions.BUFFER_TIMEOUT, PARTITIONED_BUFFER_TIMEOUT);
        }
        if (config.stateBackend == StateBackendType.ROCKSDB) {
            rocksDbSettings(conf);
        }
        if (config.checkpointDir != null) {
            conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, config.checkpointDir);
        }
        // Every record type has a Flink serializer; a generic (Kryo) type would be a bug, so fail fast.
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        // Without object reuse Flink deep-copies every record between chained operators: each encoded
        // message (about 1 MB for ego_twitter_u [15,10] batch 512) would be copied once per sink. Safe
        // here because every operator emits a fresh record and no operator mutates or keeps its input
        // beyond processElement (sink writers keep the EncodedMessage they are given, never a reused one).
        if (!conf.contains(PipelineOptions.OBJECT_REUSE)) {
            conf.set(PipelineOptions.OBJECT_REUSE, true);
        }
        if (config.parallelism != null) {
            conf.set(org.apache.flink.configuration.CoreOptions.DEFAULT_PARALLELISM, config.parallelism);
        }
        return conf;
    }

    /** RocksDB's settings for the partitioned store's reads and loads, where the user did not set them. */
    private static void rocksDbSettings(Configuration conf) {
        // Incremental RocksDB checkpoints: --store partitioned keeps the whole adjacency in keyed state, which does
        // not change once loaded, so each checkpoint uploads only the SST files written since the last one.
        if (!conf.contains(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)) {
            conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
        }
        // --store partitioned answers requests by RocksDB point reads (a node's group index or head), many of absent
        // keys (cut nodes' indexes, nodes without edges): bloom filters let such a read skip a sorted run. With them
        // in Flink's managed block cache, partitioned index and filter blocks keep a read from loading a whole
        // SST file's index and filter (megabytes) whenever the cache is smaller than the graph: R-MAT 2^20 x 16 at
        // p=1 sampled 3.5x faster in its first epoch with them (15 k -> 55 k edges/s, 128 MB of managed memory).
        if (!conf.contains(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.USE_BLOOM_FILTER)) {
            conf.set(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.USE_BLOOM_FILTER, true);
        }
        if (!conf.contains(org.apache.flink.state.rocksdb.RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS)) {
            conf.set(org.apache.flink.state.rocksdb.RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS, true);
        }
        // RocksDB's compactions run on one thread pool per process, sized by the largest compaction share of any
        // instance in it: Flink's default of 2 background jobs gives each instance one compaction (and one flush),
        // so every hop copy of a TaskManager compacted one after another, during the load and after it. 4 jobs give
        // three compaction threads: R-MAT 2^20's compaction after the load took 9-15 s instead of 15-22 s (p=1).
        if (!conf.contains(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS)) {
            conf.set(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS, 4);
        }
        // LZ4 instead of Flink's Snappy for level 0 (the memtables' flushes during the load): the load writes the
        // adjacency through several compactions. R-MAT 2^20 (p=1), LZ4 everywhere against Snappy: load 41-46 s
        // instead of 57-61 s, the compaction after it 7 s instead of 18-20 s (summed), the first epoch no slower.
        // ZSTD for every later level, where the compaction after the load leaves the whole adjacency: what the
        // checkpoints upload. R-MAT 2^16 x 16, p=2: 10.0-10.6 checkpoint bytes per stored edge instead of 11.6-11.9
        // with LZ4 (node ids as varints compress little; the keys and order keys do). A read decompresses a block
        // only on a block cache miss.
        if (!conf.contains(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL)) {
            conf.set(org.apache.flink.state.rocksdb.RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL,
                    java.util.List.of(org.rocksdb.CompressionType.LZ4_COMPRESSION,
                            org.rocksdb.CompressionType.ZSTD_COMPRESSION));
        }
    }
}
