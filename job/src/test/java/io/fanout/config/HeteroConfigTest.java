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
                .hasMessageContaining("fanout.seed-type (--seed-type) needs a typed graph");
    }
}
