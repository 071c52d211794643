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
    /** Default rounds of (reference, job at every parallelism). */
    static final int ROUNDS = 3;
    /** The rate per core: the reference's single-thread rate, the job's rate / parallelism. */
    private static final String PER_CORE = "per_core";
    /** The job's whole rate (all its cores), for the scaling ratio between parallelisms. */
    private static final String WHOLE = "whole";
    private static final String REF = "refsampler.c";

    private JobRuns() {}

    /** One run of the reference sampler, returning its single-thread rate. */
    interface RefRound {
        double run() throws Exception;
    }

    /**
     * Runs the job with {@code args} plus {@code --parallelism p --epochs p*epochs} for every p of the comma list and
     * the reference sampler in the same paired, alternated rounds ({@link PairedRounds}: the record's warm-up, then
     * {@code rounds} rounds, each running the reference and the job at every parallelism back to back; the warm-up
     * also pays the first job's class loading). Adds each parallelism's per-core ratio (job rate / p / reference
     * rate) as {@code job_p<p>}, and for every p after the first the scaling {@code job_p<p>_over_p<first>}: the
     * whole job's rate at p over its rate at the first parallelism, in the same round.
     *
     * @param args the job's options, without parallelism and epochs
     * @param epochs the epochs at parallelism 1; p times as many at p, so every run lasts about as long and
     *     Flink's start-up (counted in the rate) weighs alike at every parallelism
     * @param rate the job's rate from its summary (e.g. sampled edges/s)
     * @param unit what rate counts (e.g. "sampled edges/s")
     * @param refRound runs the reference sampler once and returns its single-thread rate of the same unit
     * @param goal the per-core ratio goal
     * @param scalingGoal the goal of the scaling ratio at 2 cores (issue 28: 1.8 for k-hop), or null
     */
    static void run(BenchRecord record, int rounds, String parallelisms, List<String> args, int epochs,
            ToDoubleFunction<JobSummary> rate, String unit, RefRound refRound, double goal, Double scalingGoal)
            throws Exception {
        List<Integer> ps = new ArrayList<>();
        for (String p : parallelisms.split(",")) {
            if (!p.isBlank()) {
                ps.add(Integer.parseInt(p.trim()));
            }
        }
        if (ps.isEmpty()) {
            return;
        }
        LinkedHashMap<String, PairedRounds.Side> sides = new LinkedHashMap<>();
        sides.put(REF, r -> Map.of(PER_CORE, refRound.run()));
        for (int parallelism : ps) {
            List<String> all = new ArrayList<>(args);
            all.addAll(List.of("--parallelism", String.valueOf(parallelism), "--epochs",
                    String.valueOf(epochs * parallelism)));
            sides.put(job(parallelism), r -> {
                JobSummary s = FanoutJob.run(FanoutJobConfig.from(
                        FanoutJob.commandLine().parse(all.toArray(new String[0])).configuration));
                double whole = rate.applyAsDouble(s);
                return Map.of(PER_CORE, whole / parallelism, WHOLE, whole, "batches", (double) s.batches,
                        "seconds", s.seconds);
            });
        }
        PairedRounds result = PairedRounds.run("job (per core, " + unit + ")", record.warmup, rounds, sides, PER_CORE);
        for (int parallelism : ps) {
            String job = job(parallelism);
            record.add("job_p" + parallelism, "whole job p=" + parallelism + ", per core / refsampler.c", unit, REF, job,
                    goal, result.values(REF, PER_CORE), result.values(job, PER_CORE));
            record.details().put("job_p" + parallelism + "_batches", result.last(job).get("batches").longValue())
                    .put("job_p" + parallelism + "_seconds", result.last(job).get("seconds"));
        }
        int first = ps.get(0);
        for (int parallelism : ps.subList(1, ps.size())) {
            record.add("job_p" + parallelism + "_over_p" + first, "whole job p=" + parallelism + " / p=" + first
                    + " (scaling)", unit, job(first), job(parallelism), parallelism == 2 * first ? scalingGoal : null,
                    result.values(job(first), WHOLE), result.values(job(parallelism), WHOLE));
        }
    }

    private static String job(int parallelism) {
        return "fanout job p=" + parallelism;
    }
}
