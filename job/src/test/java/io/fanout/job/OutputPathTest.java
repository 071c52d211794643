package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** --output means the same directory on a cluster's TaskManagers as on the client. */
class OutputPathTest {
    @Test
    void plainPathsBecomeAbsoluteOnTheClientAndUrisAreKept() {
        assertThat(SeedPlanning.absoluteLocalPath("out/samples"))
                .isEqualTo(Path.of("").toAbsolutePath().resolve("out/samples").toString());
        assertThat(SeedPlanning.absoluteLocalPath("/data/../tmp/x")).isEqualTo("/tmp/x");
        assertThat(SeedPlanning.absoluteLocalPath("s3://bucket/samples")).isEqualTo("s3://bucket/samples");
        assertThat(SeedPlanning.absoluteLocalPath("file:///tmp/samples")).isEqualTo("file:///tmp/samples");
    }
}
