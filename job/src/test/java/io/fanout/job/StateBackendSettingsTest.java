package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.FanoutJobConfig;
import io.fanout.testing.SharedData;
import io.fanout.graph.NodeIdMap;
import io.fanout.store.GraphStore;
import io.fanout.store.TypedGraphStore;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.configuration.CheckpointingOptions;
import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.state.rocksdb.RocksDBConfigurableOptions;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import io.fanout.config.ConfigException;
import io.fanout.config.StateBackendType;
import org.junit.jupiter.api.Test;

/**
 * The state backend a job runs on ({@code --state-backend}, reconciled with Flink's {@code state.backend.type}) and
 * the job's RocksDB settings, each unless the user says otherwise: incremental checkpoints (the partitioned store's
 * adjacency is its state), bloom filters with partitioned index and filter blocks (its lookups are point reads) and
 * background jobs enough for the hop copies' compactions to run side by side, and LZ4 blocks at level 0, ZSTD below;
 * the partitioned store's buffer timeout (PPR's rounds: each record at once); and the pause between checkpoints.
 */
class StateBackendSettingsTest {
    private static Configuration flink(String... extra) {
        String[] base = {"--graph", SharedData.graph("cora").toString(), "--store", "partitioned"};
        String[] args = java.util.Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return FlinkSettings.flinkConfiguration(FanoutJobConfig.from(FanoutJob.commandLine().parse(args).configuration));
    }

    @Test
    void partitionedStoreCheckpointsRocksDbIncrementally() {
        Configuration conf = flink();
        assertThat(conf.get(StateBackendOptions.STATE_BACKEND)).isEqualTo("rocksdb");
        assertThat(conf.get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).isTrue();
    }

    @Test
    void pointReadsHaveBloomFiltersAndPartitionedIndexes() {
        Configuration conf = flink();
        assertThat(conf.get(RocksDBConfigurableOptions.USE_BLOOM_FILTER)).isTrue();
        assertThat(conf.get(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS)).isTrue();
        Configuration off = flink("-D", "state.backend.rocksdb.use-bloom-filter=false",
                "-D", "state.backend.rocksdb.memory.partitioned-index-filters=false");
        assertThat(off.get(RocksDBConfigurableOptions.USE_BLOOM_FILTER)).isFalse();
        assertThat(off.get(RocksDBOptions.USE_PARTITIONED_INDEX_FILTERS)).isFalse();
    }

    @Test
    void theHopCopiesCompactSideBySide() {
        assertThat(flink().get(RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS)).as("three compaction threads")
                .isEqualTo(4);
        assertThat(flink("-D", "state.backend.rocksdb.thread.num=2").get(RocksDBConfigurableOptions.MAX_BACKGROUND_THREADS))
                .isEqualTo(2);
    }

    @Test
    void blocksAreCompressedWithLz4AtLevel0AndZstdBelow() {
        assertThat(flink().get(RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL))
                .containsExactly(org.rocksdb.CompressionType.LZ4_COMPRESSION, org.rocksdb.CompressionType.ZSTD_COMPRESSION);
        assertThat(flink("-D", "state.backend.rocksdb.compression.per.level=SNAPPY_COMPRESSION")
                .get(RocksDBConfigurableOptions.COMPRESSION_PER_LEVEL))
                .containsExactly(org.rocksdb.CompressionType.SNAPPY_COMPRESSION);
    }

    @Test
    void partitionedBatchesWaitAtMost20msForAPartlyFilledBuffer() throws Exception {
        Configuration conf = flink();
        assertThat(conf.get(ExecutionOptions.BUFFER_TIMEOUT)).isEqualTo(Duration.ofMillis(20));
        // What the job's environment gives every operator, as FanoutJob builds it from this configuration.
        assertThat(StreamExecutionEnvironment.getExecutionEnvironment(conf).getBufferTimeout()).isEqualTo(20);
        assertThat(flink("-D", "execution.buffer-timeout.interval=100ms").get(ExecutionOptions.BUFFER_TIMEOUT))
                .isEqualTo(Duration.ofMillis(100));
        Configuration disabled = flink("-D", "execution.buffer-timeout.enabled=false");
        assertThat(StreamExecutionEnvironment.getExecutionEnvironment(disabled).getBufferTimeout())
                .as("flushed only when full, as the user asked").isEqualTo(ExecutionOptions.DISABLED_NETWORK_BUFFER_TIMEOUT);
        Configuration memory = FlinkSettings.flinkConfiguration(FanoutJobConfig.from(FanoutJob.commandLine()
                .parse(new String[] {"--graph", SharedData.graph("cora").toString()}).configuration));
        assertThat(memory.contains(ExecutionOptions.BUFFER_TIMEOUT)).as("the memory store keeps Flink's").isFalse();
    }

