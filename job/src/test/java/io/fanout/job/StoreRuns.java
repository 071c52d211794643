package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.FanoutJobITCase.runJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.testing.JobConfigs;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/** Runs the real job with a store and parallelism into a fresh output directory, and reads its messages back. */
final class StoreRuns {
    private final Path tmp;
    private int runs;

    StoreRuns(Path tmp) {
        this.tmp = tmp;
    }

    /** The job's summary and its messages by (epoch, batch); the store's options as {@link JobConfigs#forStore}. */
    Map.Entry<JobSummary, TreeMap<Long, byte[]>> runWithSummary(String store, int parallelism, Path graph,
            String... extra) throws Exception {
        Path out = tmp.resolve(store + "-p" + parallelism + "-" + graph.getFileName() + "-" + (++runs));
        String[] base = {"--graph", graph.toString(), "--store", store, "--output", out.toString(),
                "--parallelism", String.valueOf(parallelism), "--checkpoint-interval", "1s"};
        String[] args = Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        JobSummary summary = runJob(JobConfigs.forStore(store, args));
        assertThat(summary.batches).isPositive();
        return Map.entry(summary, readMessages(out));
    }

    TreeMap<Long, byte[]> run(String store, int parallelism, Path graph, String... extra) throws Exception {
        return runWithSummary(store, parallelism, graph, extra).getValue();
    }
}
