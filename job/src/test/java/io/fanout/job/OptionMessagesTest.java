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

    /**
     * Seed times from a seed file the TaskManagers read ({@code --store partitioned}) are checked as the client's
     * reading of the same file checks them, with the same messages: a timed file needs --time-column and excludes
     * --seed-time; --time-column without --seed-time needs a timed file.
     */
    @Test
    void aSeedFileTheWorkersReadHasItsTimesCheckedAsTheClientsSeedFile() throws java.io.IOException {
        Path timed = java.nio.file.Files.writeString(tmp.resolve("timed.tsv"), "1\t100\n2\t-5\n3\t7\n");
        Path plain = java.nio.file.Files.writeString(tmp.resolve("plain.txt"), "1\n2\n3\n");
        String needsColumn = "Invalid value '" + timed + "' for option fanout.seeds (--seeds): the seed file gives seed"
                + " times, which need fanout.time-column (--time-column) and exclude fanout.seed-time (--seed-time)";
        String needsTimes = "Option fanout.time-column (--time-column) needs seed times: fanout.seed-time (--seed-time)"
                + " for every seed, or a seed file of id<TAB>time lines (fanout.seeds (--seeds))";
        assertSamePlanOrMessage(timed, needsColumn);
        assertSamePlanOrMessage(timed, needsColumn, "--time-column", "time", "--seed-time", "9");
        assertSamePlanOrMessage(timed, null, "--time-column", "time");
        assertSamePlanOrMessage(plain, needsTimes, "--time-column", "time");
        assertSamePlanOrMessage(plain, null, "--time-column", "time", "--seed-time", "9");
        assertSamePlanOrMessage(plain, null);
    }

    /**
     * {@code file} as --seeds with {@code options}: the client's plan ({@link SeedPlanning#batchPlan}) and the plan
     * over the file the TaskManagers read ({@link SeedPlanning#seedFilePlan}) both fail with {@code message}, or
     * (null) both plan its seeds.
     */
    private void assertSamePlanOrMessage(Path file, String message, String... options) throws java.io.IOException {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--graph", cora, "--seeds",
                file.toString(), "--batch-size", "2"));
        args.addAll(java.util.List.of(options));
        FanoutJobConfig config = JobConfigs.parse(args.toArray(new String[0]));
        io.fanout.batch.SeedFile index = io.fanout.batch.SeedFile.index(file, 2);
        if (message == null) {
            assertThat(SeedPlanning.batchPlan(config, NodeIdMap.identity(2708)).seeds().size()).isEqualTo(3);
            assertThat(SeedPlanning.seedFilePlan(config, index).seeds().size()).isEqualTo(3);
            return;
        }
        assertThatThrownBy(() -> SeedPlanning.batchPlan(config, NodeIdMap.identity(2708)))
                .isInstanceOf(ConfigException.class).hasMessage(message);
        assertThatThrownBy(() -> SeedPlanning.seedFilePlan(config, index))
                .isInstanceOf(ConfigException.class).hasMessage(message);
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
