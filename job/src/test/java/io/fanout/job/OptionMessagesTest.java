package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.config.FanoutJobConfig;
import io.fanout.graph.NodeIdMap;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.SharedData;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exact one-line messages of common mistakes: the option, the value, and what would be valid. */
class OptionMessagesTest {
    @TempDir
    Path tmp;

    private final String cora = SharedData.graph("cora").toString();

    @Test
    void anUnknownEnumValueListsTheValidOnes() {
        assertThatThrownBy(() -> JobConfigs.parse("--graph", cora, "--sampler", "foo"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 'foo' for option fanout.sampler (--sampler): must be one of khop, ppr");
        assertThatThrownBy(() -> JobConfigs.parse("--graph", cora, "--on-sampling-error", "ignore"))
                .hasMessage("Invalid value 'ignore' for option fanout.on-sampling-error (--on-sampling-error):"
                        + " must be one of message, fail");
        assertThatThrownBy(() -> JobConfigs.parse("--graph", cora, "--output-mode", "replace"))
                .hasMessage("Invalid value 'replace' for option fanout.output-mode (--output-mode):"
                        + " must be one of error, overwrite, append");
        assertThatThrownBy(() -> JobConfigs.parse("--graph", cora, "--feature-dtype", "bfloat16"))
                .hasMessage("Invalid value 'bfloat16' for option fanout.feature-dtype (--feature-dtype):"
                        + " must be one of float32, float16, uint8");
        assertThat(JobConfigs.parse("--graph", cora, "--feature-dtype", "float16").featureDType)
                .isEqualTo(io.fanout.features.FeatureDType.FLOAT16);
        assertThatThrownBy(() -> JobConfigs.parse("--graph", cora, "--directed=maybe"))
                .hasMessage("Invalid value 'maybe' for option fanout.directed (--directed): must be true or false");
    }

    @Test
    void aMissingSeedFileSaysSoOnce() {
        String missing = tmp.resolve("seeds.txt").toString();
        FanoutJobConfig config = JobConfigs.parse("--graph", cora, "--seeds", missing);
        assertThatThrownBy(() -> SeedPlanning.batchPlan(config, NodeIdMap.identity(2708)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value '" + missing + "' for option fanout.seeds (--seeds): no such file,"
                        + " and not a comma list of node ids such as 1,5,9");
    }

    @Test
    void aMissingOrUnreadableConfigFileSaysWhy() {
        String missing = tmp.resolve("job.yaml").toString();
        assertThatThrownBy(() -> FanoutJob.commandLine().parse(new String[] {"--config", missing}))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value '" + missing + "' for option --config: no such file");
        assertThatThrownBy(() -> FanoutJob.commandLine().parse(new String[] {"--config=" + tmp}))
                .hasMessage("Invalid value '" + tmp + "' for option --config: Is a directory");
    }
}
