package io.fanout.deploy.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The partitioned benchmark's row count, which its load rates divide by, for plain and typed graphs. */
class PartitionedBenchTest {
    private static final Path DATA = Path.of("..").toAbsolutePath().normalize().resolve("../shared/data").normalize();

    @Test
    void aPlainGraphCountsItsEdgeRows() throws IOException {
        assertThat(PartitionedBench.edgeRows(DATA.resolve("cora"))).isEqualTo(5_278);
    }

    @Test
    void aTypedGraphCountsTheRowsOfEveryEdgeType() throws IOException {
        // paper__cites__paper 5,278 rows + paper__has_word__word 49,216 (what the files' headers and lines say).
        assertThat(PartitionedBench.edgeRows(DATA.resolve("cora_hetero"))).isEqualTo(5_278 + 49_216);
    }
}
