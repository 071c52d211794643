package io.fanout.deploy.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * A benchmark asked for its usage prints it instead of running (a run rewrites the committed results), and an option
 * left without a value is refused by name instead of dropped.
 */
class BenchOptionsTest {

    @Test
    void helpIsAskedForEitherWay() {
        assertThat(BenchRecord.wantsHelp(new String[] {"khop", "--help"})).isTrue();
        assertThat(BenchRecord.wantsHelp(new String[] {"-h"})).isTrue();
        assertThat(BenchRecord.wantsHelp(new String[] {"khop", "--rounds", "3"})).isFalse();
    }

    @Test
    void aLoneLastOptionIsRefusedByName() {
        BenchRecord.requireValues(new String[] {"khop", "--rounds", "3"}, 1);
        BenchRecord.requireValues(new String[] {"--sizes", "65536"}, 0);
        assertThatThrownBy(() -> BenchRecord.requireValues(new String[] {"khop", "--rounds", "3", "--repeat"}, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--repeat has no value");
        assertThatThrownBy(() -> BenchRecord.requireValues(new String[] {"--pin"}, 0))
                .hasMessageContaining("--pin has no value");
    }
}
