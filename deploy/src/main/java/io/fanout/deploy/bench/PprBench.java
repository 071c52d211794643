package io.fanout.deploy.bench;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.job.JobSummary;
import io.fanout.random.SplitMix64;
import io.fanout.sampling.ppr.PprSampler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * [--batch-size 512] [--seconds 5] [--parallelism 1,2]}; results also go to
 * {@code deploy/target/bench/ppr-<graph>-a<alpha>-e<eps>-k<k>.json}.
 */
final class PprBench {
    private static final int ROUNDS = 5;

    private PprBench() {}

    static void run(String[] args, Path root, Path shared) throws Exception {
        String graphArg = shared.resolve("data/ego_twitter_u").toString();
        double alpha = 0.15;
        double eps = 1e-4;
        int topk = 50;
        int batchSize = 512;
        double seconds = 5;
        String parallelisms = "1,2";
        for (int i = 1; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--graph": graphArg = args[i + 1]; break;
                case "--alpha": alpha = Double.parseDouble(args[i + 1]); break;
                case "--eps": eps = Double.parseDouble(args[i + 1]); break;
                case "--max-ppr-nodes": topk = Integer.parseInt(args[i + 1]); break;
                case "--batch-size": batchSize = Integer.parseInt(args[i + 1]); break;
                case "--seconds": seconds = Double.parseDouble(args[i + 1]); break;
                case "--parallelism": parallelisms = args[i + 1]; break; // "" = core only
                default: throw new IllegalArgumentException("unknown benchmark option " + args[i]);
            }
        }
        Path graphPath = Path.of(graphArg);
        Path workDir = root.resolve("deploy/target/bench");
        RefSampler ref = RefSampler.build(shared, workDir);
        Path plain = ref.edgeFileOf(graphPath);
        System.out.printf(Locale.ROOT, "PPR benchmark: %s, alpha %s, eps %s, top-%d, %.0f s per measurement, %d cores%n",
                graphPath.getFileName(), alpha, eps, topk, seconds, Runtime.getRuntime().availableProcessors());

        // 1+2. refsampler.c ppr and the Java core (push + top-k per seed), single-threaded, alternated.
        CsrGraph graph = GraphLoader.load(graphPath, EdgeDirection.OUT);
        runCore(graph, alpha, eps, topk, Math.min(3, seconds), 1); // JIT warm-up
        double[] seedRatios = new double[ROUNDS];
        double[] pushRatios = new double[ROUNDS];
        double[] refSeedRates = new double[ROUNDS];
        double[] refPushRates = new double[ROUNDS];
        double[] coreSeedRates = new double[ROUNDS];
        double[] corePushRates = new double[ROUNDS];
        double refPushesPerSeed = 0;
        double corePushesPerSeed = 0;
        // One reference run's arguments, for the core rounds and the whole-job rounds alike.
        String[] refArgs = {"ppr", plain.toString(), String.valueOf(alpha), String.valueOf(eps), String.valueOf(topk),
                String.valueOf(seconds)};
        for (int round = 0; round < ROUNDS; round++) {
            Map<String, String> r = ref.run(refArgs);
            double refSeeds = Double.parseDouble(r.get("seeds_per_s"));
            double refPushes = Double.parseDouble(r.get("pushes_per_s"));
            CoreResult core = runCore(graph, alpha, eps, topk, seconds, 2 + round);
            refSeedRates[round] = refSeeds;
            refPushRates[round] = refPushes;
            coreSeedRates[round] = core.seedsPerSecond();
            corePushRates[round] = core.pushesPerSecond();
            seedRatios[round] = core.seedsPerSecond() / refSeeds;
            pushRatios[round] = core.pushesPerSecond() / refPushes;
            refPushesPerSeed = refPushes / refSeeds;
            corePushesPerSeed = core.pushes / (double) core.seeds;
            System.out.printf(Locale.ROOT, "  round %d: refsampler.c %,9.0f seeds/s %,12.0f pushes/s (%.0f pushes/seed)"
                    + " | fanout core %,9.0f seeds/s %,12.0f pushes/s (%.0f pushes/seed) | ratios %.2fx %.2fx%n",
                    round + 1, refSeeds, refPushes, refPushesPerSeed, core.seedsPerSecond(), core.pushesPerSecond(),
                    corePushesPerSeed, seedRatios[round], pushRatios[round]);
        }
        double seedRatio = JobRuns.median(seedRatios);
        double pushRatio = JobRuns.median(pushRatios);
        double refSeedRate = JobRuns.median(refSeedRates);
        System.out.printf(Locale.ROOT, "  fanout core (1 thread) median ratio: seeds/s %.2fx, pushes/s %.2fx over %d rounds"
                + "  (target >= 0.70x)%n", seedRatio, pushRatio, ROUNDS);

        // 3. The whole PPR job in an embedded MiniCluster (every node a seed, output discarded), p times the
        //    epochs at parallelism p so that every run lasts about as long.
        long seedsPerEpoch = graph.numNodes();
        int epochs = (int) Math.max(1, Math.ceil(2 * seconds * refSeedRate / seedsPerEpoch));
        String jobsJson = JobRuns.run(parallelisms, List.of("--graph", graphPath.toString(), "--sampler", "ppr",
                "--alpha", String.valueOf(alpha), "--eps", String.valueOf(eps), "--max-ppr-nodes", String.valueOf(topk),
                // refsampler reads every neighbour; the job's default (GiGL's num_neighbors_per_hop) is 1000.
                "--ppr-max-neighbors", "-1", "--batch-size", String.valueOf(batchSize), "--shuffle"), epochs,
                JobSummary::seedsPerSecond, "seeds", () -> Double.parseDouble(ref.run(refArgs).get("seeds_per_s")), 0.7);
        String json = String.format(Locale.ROOT, "{\"benchmark\":\"ppr\",\"graph\":\"%s\",\"alpha\":%s,\"eps\":%s,"
                + "\"max_ppr_nodes\":%d,\"cores\":%d,\"ref_seeds_per_s\":%.1f,\"ref_pushes_per_s\":%.1f,"
                + "\"core_seeds_per_s\":%.1f,\"core_pushes_per_s\":%.1f,\"ref_pushes_per_seed\":%.1f,"
                + "\"core_pushes_per_seed\":%.1f,\"seeds_ratio\":%.4f,\"pushes_ratio\":%.4f,\"jobs\":%s}%n",
                graphPath.getFileName(), alpha, eps, topk, Runtime.getRuntime().availableProcessors(), refSeedRate,
                JobRuns.median(refPushRates), JobRuns.median(coreSeedRates), JobRuns.median(corePushRates), refPushesPerSeed, corePushesPerSeed,
                seedRatio, pushRatio, jobsJson);
        Files.createDirectories(workDir);
        Path results = workDir.resolve(String.format(Locale.ROOT, "ppr-%s-a%s-e%s-k%d.json", graphPath.getFileName(),
                alpha, eps, topk));
        Files.writeString(results, json, StandardCharsets.UTF_8);
        System.out.println("  results: " + results);
    }


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
