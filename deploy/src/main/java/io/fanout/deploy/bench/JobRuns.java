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
    /** Job runs per parallelism, each right after a run of the reference: the median ratio is the result. */
    static final int ROUNDS = 3;

    private JobRuns() {}

    /** One run of the reference sampler, returning its single-thread rate. */
    interface RefRound {
        double run() throws Exception;
    }

    /**
     * Runs the job with {@code args} plus {@code --parallelism p --epochs p*epochs} for each p of the comma
     * list, {@link #ROUNDS} times each, every time right after a fresh run of the reference sampler, so
     * that a slow or fast spell of this shared machine hits the pair alike; prints one line per round and
     * the median, and returns the JSON array of the parallelisms.
     *
     * @param args the job's options, without parallelism and epochs
     * @param epochs the epochs at parallelism 1; p times as many at p, so every run lasts about as long and
     *     Flink's start-up (2-3 s, included in the rate) weighs alike at every parallelism
     * @param rate the job's rate from its summary (e.g. sampled edges/s)
     * @param unit what rate counts, for the printed line and the JSON key ({@code edges} -> edges_per_s)
     * @param refRound runs the reference sampler once and returns its single-thread rate of the same unit
     * @param target the per-core ratio target, printed next to the result
     */
    static String run(String parallelisms, List<String> args, int epochs, ToDoubleFunction<JobSummary> rate, String unit,
            RefRound refRound, double target) throws Exception {
        StringBuilder json = new StringBuilder("[");
        for (String p : parallelisms.split(",")) {
            if (p.isBlank()) {
                continue;
            }
            int parallelism = Integer.parseInt(p.trim());
            List<String> all = new ArrayList<>(args);
            all.addAll(List.of("--parallelism", String.valueOf(parallelism), "--epochs", String.valueOf(epochs * parallelism)));
            double[] ratios = new double[ROUNDS];
            double[] totals = new double[ROUNDS];
            JobSummary last = null;
            for (int round = 0; round < ROUNDS; round++) {
                double ref = refRound.run();
                last = FanoutJob.run(FanoutJobConfig.from(
                        FanoutJob.commandLine().parse(all.toArray(new String[0])).configuration));
                totals[round] = rate.applyAsDouble(last);
                ratios[round] = totals[round] / parallelism / ref;
                System.out.printf(Locale.ROOT, "  job p=%d round %d: refsampler.c %,14.0f  fanout job %,14.0f %s/s"
                        + " (%,.0f per core)  ratio %.2fx  (%,d batches in %.1f s incl. start-up)%n", parallelism,
                        round + 1, ref, totals[round], unit, totals[round] / parallelism, ratios[round], last.batches,
                        last.seconds);
            }
            double ratio = median(ratios);
            double total = median(totals);
            System.out.printf(Locale.ROOT, "  fanout job p=%d median %,14.0f %s/s  per core %,.0f  ratio %.2fx per core"
                    + " over %d rounds  (target >= %.2fx)%n", parallelism, total, unit, total / parallelism, ratio,
                    ROUNDS, target);
            if (json.length() > 1) {
                json.append(',');
            }
            StringBuilder rounds = new StringBuilder("[");
            for (int i = 0; i < ROUNDS; i++) {
                rounds.append(i > 0 ? "," : "").append(String.format(Locale.ROOT, "%.4f", ratios[i]));
            }
            rounds.append(']');
            json.append(String.format(Locale.ROOT, "{\"parallelism\":%d,\"%s_per_s\":%.1f,\"per_core_ratio\":%.4f,"
                    + "\"round_ratios\":%s,\"batches\":%d,\"seeds\":%d,\"seconds\":%.3f}", parallelism, unit, total,
                    ratio, rounds, last.batches, last.seeds, last.seconds));
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
