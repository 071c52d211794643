package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.SharedData;
import org.junit.jupiter.api.Test;

/** A load-only job waits for a savepoint, which only a cluster can take: a local run is refused, not left hanging. */
class LoadOnlyLocalRunTest {
    @Test
    void aLocalLoadOnlyRunIsRefusedNamingTheOption() {
        assertThatThrownBy(() -> FanoutJob.run(JobConfigs.parse("--graph", SharedData.graph("cora").toString(),
                "--store", "partitioned", "--partitioned.load-only")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Option fanout.partitioned.load-only (--partitioned.load-only) runs until it is"
                        + " stopped with a savepoint: submit it to a cluster");
    }
}
