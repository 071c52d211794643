package io.fanout.deploy.bench;

import io.fanout.config.FanoutJobConfig;
import io.fanout.job.FanoutJob;
import io.fanout.job.JobSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/** Whole-job runs of a benchmark in the embedded MiniCluster, one per parallelism, as a ratio per core. */
final class JobRuns {
    private JobRuns() {}

    /**
     * Runs the job with {@code args} plus {@code --parallelism p} for each p of the comma list, prints
     * one line each and returns the JSON array of the runs.
     *
     * @param rate the job's rate from its summary (e.g. sampled edges/s)
     * @param unit what rate counts, for the printed line and the JSON key ({@code edges} -> edges_per_s)
     * @param refRate the reference sampler's single-thread rate of the same unit
     * @param target the per-core ratio target, printed next to the result
     */
    static String run(String parallelisms, List<String> args, ToDoubleFunction<JobSummary> rate, String unit,
            double refRate, double target) throws Exception {
        StringBuilder json = new StringBuilder("[");
        for (String p : parallelisms.split(",")) {
            if (p.isBlank()) {
                continue;
            }
            int parallelism = Integer.parseInt(p.trim());
            List<String> all = new ArrayList<>(args);
            all.add("--parallelism");
            all.add(String.valueOf(parallelism));
            JobSummary s = FanoutJob.run(FanoutJobConfig.from(
                    FanoutJob.commandLine().parse(all.toArray(new String[0])).configuration));
            double total = rate.applyAsDouble(s);
            double perCore = total / parallelism;
            System.out.printf(Locale.ROOT, "  fanout job p=%d  %,14.0f %s/s  per core %,.0f  ratio %.2fx  (target >= %.2fx"
                    + " per core; %,d batches, %,d seeds in %.1f s incl. start-up)%n",
                    parallelism, total, unit, perCore, perCore / refRate, target, s.batches, s.seeds, s.seconds);
            if (json.length() > 1) {
                json.append(',');
            }
            json.append(String.format(Locale.ROOT, "{\"parallelism\":%d,\"%s_per_s\":%.1f,\"per_core_ratio\":%.4f,"
                    + "\"batches\":%d,\"seeds\":%d,\"seconds\":%.3f}", parallelism, unit, total, perCore / refRate,
                    s.batches, s.seeds, s.seconds));
        }
        return json.append(']').toString();
    }

    /** The median of the rounds of a measurement (the upper middle value for an even count). */
    static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
