package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.config.FanoutJobConfig;
import io.fanout.testing.SharedData;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateBackendOptions;
import org.junit.jupiter.api.Test;

/** The job's RocksDB checkpoints are incremental unless the user says otherwise (the partitioned store's adjacency is its state). */
class IncrementalCheckpointsTest {
    private static Configuration flink(String... extra) {
        String[] base = {"--graph", SharedData.graph("cora").toString(), "--store", "partitioned"};
        String[] args = java.util.Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return FanoutJob.flinkConfiguration(FanoutJobConfig.from(FanoutJob.commandLine().parse(args).configuration));
    }

    @Test
    void partitionedStoreCheckpointsRocksDbIncrementally() {
        Configuration conf = flink();
        assertThat(conf.get(StateBackendOptions.STATE_BACKEND)).isEqualTo("rocksdb");
        assertThat(conf.get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS)).isTrue();
    }

    @Test
    void anExplicitSettingWins() {
        assertThat(flink("-D", "execution.checkpointing.incremental=false").get(CheckpointingOptions.INCREMENTAL_CHECKPOINTS))
                .isFalse();
    }
}
