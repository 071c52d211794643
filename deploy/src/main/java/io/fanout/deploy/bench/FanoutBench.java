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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Throughput benchmark (not a test): Fanout's sampling core and whole job against
 * ../shared/bench/refsampler.c, run as a child process in the same run, printed as ratios.
 *
 * <p>{@code deploy/bin/fanout-bench khop [--graph DIR] [--batch-size 512] [--fanout 15,10] [--seconds 5]
 * [--parallelism 1,2]}; results also go to {@code deploy/target/bench/khop-<graph>-b<batch>-f<fanout>.json}.
 * {@code deploy/bin/fanout-bench ppr ...} runs {@link PprBench}. {@code --weights synthetic|column} adds the
 * weighted sampler to every core round (without and with replacement) and reports it against the uniform core
 * and refsampler.c (which is uniform): {@code column} uses the graph's weight column, {@code synthetic} gives
 * every stored edge a fixed pseudo-random weight 1..20 (for graphs without weights, such as ego_twitter_u).
 */
public final class FanoutBench {
    private static final int ROUNDS = 5;

    private FanoutBench() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !(args[0].equals("khop") || args[0].equals("ppr") || args[0].equals("partitioned"))) {
            System.err.println("usage: fanout-bench khop [--graph DIR] [--batch-size N] [--fanout 15,10] [--seconds S]"
                    + " [--parallelism 1,2] [--weights synthetic|column]\n"
                    + "       fanout-bench ppr [--graph DIR] [--alpha 0.15] [--eps 1e-4] [--max-ppr-nodes 50]"
                    + " [--batch-size N] [--seconds S] [--parallelism 1,2]\n"
                    + "       fanout-bench partitioned [--graph DIR | --scale 18 --edge-factor 16 | --edges N] [--fanout 10,5]"
                    + " [--batch-size 512] [--epochs 1] [--parallelism 1,2] [--stores memory,partitioned]");
            System.exit(2);
        }
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
        String graphArg = shared.resolve("data/ego_twitter_u").toString();
        int batchSize = 512;
        String fanout = "15,10";
        double seconds = 5;
        String parallelisms = "1,2";
        String weights = null;
        for (int i = 1; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--graph": graphArg = args[i + 1]; break;
                case "--batch-size": batchSize = Integer.parseInt(args[i + 1]); break;
                case "--fanout": fanout = args[i + 1]; break;
                case "--seconds": seconds = Double.parseDouble(args[i + 1]); break;
                case "--parallelism": parallelisms = args[i + 1]; break; // "" = core only
                case "--weights": weights = args[i + 1]; break;
                default: throw new IllegalArgumentException("unknown benchmark option " + args[i]);
            }
        }
        Path graphPath = Path.of(graphArg);
        Path workDir = root.resolve("deploy/target/bench");
        RefSampler ref = RefSampler.build(shared, workDir);
        Path plain = ref.edgeFileOf(graphPath);

        System.out.printf(Locale.ROOT, "k-hop benchmark: %s, batch %d, fanout [%s], %.0f s per measurement, %d cores%n",
                graphPath.getFileName(), batchSize, fanout, seconds, Runtime.getRuntime().availableProcessors());

        // 1+2. The C reference and the Java sampling core, single-threaded, on the same workload (batches
        //      of uniformly random seeds), alternated for several rounds so that drift of this shared
        //      machine hits both alike; the median ratio is the result.
        CsrGraph graph = GraphLoader.load(graphPath, EdgeDirection.OUT);
        int[] fanouts = KHopSampler.parseFanouts(fanout);
        CsrGraph weightedGraph = weights == null ? null : weighted(graph, weights);
        AliasTable alias = weightedGraph == null ? null : AliasTable.build(weightedGraph);
        KHopSampler uniform = new KHopSampler(graph, fanouts, false);
        KHopSampler[] weightedSamplers = weightedGraph == null ? new KHopSampler[0] : new KHopSampler[] {
            weightedSampler(weightedGraph, alias, fanouts, false), weightedSampler(weightedGraph, alias, fanouts, true)};
        runCore(uniform, graph.numNodes(), batchSize, Math.min(3, seconds), 1); // JIT warm-up
        for (KHopSampler w : weightedSamplers) {
            runCore(w, graph.numNodes(), batchSize, Math.min(3, seconds), 1);
        }
        double[] ratios = new double[ROUNDS];
        double[] refRates = new double[ROUNDS];
        double[] coreRates = new double[ROUNDS];
        // Per weighted mode (without, with replacement): edges/s over the uniform core's and over refsampler's.
        double[][] overUniform = new double[weightedSamplers.length][ROUNDS];
        double[][] overRef = new double[weightedSamplers.length][ROUNDS];
        CoreResult core = null;
        // One reference run: its sampled edges/s. The core rounds and the whole-job rounds both use it.
        String[] refArgs = {"khop", plain.toString(), String.valueOf(batchSize), fanout, String.valueOf(seconds)};
        JobRuns.RefRound refRound = () -> Double.parseDouble(ref.run(refArgs).get("sampled_edges_per_s"));
        for (int round = 0; round < ROUNDS; round++) {
            double roundRef = refRound.run();
            CoreResult roundCore = runCore(uniform, graph.numNodes(), batchSize, seconds, 2 + round);
            ratios[round] = roundCore.edgesPerSecond() / roundRef;
            refRates[round] = roundRef;
            coreRates[round] = roundCore.edgesPerSecond();
            System.out.printf(Locale.ROOT, "  round %d: refsampler.c %,14.0f  fanout core %,14.0f sampled edges/s  ratio %.2fx%n",
                    round + 1, roundRef, roundCore.edgesPerSecond(), ratios[round]);
            core = roundCore;
            for (int m = 0; m < weightedSamplers.length; m++) {
                CoreResult w = runCore(weightedSamplers[m], graph.numNodes(), batchSize, seconds, 2 + round);
                overUniform[m][round] = w.edgesPerSecond() / roundCore.edgesPerSecond();
                overRef[m][round] = w.edgesPerSecond() / roundRef;
                System.out.printf(Locale.ROOT, "           weighted %-19s %,14.0f sampled edges/s  %.2fx of uniform, %.2fx of"
                        + " refsampler%n", WEIGHTED_MODES[m], w.edgesPerSecond(), overUniform[m][round], overRef[m][round]);
            }
        }
        StringBuilder weightedJson = new StringBuilder();
        for (int m = 0; m < weightedSamplers.length; m++) {
            System.out.printf(Locale.ROOT, "  weighted %s (%s weights): median %.2fx of the uniform core, %.2fx of"
                    + " refsampler.c (uniform)%n", WEIGHTED_MODES[m], weights, JobRuns.median(overUniform[m]),
                    JobRuns.median(overRef[m]));
            weightedJson.append(String.format(Locale.ROOT, ",\"weighted_%s\":{\"weights\":\"%s\",\"over_uniform\":%.4f,"
                    + "\"over_ref\":%.4f}", WEIGHTED_MODES[m].replace(' ', '_'), weights, JobRuns.median(overUniform[m]),
                    JobRuns.median(overRef[m])));
        }
        double coreRatio = JobRuns.median(ratios);
        double refRate = JobRuns.median(refRates);
        double coreRate = JobRuns.median(coreRates);
        System.out.printf(Locale.ROOT, "  fanout core (1 thread) median ratio %.2fx over %d rounds  (target >= 0.80x)%n",
                coreRatio, ROUNDS);

        // 3. The whole job in an embedded MiniCluster, offline output discarded: long enough (about 2x the
        //    reference's measurement time of work per core, so p times the epochs at parallelism p) that
        //    start-up is a small share of the time; each run right after a reference run.
        double edgesPerBatch = core.edges / (double) core.batches;
        long batchesPerEpoch = (graph.numNodes() + batchSize - 1) / batchSize;
        int epochs = (int) Math.max(1, Math.ceil(2 * seconds * refRate / (edgesPerBatch * batchesPerEpoch)));
        String jobsJson = JobRuns.run(parallelisms, List.of("--graph", graphPath.toString(), "--batch-size",
                String.valueOf(batchSize), "--fanout", fanout, "--shuffle"), epochs,
                JobSummary::sampledEdgesPerSecond, "edges", refRound, 0.5);
        String json = String.format(Locale.ROOT, "{\"benchmark\":\"khop\",\"graph\":\"%s\",\"batch_size\":%d,\"fanout\":\"%s\","
                + "\"cores\":%d,\"ref_edges_per_s\":%.1f,\"core_edges_per_s\":%.1f,\"core_ratio\":%.4f%s,\"jobs\":%s}%n",
                graphPath.getFileName(), batchSize, fanout, Runtime.getRuntime().availableProcessors(), refRate,
                coreRate, coreRatio, weightedJson, jobsJson);
        Files.createDirectories(workDir);
        // One file per configuration, so sweeps over graphs and fanouts keep every result.
        Path results = workDir.resolve(String.format(Locale.ROOT, "khop-%s-b%d-f%s%s.json", graphPath.getFileName(),
                batchSize, fanout.replace(',', '_'), weights == null ? "" : "-w" + weights));
        Files.writeString(results, json, StandardCharsets.UTF_8);
        System.out.println("  results: " + results);
        System.exit(0);
    }

    private static final class CoreResult {
        long batches;
        long edges;
        double seconds;

        double edgesPerSecond() {
            return edges / seconds;
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
