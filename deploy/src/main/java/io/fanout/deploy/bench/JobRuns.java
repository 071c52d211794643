package io.fanout.deploy.bench;

import io.fanout.config.FanoutJobConfig;
import io.fanout.job.FanoutJob;
import io.fanout.job.JobSummary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** Whole-job runs of a benchmark in the embedded MiniCluster, one per parallelism, as a ratio per core. */
final class JobRuns {
    /** Default rounds of (reference, job) per parallelism. */
    static final int ROUNDS = 3;
    /** The rate per core: the reference's single-thread rate, the job's rate / parallelism. */
    private static final String PER_CORE = "per_core";

    private JobRuns() {}

    /** One run of the reference sampler, returning its single-thread rate. */
    interface RefRound {
        double run() throws Exception;
    }

    /**
     * Runs the job with {@code args} plus {@code --parallelism p --epochs p*epochs} for each p of the comma
     * list in paired, alternated rounds with the reference sampler ({@link PairedRounds}: the record's warm-up,
     * then {@code rounds} rounds; the warm-up also pays the first job's class loading), and adds each parallelism's
     * per-core ratio (job rate / p / reference rate) to the record as {@code job_p<p>}.
     *
     * @param args the job's options, without parallelism and epochs
     * @param epochs the epochs at parallelism 1; p times as many at p, so every run lasts about as long and
     *     Flink's start-up (2-3 s, included in the rate) weighs alike at every parallelism
     * @param rate the job's rate from its summary (e.g. sampled edges/s)
     * @param unit what rate counts (e.g. "sampled edges/s")
     * @param refRound runs the reference sampler once and returns its single-thread rate of the same unit
     * @param goal the per-core ratio goal
     */
    static void run(BenchRecord record, int rounds, String parallelisms, List<String> args, int epochs,
            ToDoubleFunction<JobSummary> rate, String unit, RefRound refRound, double goal) throws Exception {
        for (String p : parallelisms.split(",")) {
            if (p.isBlank()) {
                continue;
            }
            int parallelism = Integer.parseInt(p.trim());
            List<String> all = new ArrayList<>(args);
            all.addAll(List.of("--parallelism", String.valueOf(parallelism), "--epochs", String.valueOf(epochs * parallelism)));
            String job = "fanout job p=" + parallelism;
            LinkedHashMap<String, PairedRounds.Side> sides = new LinkedHashMap<>();
            sides.put("refsampler.c", r -> Map.of(PER_CORE, refRound.run()));
            sides.put(job, r -> {
                JobSummary s = FanoutJob.run(FanoutJobConfig.from(
                        FanoutJob.commandLine().parse(all.toArray(new String[0])).configuration));
                return Map.of(PER_CORE, rate.applyAsDouble(s) / parallelism, "batches", (double) s.batches,
                        "seconds", s.seconds);
            });
            PairedRounds result = PairedRounds.run("job p=" + parallelism + " (per core, " + unit + ")", record.warmup,
                    rounds, sides, PER_CORE);
            record.add("job_p" + parallelism, "whole job p=" + parallelism + ", per core / refsampler.c", unit,
                    "refsampler.c", job, goal, result.values("refsampler.c", PER_CORE), result.values(job, PER_CORE));
            record.details().put("job_p" + parallelism + "_batches", result.last(job).get("batches").longValue())
                    .put("job_p" + parallelism + "_seconds", result.last(job).get("seconds"));
        }
    }
}
