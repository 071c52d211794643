package io.fanout.job;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphFormatException;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** --directed reaches the samplers' graph loads: a header-less copy of cora with --directed false is cora. */
class DirectedOptionITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    @TempDir
    Path tmp;

    @Test
    void aHeaderlessCopyOfCoraSamplesAsCoraOnlyWithDirectedFalse() throws Exception {
        Path cora = SharedData.graph("cora");
        List<String> lines = Files.readAllLines(cora.resolve("edges.tsv"));
        Path headerless = Files.createDirectory(tmp.resolve("cora-headerless"));
        Files.write(headerless.resolve("edges.tsv"), lines.subList(1, lines.size())); // the test's copy, in @TempDir

        String[] common = {"--fanout", "10,5", "--batch-size", "256", "--shuffle", "--parallelism", "2"};
        Path expected = tmp.resolve("expected");
        Path actual = tmp.resolve("actual");
        FanoutJobITCase.runJob(with(common, "--graph", cora.toString(), "--output", expected.toString()));
        FanoutJobITCase.runJob(with(common, "--graph", headerless.toString(), "--directed", "false",
                "--output", actual.toString()));
        FanoutJobITCase.assertSameMessages(FanoutJobITCase.readMessages(expected), FanoutJobITCase.readMessages(actual));

        assertThatThrownBy(() -> FanoutJobITCase.runJob(with(common, "--graph", headerless.toString())))
                .isInstanceOf(GraphFormatException.class)
                .hasMessageContaining("no directed= header")
                .hasMessageContaining("--directed");
        assertThatThrownBy(() -> FanoutJobITCase.runJob(with(common, "--graph", cora.toString(), "--directed")))
                .hasMessageContaining("header directed=false disagrees with the option fanout.directed (--directed) true");
    }

    private static String[] with(String[] common, String... more) {
        String[] all = java.util.Arrays.copyOf(common, common.length + more.length);
        System.arraycopy(more, 0, all, common.length, more.length);
        return all;
    }
}
