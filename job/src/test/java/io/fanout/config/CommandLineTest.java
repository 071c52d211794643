package io.fanout.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.connectors.channel.options.ChannelOptions;
import io.fanout.graph.EdgeDirection;
import io.fanout.job.FanoutJob;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job's command line and YAML files: every option reachable, typed, validated with clear names. */
class CommandLineTest {
    @TempDir
    Path tmp;

    private final CommandLine cli = FanoutJob.commandLine();
    private final String cora = SharedData.graph("cora").toString();

    private static FanoutJobConfig config(String... args) {
        return JobConfigs.parse(args);
    }

    @Test
    void flagsSetTypedOptions() {
        FanoutJobConfig c = config("--graph", cora, "--batch-size=64", "--shuffle", "--drop-last", "false", "--epochs", "3",
                "--seed", "-5", "--fanout", "25, 10 ,-1", "--replace", "--edge-dir", "IN", "--output", tmp.toString(),
                "--parallelism", "2", "--checkpoint-interval", "30 s");
        assertThat(c.graph).isEqualTo(Path.of(cora));
        assertThat(c.batchSize).isEqualTo(64);
        assertThat(c.shuffle).isTrue();
        assertThat(c.dropLast).isFalse();
        assertThat(c.epochs).isEqualTo(3);
        assertThat(c.seed).isEqualTo(-5L);
        assertThat(c.fanouts).containsExactly(25, 10, -1);
        assertThat(c.replace).isTrue();
        assertThat(c.edgeDirection).isEqualTo(EdgeDirection.IN);
        assertThat(c.output).isEqualTo(tmp.toString());
        assertThat(c.parallelism).isEqualTo(2);
        assertThat(c.checkpointInterval).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.serve).isFalse();
        assertThat(c.channel).isNull();
    }

    @Test
    void defaultsMatchTheDocumentedOnes() {
        FanoutJobConfig c = config("--graph", cora);
        assertThat(c.batchSize).isEqualTo(512);
        assertThat(c.fanouts).containsExactly(15, 10);
        assertThat(c.epochs).isEqualTo(1);
        assertThat(c.edgeDirection).isEqualTo(EdgeDirection.OUT);
        assertThat(c.seeds).isNull();
        assertThat(c.parallelism).isNull();
        assertThat(c.checkpointTimeout).isEqualTo(Duration.ofMinutes(10));
        assertThat(c.tolerableFailedCheckpoints).as("any number: a paused trainer does not fail the job over").isEqualTo(-1);
    }

    @Test
    void serveNeedsARegistryAndTakesChannelOptionsByAliasOrFullFlag() {
        assertThatThrownBy(() -> config("--graph", cora, "--serve"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("--registry");
        FanoutJobConfig c = config("--graph", cora, "--serve", "--registry", tmp.toString(), "--channel.capacity", "8",
                "--channel.buffer-bytes", "1 mb");
        assertThat(c.channel.registryDir()).isEqualTo(tmp.toString());
        assertThat(c.channel.capacity()).isEqualTo(8);
        assertThat(c.channel.bufferBytes()).isEqualTo(1 << 20);
        assertThatThrownBy(() -> config("--graph", cora, "--serve", "--registry", tmp.toString(), "--channel.capacity", "0"))
                .isInstanceOf(ConfigException.class).hasMessageContaining(ChannelOptions.CAPACITY.key());
    }

    @Test
    void yamlFileNestedOrFlatAndLaterArgumentsWin() throws Exception {
        Path yaml = tmp.resolve("job.yaml");
        Files.writeString(yaml, "fanout:\n  graph: " + cora + "\n  batch-size: 100\n  fanout: [5, 3]\n"
                + "epochs: 2\nstate.backend.type: hashmap\n");
        Configuration conf = cli.parse(new String[] {"--config", yaml.toString(), "--batch-size", "7"}).configuration;
        FanoutJobConfig c = FanoutJobConfig.from(conf);
        assertThat(c.batchSize).isEqualTo(7);
        assertThat(c.fanouts).containsExactly(5, 3);
        assertThat(c.epochs).isEqualTo(2);
        assertThat(conf.toMap()).containsEntry("state.backend.type", "hashmap");
        Files.writeString(yaml, "fanout: [not, a, map");
        assertThatThrownBy(() -> cli.parse(new String[] {"--config", yaml.toString()}))
                .isInstanceOf(ConfigException.class).hasMessageContaining(yaml.toString());
    }

    @Test
    void weightColumnFromYamlOrFlagReachesTheGraphSpecAndIsValidatedUpFront() throws Exception {
        Path yaml = tmp.resolve("weighted.yaml");
        Files.writeString(yaml, "fanout:\n  graph: " + cora + "\n  weight-column: weight\n  replace: true\n");
        FanoutJobConfig c = FanoutJobConfig.from(cli.parse(new String[] {"--config", yaml.toString()}).configuration);
        assertThat(c.weightColumn).isEqualTo("weight");
        assertThat(c.graphSpec().weightColumn()).isEqualTo("weight");
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora}).configuration).graphSpec()
                .weightColumn()).as("default: uniform").isNull();
        assertThatThrownBy(() -> FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora, "--weight-column", " "})
                .configuration)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("fanout.weight-column (--weight-column)").hasMessageContaining("must name");
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora, "--weight-column", "weight",
                "--store", "partitioned"}).configuration).graphSpec().weightColumn()).as("the partitioned store too")
                .isEqualTo("weight");
        assertThatThrownBy(() -> FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora, "--weight-column",
                "weight", "--sampler", "ppr"}).configuration)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("--weight-column");
    }

    @Test
    void partitionedBucketSizeFromYamlOrFlagIsValidatedUpFront() throws Exception {
        Path yaml = tmp.resolve("buckets.yaml");
        Files.writeString(yaml, "fanout:\n  graph: " + cora + "\n  store: partitioned\n  partitioned.bucket-size: 7\n");
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--config", yaml.toString()}).configuration)
                .partitionedBucketSize).isEqualTo(7);
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora, "--partitioned.bucket-size", "2"})
                .configuration).partitionedBucketSize).isEqualTo(2);
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora}).configuration).partitionedBucketSize)
                .as("default").isEqualTo(4096);
        assertThatThrownBy(() -> FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora,
                "--partitioned.bucket-size", "-3"}).configuration)).isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value '-3' for option fanout.partitioned.bucket-size (--partitioned.bucket-size):"
                        + " must be >= 1");
    }

    @Test
    void partitionedCacheSizeIsMegabytesOrAutomatic() throws Exception {
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora}).configuration).partitionedCacheBytes)
                .as("default: sized from the TaskManager heap").isEqualTo(-1);
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora, "--partitioned.cache-mb", "0"})
                .configuration).partitionedCacheBytes).isZero();
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora, "--partitioned.cache-mb", "48"})
                .configuration).partitionedCacheBytes).isEqualTo(48L << 20);
        assertThatThrownBy(() -> FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora,
                "--partitioned.cache-mb", "-2"}).configuration)).isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value '-2' for option fanout.partitioned.cache-mb (--partitioned.cache-mb):"
                        + " must be >= -1");
    }

    @Test
    void compactionAfterTheLoadIsOnUnlessTurnedOff() throws Exception {
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora}).configuration)
                .partitionedCompactAfterLoad).as("default").isTrue();
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora, "--partitioned.compact-after-load",
                "false"}).configuration).partitionedCompactAfterLoad).isFalse();
        assertThatThrownBy(() -> FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora,
                "--partitioned.compact-after-load", "sometimes"}).configuration))
                .hasMessageContaining("'sometimes'"); // not a boolean: the flag is given alone and the word is left over
    }

    @Test
    void partitionedLoadOnlyNeedsThePartitionedStoreAndNoSink() throws Exception {
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora, "--store", "partitioned",
                "--partitioned.load-only"}).configuration).partitionedLoadOnly).isTrue();
        assertThat(FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora}).configuration).partitionedLoadOnly)
                .as("default").isFalse();
        assertThatThrownBy(() -> FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora,
                "--partitioned.load-only"}).configuration)).isInstanceOf(ConfigException.class)
                .hasMessage("Option fanout.partitioned.load-only (--partitioned.load-only) needs fanout.store (--store)"
                        + " partitioned (a memory-store graph is not kept in keyed state)");
        assertThatThrownBy(() -> FanoutJobConfig.from(cli.parse(new String[] {"--graph", cora, "--store", "partitioned",
                "--partitioned.load-only", "--output", tmp.toString()}).configuration)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("fanout.partitioned.load-only (--partitioned.load-only) samples nothing: drop"
                        + " fanout.output (--output)");
    }

    @Test
    void unknownFanoutKeysInYamlOrDashDAreRefusedNamingTheNearestValidOne() throws Exception {
        Path yaml = tmp.resolve("job.yaml");
        Files.writeString(yaml, "graph: " + cora + "\nbatchsize: 100\n");
        assertThatThrownBy(() -> cli.parse(new String[] {"--config", yaml.toString()}))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Unknown key 'batchsize' in configuration file " + yaml
                        + " (did you mean 'batch-size'?). Run with --help to list the options.");
        Files.writeString(yaml, "fanout:\n  graph: " + cora + "\n  shufle: true\n");
        assertThatThrownBy(() -> cli.parse(new String[] {"--config", yaml.toString()}))
                .hasMessageStartingWith("Unknown key 'fanout.shufle' in configuration file " + yaml
                        + " (did you mean 'fanout.shuffle'?)");
        Files.writeString(yaml, "channel:\n  capactiy: 8\n");
        assertThatThrownBy(() -> cli.parse(new String[] {"--config", yaml.toString()}))
                .hasMessageStartingWith("Unknown key 'channel.capactiy' in configuration file " + yaml
                        + " (did you mean 'channel.capacity'?)");
        assertThatThrownBy(() -> cli.parse(new String[] {"-D", "fanout.epoch=2"}))
                .hasMessageStartingWith("Unknown key 'fanout.epoch' in -D fanout.epoch=2 (did you mean 'fanout.epochs'?)");
        assertThatThrownBy(() -> cli.parse(new String[] {"--batchsize", "2"}))
                .hasMessage("Unknown option --batchsize (did you mean --batch-size?). Run with --help to list the options.");
    }

    @Test
    void yamlKeysMayUseFlagsAndAliasesAndFlinkKeysPassThroughUntouched() throws Exception {
        Path yaml = tmp.resolve("job.yaml");
        Files.writeString(yaml, "fanout:\n  registry: /tmp/r\n  channel.capacity: 8\nseed: 7\n"
                + "taskmanager:\n  numberOfTaskSlots: 4\npipeline.object-reuse: false\nparallelism.default: 3\n");
        Configuration conf = cli.parse(new String[] {"--config", yaml.toString(), "-D", "state.backend.type=hashmap"})
                .configuration;
        assertThat(conf.toMap())
                .containsEntry(ChannelOptions.REGISTRY.key(), "/tmp/r")
                .containsEntry(ChannelOptions.CAPACITY.key(), "8")
                .containsEntry(FanoutOptions.SEED.key(), "7")
                .containsEntry("taskmanager.numberOfTaskSlots", "4")
                .containsEntry("pipeline.object-reuse", "false")
                .containsEntry("parallelism.default", "3")
                .containsEntry("state.backend.type", "hashmap")
                .hasSize(7);
    }

    @Test
    void editDistanceCountsSingleCharacterEdits() {
        assertThat(CommandLine.editDistance("batchsize", "batch-size")).isEqualTo(1);
        assertThat(CommandLine.editDistance("epoch", "epochs")).isEqualTo(1);
        assertThat(CommandLine.editDistance("sampler", "sampler")).isZero();
        assertThat(CommandLine.editDistance("", "abc")).isEqualTo(3);
        assertThat(CommandLine.editDistance("kitten", "sitting")).isEqualTo(3);
    }

    @Test
    void directedAndOutputModeFromFlagsOrYamlWithTheirDefaults() throws Exception {
        assertThat(config("--graph", cora).directed).isNull();
        assertThat(config("--graph", cora, "--directed").directed).isTrue();
        assertThat(config("--directed", "false", "--graph", cora).directed).isFalse();
        Path yaml = tmp.resolve("job.yaml");
        Files.writeString(yaml, "fanout:\n  graph: " + cora + "\n  directed: false\n  output-mode: append\n");
        FanoutJobConfig fromYaml = FanoutJobConfig.from(cli.parse(new String[] {"--config", yaml.toString()}).configuration);
        assertThat(fromYaml.directed).isFalse();
        assertThat(fromYaml.outputMode).isEqualTo(OutputMode.APPEND);
        assertThat(config("--graph", cora).outputMode).isEqualTo(OutputMode.ERROR);
    }

    @Test
    void dashDPassesAnyFlinkSetting() {
        Configuration conf = cli.parse(new String[] {"-D", "a.b=1", "-Dc.d = two"}).configuration;
        assertThat(conf.toMap()).containsEntry("a.b", "1").containsEntry("c.d", "two");
        assertThatThrownBy(() -> cli.parse(new String[] {"-Dnovalue"})).hasMessageContaining("key=value");
    }

    @Test
    void badValuesNameOptionKeyFlagAndValue() {
        assertThatThrownBy(() -> config("--graph", cora, "--batch-size", "many"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("fanout.batch-size").hasMessageContaining("--batch-size").hasMessageContaining("many");
        assertThatThrownBy(() -> config("--graph", cora, "--epochs", "0"))
                .hasMessageContaining("--epochs").hasMessageContaining("'0'");
        assertThatThrownBy(() -> config("--graph", cora, "--sampler", "random-walk"))
                .hasMessageContaining("--sampler").hasMessageContaining("random-walk");
        assertThatThrownBy(() -> config("--graph", cora, "--checkpoint-interval", "0 s"))
                .hasMessageContaining("--checkpoint-interval");
        assertThatThrownBy(() -> config("--graph", cora, "--checkpoint-timeout", "0 s"))
                .hasMessageContaining("--checkpoint-timeout");
        assertThatThrownBy(() -> config("--graph", cora, "--tolerable-failed-checkpoints", "-2"))
                .hasMessageContaining("--tolerable-failed-checkpoints").hasMessageContaining("'-2'");
        assertThatThrownBy(() -> config("--batch-size", "3")).hasMessageContaining("--graph").hasMessageContaining("required");
        assertThatThrownBy(() -> config("--graph", cora, "--output", cora + "/edges.tsv"))
                .hasMessageContaining("--output").hasMessageContaining("directory");
        assertThatThrownBy(() -> cli.parse(new String[] {"--graph"})).hasMessageContaining("--graph needs a value");
        assertThatThrownBy(() -> cli.parse(new String[] {"cora"})).hasMessageContaining("Unexpected argument 'cora'");
    }

    @Test
    void helpListsEveryOptionWithItsKeyAndDefault() {
        assertThat(cli.parse(new String[] {"--help"}).help).isTrue();
        String help = cli.help("usage");
        for (ConfigOption<?> option : FanoutOptions.jobOptions()) {
            assertThat(help).contains("--" + CommandLine.flagOf(option)).contains(option.key());
        }
        for (ConfigOption<?> option : ChannelOptions.all()) {
            assertThat(help).contains(option.key());
        }
        assertThat(help).contains("--registry").contains("default: 512").contains("--config").contains("-D");
    }
}