    @Test
    void pprRoundsSendEachRecordAtOnceWhileTheLoadKeepsTheJobsTimeout() throws Exception {
        for (String graph : new String[] {"pubmed", "cora_hetero"}) {
            String[] typed = graph.equals("cora_hetero") ? new String[] {"--seed-type", "paper"} : new String[0];
            String[] args = Stream.concat(Stream.of("--graph",
                    SharedData.graph(graph).toString(), "--store", "partitioned", "--sampler", "ppr"),
                    Arrays.stream(typed)).toArray(String[]::new);
            FanoutJobConfig config = FanoutJobConfig.from(FanoutJob.commandLine().parse(args).configuration);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                    FlinkSettings.flinkConfiguration(config));
            NodeIdMap nodes = config.typed == null
                    ? GraphStore.scanNodeIds(config.graphSpec())
                    : TypedGraphStore.scanNodeIds(config.graphSpec(),
                            SeedPlanning.typedSeedTypes(config)).get(config.typed.seedType);
            FanoutJob.build(env, config, SeedPlanning.batchPlan(config, nodes), nodes);
            Map<String, Long> timeouts = new TreeMap<>();
            for (StreamNode node : env.getStreamGraph().getStreamNodes()) {
                timeouts.put(node.getOperatorName(), node.getBufferTimeout());
            }
            int rounds = 0;
            for (Map.Entry<String, Long> node : timeouts.entrySet()) {
                if (node.getKey().matches("(typed-)?ppr-(start|fetch-\\d+|round-\\d+)")) {
                    assertThat(node.getValue()).as(graph + ": " + node.getKey()).isEqualTo(0L);
                    rounds++;
                }
            }
            assertThat(rounds).as(graph + ": start, 8 fetches, 8 rounds").isEqualTo(17);
            String load = graph.equals("cora_hetero") ? "typed-ppr-rows" : "ppr-lists";
            assertThat(timeouts.get(load)).as(graph + ": the load's records are many and small").isEqualTo(20L);
        }
    }

    @Test
    void checkpointsPauseHalfAnIntervalUnlessTheUserSetsAPause() {
        assertThat(flink().get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS)).isEqualTo(Duration.ofSeconds(5));
        assertThat(flink("--checkpoint-interval", "300ms").get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS))
                .isEqualTo(Duration.ofMillis(150));
        assertThat(flink("-D", "execution.checkpointing.interval=4s").get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS))
                .as("half of Flink's own interval where that is what the job runs with").isEqualTo(Duration.ofSeconds(2));
        assertThat(flink("-D", "execution.checkpointing.min-pause=0s").get(CheckpointingOptions.MIN_PAUSE_BETWEEN_CHECKPOINTS))
                .isEqualTo(Duration.ZERO);
    }

    @Test
    void anExplicitSettingWins() {
        assertThat(flink("-D", "execution.checkpointing.incremental=false").get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS))
                .isFalse();
    }

    private static FanoutJobConfig config(String... extra) {
        String[] base = {"--graph", SharedData.graph("cora").toString(), "--store", "partitioned"};
        String[] args = java.util.Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return FanoutJobConfig.from(FanoutJob.commandLine().parse(args).configuration);
    }

    @Test
    void theHeapBackendIsChosenByItsOptionOrByFlinksOwnAndGetsNoRocksDbSettings() {
        Configuration heap = flink("--state-backend", "hashmap");
        assertThat(heap.get(StateBackendOptions.STATE_BACKEND)).isEqualTo("hashmap");
        assertThat(heap.contains(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).as("RocksDB's incremental checkpoints")
                .isFalse();
        assertThat(heap.contains(RocksDBConfigurableOptions.USE_BLOOM_FILTER)).isFalse();
        assertThat(config("-D", "state.backend.type=hashmap").stateBackend).isEqualTo(StateBackendType.HASHMAP);
        assertThat(config("-D", "state.backend.type=HashMap", "--state-backend", "hashmap").stateBackend)
                .isEqualTo(StateBackendType.HASHMAP);
        assertThat(config().stateBackend).isEqualTo(StateBackendType.ROCKSDB);
    }

    @Test
    void twoBackendsThatDisagreeOrOneFanoutDoesNotRunOnAreRefusedByName() {
        assertThatThrownBy(() -> config("--state-backend", "hashmap", "-D", "state.backend.type=rocksdb"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("fanout.state-backend (--state-backend) 'hashmap' contradicts Flink's"
                        + " state.backend.type 'rocksdb'");
        assertThatThrownBy(() -> config("-D", "state.backend.type=forst")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value 'forst' for Flink's option state.backend.type");
        assertThatThrownBy(() -> config("--state-backend", "heap")).hasMessageContaining("heap");
    }
}
