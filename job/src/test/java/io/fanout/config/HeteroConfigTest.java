package io.fanout.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.job.FanoutJob;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Options of typed graphs validated up front, each error naming the option and the value. */
class HeteroConfigTest {
    @TempDir
    Path tmp;

    private static FanoutJobConfig parse(String... args) {
        return FanoutJobConfig.from(FanoutJob.commandLine().parse(args).configuration);
    }

    private static final String CORA = SharedData.graph("cora_hetero").toString();

    @Test
    void perTypeFanoutsAndSeedType() {
        FanoutJobConfig c = parse("--graph", CORA, "--seed-type", "paper", "--fanout",
                "paper__cites__paper:15,10;paper__has_word__word:5,0");
        assertThat(c.typed.seedType).isEqualTo("paper");
        assertThat(c.typed.fanouts.get("paper__has_word__word")).containsExactly(5, 0);
        assertThat(c.fanouts).isNull();
        FanoutJobConfig bitcoin = parse("--graph", SharedData.graph("bitcoin_alpha_typed").toString());
        assertThat(bitcoin.typed.seedType).isEqualTo("user"); // the only node type
        assertThat(bitcoin.typed.fanouts).containsOnlyKeys("user__distrusts__user", "user__trusts__user");
    }

    @Test
    void yamlMappingOfFanouts() throws Exception {
        Path yaml = tmp.resolve("job.yaml");
        Files.writeString(yaml, "fanout:\n  graph: " + CORA + "\n  seed-type: paper\n  fanout:\n"
                + "    paper__cites__paper: [15, 10]\n    paper__has_word__word: [5, 0]\n");
        FanoutJobConfig c = parse("--config", yaml.toString());
        assertThat(c.typed.fanouts.get("paper__cites__paper")).containsExactly(15, 10);
        assertThat(c.typed.fanouts.get("paper__has_word__word")).containsExactly(5, 0);
    }

    @Test
    void badTypedOptionsNameOptionAndValue() {
        assertThatThrownBy(() -> parse("--graph", CORA))
                .isInstanceOf(ConfigException.class).hasMessageContaining("fanout.seed-type (--seed-type) is required")
                .hasMessageContaining("[paper, word]");
        assertThatThrownBy(() -> parse("--graph", CORA, "--seed-type", "author"))
                .hasMessageContaining("Invalid value 'author' for option fanout.seed-type");
        assertThatThrownBy(() -> parse("--graph", CORA, "--seed-type", "paper", "--fanout", "paper__cites__paper:15"))
                .hasMessageContaining("Invalid value 'paper__cites__paper:15' for option fanout.fanout")
                .hasMessageContaining("no fanouts for edge type paper__has_word__word");
        assertThatThrownBy(() -> parse("--graph", SharedData.graph("cora").toString(), "--fanout", "a__b__c:1"))
                .hasMessageContaining("for option fanout.fanout").hasMessageContaining("need a typed graph");
        assertThatThrownBy(() -> parse("--graph", SharedData.graph("cora").toString(), "--seed-type", "paper"))
                .hasMessageContaining("fanout.seed-type (--seed-type) 'paper' is for typed graphs");
    }

    @Test
    void typedPprOptions() throws Exception {
        FanoutJobConfig c = parse("--graph", CORA, "--seed-type", "paper", "--sampler", "ppr", "--ppr-channels",
                "paper__cites__paper:0.6, paper__has_word__word+paper__cites__paper:0.4", "--include-sampled-edges");
        assertThat(c.typed.pprChannels.size()).isEqualTo(2);
        assertThat(c.typed.pprChannels.targetCounts(c.maxPprNodes)).containsExactly(30, 20);
        assertThat(c.typed.includeSampledEdges).isTrue();
        // GiGL's PPRSamplerOptions defaults.
        assertThat(c.alpha).isEqualTo(0.5);
        assertThat(c.eps).isEqualTo(1e-4);
        assertThat(c.maxPprNodes).isEqualTo(50);
        assertThat(c.pprMaxNeighbors).isEqualTo(1000);
        assertThat(c.residualTopUp).isTrue();
        assertThat(parse("--graph", CORA, "--seed-type", "paper", "--sampler", "ppr").typed.pprChannels).isNull();
        Path yaml = tmp.resolve("ppr.yaml");
        Files.writeString(yaml, "fanout:\n  graph: " + CORA + "\n  seed-type: paper\n  sampler: ppr\n"
                + "  ppr-channels: paper__cites__paper:0.5,paper__has_word__word:0.5\n  include-sampled-edges: true\n");
        FanoutJobConfig y = parse("--config", yaml.toString());
        assertThat(y.typed.pprChannels).hasToString("paper__cites__paper:0.5,paper__has_word__word:0.5");
        assertThat(y.typed.includeSampledEdges).isTrue();
    }

    @Test
    void badTypedPprOptionsNameOptionAndValue() {
        assertThatThrownBy(() -> parse("--graph", CORA, "--seed-type", "paper", "--sampler", "ppr", "--ppr-channels",
                "paper__cites__paper:0.5,paper__writes__paper:0.5"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value 'paper__cites__paper:0.5,paper__writes__paper:0.5' for option"
                        + " fanout.ppr-channels")
                .hasMessageContaining("paper__writes__paper is not an edge type of the graph")
                .hasMessageContaining("[paper__cites__paper, paper__has_word__word]");
        assertThatThrownBy(() -> parse("--graph", CORA, "--seed-type", "paper", "--sampler", "ppr", "--ppr-channels",
                "paper__cites__paper:0.7,paper__has_word__word:0.7"))
                .hasMessageContaining("fanout.ppr-channels").hasMessageContaining("must sum to 1");
        assertThatThrownBy(() -> parse("--graph", CORA, "--seed-type", "paper", "--ppr-channels", "paper__cites__paper:1"))
                .hasMessageContaining("fanout.ppr-channels").hasMessageContaining("is for ppr on a typed graph");
        assertThatThrownBy(() -> parse("--graph", CORA, "--seed-type", "paper", "--include-sampled-edges"))
                .hasMessageContaining("fanout.include-sampled-edges").hasMessageContaining("ppr");
        String cora = SharedData.graph("cora").toString();
        assertThatThrownBy(() -> parse("--graph", cora, "--sampler", "ppr", "--ppr-channels", "a__b__c:1"))
                .hasMessageContaining("fanout.ppr-channels (--ppr-channels) 'a__b__c:1' is for ppr on a typed graph")
                .hasMessageContaining("This job is a plain graph");
        assertThatThrownBy(() -> parse("--graph", cora, "--sampler", "ppr", "--include-sampled-edges"))
                .hasMessageContaining("fanout.include-sampled-edges (--include-sampled-edges) 'true' is for ppr on a typed graph");
    }
}
