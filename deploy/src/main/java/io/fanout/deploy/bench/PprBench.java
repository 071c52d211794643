package io.fanout.deploy.bench;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.job.JobSummary;
import io.fanout.random.SplitMix64;
import io.fanout.sampling.ppr.PprSampler;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * PPR throughput benchmark (not a test): Fanout's forward-push core and whole PPR job against
 * {@code refsampler.c ppr}, measured in the same run and printed as ratios.
 *
 * <p>Like with like: refsampler pushes a node while {@code r >= eps * deg} with residuals starting at 1;
 * Fanout's push uses GiGL's scale (residuals starting at alpha, {@code r >= alpha * eps * deg}), the same
 * test, so with the same alpha and eps both make the same pushes per seed (printed side by side). Per seed
 * both run the push to completion and then rank the touched nodes (refsampler sorts their scores, Fanout
 * selects GiGL's top-k with residual top-up). Seeds are uniformly random in both. The graph must have no
 * dangling node and no node of degree above 1/eps for the push counts to be comparable (refsampler then
 * keeps mass differently); ego_twitter_u qualifies.
 *
 * <p>{@code deploy/bin/fanout-bench ppr [--graph DIR] [--alpha 0.15] [--eps 1e-4] [--max-ppr-nodes 50]
 * [--batch-size 512] [--seconds 5] [--parallelism 1,2] [--job-rounds 3]} plus {@link BenchRecord#OPTIONS_USAGE};
 * every ratio is the median of paired, alternated rounds; the result goes to {@code deploy/bench-results/ppr.json}.
 */
final class PprBench {
    private PprBench() {}

    static void run(String[] args, Path root, Path shared) throws Exception {
        String graphArg = shared.resolve("data/ego_twitter_u").toString();
        double alpha = 0.15;
        double eps = 1e-4;
        int topk = 50;
        int batchSize = 512;
        double seconds = 5;
        String parallelisms = "1,2";
        int jobRounds = JobRuns.ROUNDS;
        BenchRecord record = new BenchRecord("ppr", "deploy/bin/fanout-bench", args, root, 5, 1);
        for (int i = 1; i + 1 < args.length; i += 2) {
            if (record.option(args[i], args[i + 1])) {
                continue;
            }
            switch (args[i]) {
                case "--graph": graphArg = args[i + 1]; break;
                case "--alpha": alpha = Double.parseDouble(args[i + 1]); break;
                case "--eps": eps = Double.parseDouble(args[i + 1]); break;
                case "--max-ppr-nodes": topk = Integer.parseInt(args[i + 1]); break;
                case "--batch-size": batchSize = Integer.parseInt(args[i + 1]); break;
                case "--seconds": seconds = Double.parseDouble(args[i + 1]); break;
                case "--parallelism": parallelisms = args[i + 1]; break; // "" = core only
                case "--job-rounds": jobRounds = BenchRecord.positive(args[i], args[i + 1]); break;
                default: throw new IllegalArgumentException("unknown benchmark option " + args[i]);
            }
        }
        Path graphPath = Path.of(graphArg);
        Path workDir = root.resolve("deploy/target/bench");
        RefSampler ref = RefSampler.build(shared, workDir);
        Path plain = ref.edgeFileOf(graphPath);
        System.out.printf(Locale.ROOT, "PPR benchmark: %s, alpha %s, eps %s, top-%d, %s s per measurement, %d warm-up +"
                + " %d rounds (jobs: %d), %d run(s), %d cores%n", graphPath.getFileName(), alpha, eps, topk, seconds,
                record.warmup, record.rounds, jobRounds, record.repeat, Runtime.getRuntime().availableProcessors());
        record.details().put("graph", graphPath.getFileName().toString()).put("alpha", alpha).put("eps", eps)
                .put("max_ppr_nodes", topk).put("batch_size", batchSize).put("seconds", seconds)
                .put("parallelism", parallelisms).put("job_rounds", jobRounds)
                .put("ref_huge_pages", ref.hugePages());
        System.out.println(ref.describe());

        CsrGraph graph = GraphLoader.load(graphPath, EdgeDirection.OUT);
        // One reference run's arguments, for the core rounds and the whole-job rounds alike.
        String[] refArgs = {"ppr", plain.toString(), String.valueOf(alpha), String.valueOf(eps), String.valueOf(topk),
                String.valueOf(seconds)};
        double a = alpha;
        double e = eps;
        int k = topk;
        double s = seconds;
        for (int run = 0; run < record.repeat; run++) {
            record.startRun(run);
            // 1+2. refsampler.c ppr and the Java core (push + top-k per seed), single-threaded, paired and alternated.
            LinkedHashMap<String, PairedRounds.Side> sides = new LinkedHashMap<>();
            sides.put(REF, r -> {
                Map<String, String> out = ref.run(refArgs);
                return Map.of(SEEDS, Double.parseDouble(out.get("seeds_per_s")), PUSHES,
                        Double.parseDouble(out.get("pushes_per_s")));
            });
            sides.put(CORE, r -> runCore(graph, a, e, k, s, 2 + r).values());
            PairedRounds core = PairedRounds.run("core", record.warmup, record.rounds, sides, SEEDS);
            record.add("core_seeds", "PPR core, 1 thread / refsampler.c", "seeds/s", REF, CORE, null,
                    core.values(REF, SEEDS), core.values(CORE, SEEDS));
            // Both make the same pushes per seed, so the pushes/s ratio follows the seeds/s one: a detail, not a row.
            record.details().put("core_pushes_ratio_median", BenchRecord.median(BenchRecord.ratios(core.values(REF, PUSHES),
                    core.values(CORE, PUSHES))));
            // The pushes per seed of both, printed side by side: like is compared with like.
            Map<String, Double> lastRef = core.last(REF);
            Map<String, Double> lastCore = core.last(CORE);
            record.details().put("ref_pushes_per_seed", lastRef.get(PUSHES) / lastRef.get(SEEDS))
                    .put("core_pushes_per_seed", lastCore.get(PUSHES) / lastCore.get(SEEDS));
            System.out.printf(Locale.ROOT, "  pushes per seed: refsampler.c %.1f, fanout core %.1f%n",
                    lastRef.get(PUSHES) / lastRef.get(SEEDS), lastCore.get(PUSHES) / lastCore.get(SEEDS));

            // 3. The whole PPR job in an embedded MiniCluster (every node a seed, output discarded), p times the
            //    epochs at parallelism p so that every run lasts about as long.
            long seedsPerEpoch = graph.numNodes();
            int epochs = (int) Math.max(1, Math.ceil(2 * seconds * BenchRecord.median(core.values(REF, SEEDS))
                    / seedsPerEpoch));
            record.details().put("job_epochs_at_p1", epochs);
            JobRuns.run(record, jobRounds, parallelisms, List.of("--graph", graphPath.toString(), "--sampler", "ppr",
                    "--alpha", String.valueOf(alpha), "--eps", String.valueOf(eps), "--max-ppr-nodes", String.valueOf(topk),
                    // refsampler reads every neighbour; the job's default (GiGL's num_neighbors_per_hop) is 1000.
                    "--ppr-max-neighbors", "-1", "--batch-size", String.valueOf(batchSize), "--shuffle"), epochs,
                    JobSummary::seedsPerSecond, "seeds/s", () -> Double.parseDouble(ref.run(refArgs).get("seeds_per_s")),
                    1.2, null);
        }
        record.write();
        BenchTables.updateReadme(root, record);
    }

    private static final String REF = "refsampler.c";
    private static final String CORE = "fanout core";
    private static final String SEEDS = "seeds_per_s";
    private static final String PUSHES = "pushes_per_s";

    private static final class CoreResult {
        long seeds;
        long pushes;
        double seconds;

        double seedsPerSecond() {
            return seeds / seconds;
        }

        double pushesPerSecond() {
            return pushes / seconds;
        }

        Map<String, Double> values() {
            return Map.of(SEEDS, seedsPerSecond(), PUSHES, pushesPerSecond());
        }
    }

    /** Push + top-k for uniformly random seeds (as refsampler does) for about the given time. */
    private static CoreResult runCore(CsrGraph graph, double alpha, double eps, int topk, double seconds, long rngSeed) {
        PprSampler sampler = new PprSampler(graph, alpha, eps, topk, -1, true, rngSeed);
        SplitMix64 rng = new SplitMix64(rngSeed);
        CoreResult r = new CoreResult();
        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        long now;
        do {
            for (int rep = 0; rep < 64; rep++) {
                sampler.sampleSeed(rng.nextInt(graph.numNodes()));
                r.pushes += sampler.push().pushes();
                r.seeds++;
            }
            now = System.nanoTime();
        } while (now < deadline);
        r.seconds = (now - start) / 1e9;
        return r;
    }
}
