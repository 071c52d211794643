package io.fanout.deploy.bench;

import io.fanout.graph.AliasTable;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.GraphLoader;
import io.fanout.graph.NodeIdMap;
import io.fanout.job.JobSummary;
import io.fanout.random.SplitMix64;
import io.fanout.sampling.KHopSampler;
import io.fanout.sampling.SampledSubgraph;
import io.fanout.sampling.WeightedDraws;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Throughput benchmark (not a test): Fanout's sampling core and whole job against
 * ../shared/bench/refsampler.c, run as a child process in the same run, printed as ratios.
 *
 * <p>{@code deploy/bin/fanout-bench khop [--graph DIR] [--batch-size 512] [--fanout 15,10] [--seconds 5]
 * [--parallelism 1,2] [--job-rounds 3]} plus {@link BenchRecord#OPTIONS_USAGE}: every ratio is the median of paired,
 * alternated rounds ({@link PairedRounds}); the result goes to {@code deploy/bench-results/khop.json}.
 * {@code deploy/bin/fanout-bench ppr ...} runs {@link PprBench}. {@code --weights synthetic|column} adds the
 * weighted sampler to every core round (without and with replacement) and reports it against the uniform core
 * and refsampler.c (which is uniform), as {@code khop-weighted.json}: {@code column} uses the graph's weight column,
 * {@code synthetic} gives every stored edge a fixed pseudo-random weight 1..20 (for graphs without weights, such as
 * ego_twitter_u).
 */
public final class FanoutBench {
    private static final String USAGE = "usage: fanout-bench khop [--graph DIR] [--batch-size N] [--fanout 15,10] [--seconds S]"
                    + " [--parallelism 1,2] [--job-rounds 3] [--weights synthetic|column]\n"
                    + "       fanout-bench ppr [--graph DIR] [--alpha 0.15] [--eps 1e-4] [--max-ppr-nodes 50]"
                    + " [--batch-size N] [--seconds S] [--parallelism 1,2] [--job-rounds 3]\n"
                    + "       fanout-bench partitioned [--graph DIR | --scale 18 --edge-factor 16 | --edges N] [--fanout 10,5]"
                    + " [--batch-size 512] [--epochs 1] [--parallelism 1,2] [--stores memory,partitioned]\n"
                    + "       fanout-bench feed [--graph ../shared/data/cora] [--batch-size 512] [--fanout 15,10] [--epochs 5]"
                    + " [--dtypes float32,uint8]\n"
                    + "       every one also takes " + BenchRecord.OPTIONS_USAGE;

    private FanoutBench() {}

    public static void main(String[] args) throws Exception {
        boolean help = BenchRecord.wantsHelp(args);
        if (help || args.length == 0 || !(args[0].equals("khop") || args[0].equals("ppr")
                || args[0].equals("partitioned") || args[0].equals("feed"))) {
            (help ? System.out : System.err).println(USAGE);
            System.exit(help ? 0 : 2);
        }
        BenchRecord.requireValues(args, 1);
        Path root = Path.of(System.getProperty("fanout.root", ".")).toAbsolutePath().normalize();
        Path shared = root.resolve("../shared").normalize();
        if (args[0].equals("partitioned")) {
            PartitionedBench.run(args, root, shared);
            System.exit(0);
        }
        if (args[0].equals("ppr")) {
            PprBench.run(args, root, shared);
            System.exit(0);
        }
        if (args[0].equals("feed")) {
            FeedBench.run(args, root, shared);
            System.exit(0);
        }
        String graphArg = shared.resolve("data/ego_twitter_u").toString();
        int batchSize = 512;
        String fanout = "15,10";
        double seconds = 5;
        String parallelisms = "1,2";
        String weights = null;
        int jobRounds = JobRuns.ROUNDS;
        for (int i = 1; i + 1 < args.length; i += 2) {
            if (args[i].equals("--weights")) {
                weights = args[i + 1];
            }
        }
        BenchRecord record = new BenchRecord(weights == null ? "khop" : "khop-weighted", "deploy/bin/fanout-bench", args,
                root, 5, 1);
        for (int i = 1; i + 1 < args.length; i += 2) {
            if (record.option(args[i], args[i + 1])) {
                continue;
            }
            switch (args[i]) {
                case "--graph": graphArg = args[i + 1]; break;
                case "--batch-size": batchSize = Integer.parseInt(args[i + 1]); break;
                case "--fanout": fanout = args[i + 1]; break;
                case "--seconds": seconds = Double.parseDouble(args[i + 1]); break;
                case "--parallelism": parallelisms = args[i + 1]; break; // "" = core only
                case "--job-rounds": jobRounds = BenchRecord.positive(args[i], args[i + 1]); break;
                case "--weights": break;
                default: throw new IllegalArgumentException("unknown benchmark option " + args[i]);
            }
        }
        Path graphPath = Path.of(graphArg);
        Path workDir = root.resolve("deploy/target/bench");
        RefSampler ref = RefSampler.build(shared, workDir);
        Path plain = ref.edgeFileOf(graphPath);

        System.out.printf(Locale.ROOT, "k-hop benchmark: %s, batch %d, fanout [%s], %s s per measurement, %d warm-up +"
                + " %d rounds (jobs: %d), %d run(s), %d cores%n", graphPath.getFileName(), batchSize, fanout, seconds,
                record.warmup, record.rounds, jobRounds, record.repeat, Runtime.getRuntime().availableProcessors());
        record.details().put("graph", graphPath.getFileName().toString()).put("batch_size", batchSize)
                .put("fanout", fanout).put("seconds", seconds).put("parallelism", parallelisms)
                .put("job_rounds", jobRounds).put("weights", weights)
                .put("ref_huge_pages", ref.hugePages());
        System.out.println(ref.describe());

        CsrGraph graph = GraphLoader.load(graphPath, EdgeDirection.OUT);
        int[] fanouts = KHopSampler.parseFanouts(fanout);
        CsrGraph weightedGraph = weights == null ? null : weighted(graph, weights);
        AliasTable alias = weightedGraph == null ? null : AliasTable.build(weightedGraph);
        KHopSampler uniform = new KHopSampler(graph, fanouts, false);
        KHopSampler[] weightedSamplers = weightedGraph == null ? new KHopSampler[0] : new KHopSampler[] {
            weightedSampler(weightedGraph, alias, fanouts, false), weightedSampler(weightedGraph, alias, fanouts, true)};
        String[] refArgs = {"khop", plain.toString(), String.valueOf(batchSize), fanout, String.valueOf(seconds)};
        JobRuns.RefRound refRound = () -> Double.parseDouble(ref.run(refArgs).get("sampled_edges_per_s"));
        double runSeconds = seconds;
        int batch = batchSize;
        for (int run = 0; run < record.repeat; run++) {
            record.startRun(run);
            // 1+2. The C reference and the Java sampling core (and the weighted cores), single-threaded, on the same
            //      workload (batches of uniformly random seeds), in paired, alternated rounds.
            LinkedHashMap<String, PairedRounds.Side> sides = new LinkedHashMap<>();
            sides.put(REF, r -> Map.of(EDGES, refRound.run()));
            sides.put(CORE, r -> runCore(uniform, graph.numNodes(), batch, runSeconds, 2 + r).values());
            for (int m = 0; m < weightedSamplers.length; m++) {
                KHopSampler w = weightedSamplers[m];
                sides.put("weighted " + WEIGHTED_MODES[m], r -> runCore(w, graph.numNodes(), batch, runSeconds, 2 + r)
                        .values());
            }
            PairedRounds core = PairedRounds.run("core", record.warmup, record.rounds, sides, EDGES);
            double[] refRates = core.values(REF, EDGES);
            double[] coreRates = core.values(CORE, EDGES);
            record.add("core", "sampling core, 1 thread / refsampler.c", "sampled edges/s", REF, CORE, 1.2, refRates,
                    coreRates);
            for (String mode : WEIGHTED_MODES) {
                if (weightedSamplers.length == 0) {
                    break;
                }
                double[] w = core.values("weighted " + mode, EDGES);
                String id = "weighted_" + mode.replace(' ', '_');
                record.add(id + "_over_uniform", "weighted " + mode + " (" + weights + ") / uniform core",
                        "sampled edges/s", CORE, "weighted " + mode, null, coreRates, w);
                record.add(id + "_over_ref", "weighted " + mode + " (" + weights + ") / refsampler.c (uniform)",
                        "sampled edges/s", REF, "weighted " + mode, null, refRates, w);
            }

            // 3. The whole job in an embedded MiniCluster, offline output discarded: long enough (about 2x the
            //    reference's measurement time of work per core, so p times the epochs at parallelism p) that
            //    start-up is a small share of the time; paired with reference runs.
            Map<String, Double> lastCore = core.last(CORE);
            long batchesPerEpoch = (graph.numNodes() + batchSize - 1) / batchSize;
            int epochs = (int) Math.max(1, Math.ceil(2 * seconds * BenchRecord.median(refRates)
                    / (lastCore.get("edges_per_batch") * batchesPerEpoch)));
            record.details().put("job_epochs_at_p1", epochs);
            JobRuns.run(record, jobRounds, parallelisms, List.of("--graph", graphPath.toString(), "--batch-size",
                    String.valueOf(batchSize), "--fanout", fanout, "--shuffle"), epochs,
                    JobSummary::sampledEdgesPerSecond, "sampled edges/s", refRound, 0.8, 1.8);
        }
        record.write();
        BenchTables.updateReadme(root, record);
        System.exit(0);
    }

    private static final String REF = "refsampler.c";
    private static final String CORE = "fanout core";
    private static final String EDGES = "edges_per_s";

    private static final class CoreResult {
        long batches;
        long edges;
        double seconds;

        double edgesPerSecond() {
            return edges / seconds;
        }

        Map<String, Double> values() {
            return Map.of(EDGES, edgesPerSecond(), "edges_per_batch", edges / (double) batches);
        }
    }

    private static final String[] WEIGHTED_MODES = {"without replacement", "with replacement"};

    /** The graph with its own weights ({@code column}) or a fixed pseudo-random weight 1..20 per edge ({@code synthetic}). */
    private static CsrGraph weighted(CsrGraph graph, String weights) {
        switch (weights) {
            case "column":
                if (!graph.hasWeights()) {
                    throw new IllegalArgumentException("--weights column: the graph has no weight column");
                }
                return graph;
            case "synthetic":
                float[] w = new float[graph.numEdges()];
                for (int i = 0; i < w.length; i++) {
                    w[i] = 1 + SplitMix64.bounded(SplitMix64.mix(i), 20);
                }
                return new CsrGraph(graph.offsets(), graph.targets(), w, null, graph.direction());
            default:
                throw new IllegalArgumentException("--weights must be synthetic or column, got " + weights);
        }
    }

    private static KHopSampler weightedSampler(CsrGraph graph, AliasTable alias, int[] fanouts, boolean replace) {
        return new KHopSampler(graph, NodeIdMap.identity(graph.numNodes()), fanouts, replace, false,
                new WeightedDraws(graph.weights(), alias));
    }

    /** Samples batches of uniformly random seeds (as refsampler does) for about the given time. */
    private static CoreResult runCore(KHopSampler sampler, int numNodes, int batchSize, double seconds, long rngSeed) {
        SplitMix64 rng = new SplitMix64(rngSeed);
        int[] seeds = new int[batchSize];
        CoreResult r = new CoreResult();
        long start = System.nanoTime();
        long deadline = start + (long) (seconds * 1e9);
        int batchId = 0;
        long now;
        do {
            for (int rep = 0; rep < 16; rep++) {
                for (int i = 0; i < batchSize; i++) {
                    seeds[i] = rng.nextInt(numNodes);
                }
                SampledSubgraph sub = sampler.sampleShared(seeds, rngSeed, 0, batchId++);
                r.edges += sub.numEdges();
                r.batches++;
            }
            now = System.nanoTime();
        } while (now < deadline);
        r.seconds = (now - start) / 1e9;
        return r;
    }
}
