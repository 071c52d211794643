package io.fanout.deploy.bench;

import io.fanout.config.FanoutJobConfig;
import io.fanout.deploy.generate.RmatGenerator;
import io.fanout.job.FanoutJob;
import io.fanout.job.JobSummary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * Benchmark (not a test) of {@code --store partitioned} against {@code --store memory} in the same run, whole
 * jobs in the embedded MiniCluster, at each parallelism: sampled edges/s, load rate (edge rows/s to the first
 * message) and RocksDB checkpoint bytes per stored edge (the checkpoints' recorded state size), recorded as
 * measurements with issue 28's goals; k-hop, or PPR with {@code --job-args "--sampler ppr"}.
 *
 * <p>{@code deploy/bin/fanout-bench partitioned [--graph DIR | --scale 18 --edge-factor 16 | --edges N]
 * [--fanout 10,5] [--batch-size 512] [--epochs 1] [--parallelism 1,2] [--stores memory,partitioned,partitioned-heap]
 * [--checkpoint-interval 10s] [--managed-mb 1024] [--job-args "-D key=value ..."]} plus
 * {@link BenchRecord#OPTIONS_USAGE} (here 3 rounds and no warm-up round on the graph by default). {@code --job-args}:
 * more job arguments for every job, e.g. RocksDB settings. {@code --managed-mb}: the MiniCluster TaskManager's managed memory,
 * which is RocksDB's block cache and write buffers (Flink's local default is 128 MB, a small fraction of a real
 * TaskManager's; the memory store uses none of it). Without {@code --graph} it generates an R-MAT graph (seed 1,
 * 8 parts) into {@code deploy/target/bench/rmat-*}, once. The result goes to
 * {@code deploy/bench-results/partitioned.json} ({@code partitioned-ppr.json} for PPR; for a typed graph, given with
 * its {@code --seed-type} in {@code --job-args}, {@code deploy/bench-results/typed/partitioned-typed.json} and
 * {@code partitioned-typed-ppr.json}, without goals and out of the README's tables: issue 28's are the plain graphs').
 *
 * <p>Per store and parallelism, one job per round (every node a seed, {@code --epochs} shuffled epochs, output
 * discarded), the stores in paired, alternated rounds ({@link PairedRounds}): every partitioned store samples the same
 * epochs right after its own load (with one epoch, the cold one), the memory store a multiple of them, enough for a
 * sampling window of {@link #MEMORY_WINDOW_S} (fixed per parallelism by up to two calibration jobs before the
 * rounds), and each store's ratio to the memory store is the median of the per-round ratios. Every store first runs
 * once on a small R-MAT graph (class loading and JIT). Load
 * time is from submission to the first message (Flink's start-up, under half a second once a JVM has run a job, the load, one batch). Sampled
 * edges/s = the sampled edges / the sampling window (first to last message,
 * {@link JobSummary#samplingWindowSeconds}), so the stores are compared on sampling alone, without start-up or their
 * very different load times. A window shorter than {@link #MIN_WINDOW_S} is flagged as coarse.
 */
final class PartitionedBench {
    /** Shortest sampling window (first to last message) timed well; a shorter one is flagged. */
    static final double MIN_WINDOW_S = 4.0;
    /** The memory store's sampling window the bench aims at: it runs more epochs than the others until it has it. */
    static final double MEMORY_WINDOW_S = 6.0;

    private PartitionedBench() {}

    static void run(String[] args, Path root, Path shared) throws Exception {
        String graphArg = null;
        int scale = 18;
        int edgeFactor = 16;
        long edges = -1;
        String fanout = "10,5";
        int batchSize = 512;
        int epochs = 1;
        String parallelisms = "1,2";
        String stores = "memory,partitioned,partitioned-heap";
        List<String> jobArgs = new ArrayList<>();
        String checkpointInterval = "10s";
        int managedMb = 1024;
        // PPR's result is its own file (partitioned-ppr.json), beside k-hop's rather than in place of it; a typed
        // graph's too (partitioned-typed.json, partitioned-typed-ppr.json): issue 28's goals are the plain graphs'.
        boolean pprArgs = false;
        boolean typedGraph = false;
        for (int i = 1; i + 1 < args.length; i += 2) {
            pprArgs |= args[i].equals("--job-args") && args[i + 1].matches(".*--sampler\\s+ppr\\b.*");
            typedGraph |= args[i].equals("--graph") && io.fanout.graph.typed.TypedGraphFiles.isTyped(Path.of(args[i + 1]));
        }
        BenchRecord record = new BenchRecord("partitioned" + (typedGraph ? "-typed" : "") + (pprArgs ? "-ppr" : ""),
                "deploy/bin/fanout-bench", args, root, 3, 0);
        if (typedGraph) { // kept out of the README's tables (issue 28's benchmarks), unless --results says otherwise
            record.resultsDir = root.resolve("deploy/bench-results/typed");
        }
        for (int i = 1; i + 1 < args.length; i += 2) {
            if (record.option(args[i], args[i + 1])) {
                continue;
            }
            switch (args[i]) {
                case "--graph": graphArg = args[i + 1]; break;
                case "--scale": scale = Integer.parseInt(args[i + 1]); break;
                case "--edge-factor": edgeFactor = Integer.parseInt(args[i + 1]); break;
                case "--edges": edges = RmatGenerator.parseCount(args[i + 1]); break;
                case "--fanout": fanout = args[i + 1]; break;
                case "--batch-size": batchSize = Integer.parseInt(args[i + 1]); break;
                case "--epochs": epochs = Integer.parseInt(args[i + 1]); break;
                case "--parallelism": parallelisms = args[i + 1]; break;
                case "--stores": stores = args[i + 1]; break;
                case "--checkpoint-interval": checkpointInterval = args[i + 1]; break;
                case "--managed-mb": managedMb = Integer.parseInt(args[i + 1]); break;
                case "--job-args": jobArgs.addAll(List.of(args[i + 1].trim().split("\\s+"))); break;
                default: throw new IllegalArgumentException("unknown benchmark option " + args[i]);
            }
        }
        Path workDir = root.resolve("deploy/target/bench");
        Path graph = graphArg != null ? Path.of(graphArg) : generated(workDir, scale, edgeFactor, edges);
        int hops = fanout.split(",").length;
        String heap = heapDescription();
        System.out.printf(Locale.ROOT, "partitioned-store benchmark: %s, fanout [%s], batch %d, %d epoch(s), %d cores,"
                + " %s, %,d MB managed memory (RocksDB)%n", graph, fanout, batchSize, epochs,
                Runtime.getRuntime().availableProcessors(), heap, managedMb);
        jobArgs.addAll(0, List.of("-D", "taskmanager.memory.managed.size=" + managedMb + "m"));
        int samplerAt = jobArgs.indexOf("--sampler");
        boolean ppr = samplerAt >= 0 && samplerAt + 1 < jobArgs.size() && jobArgs.get(samplerAt + 1).equals("ppr");
        long rows = edgeRows(graph);

        // Warm-up: the first job of a JVM pays class loading and JIT (about 10 s here), which would count as load.
        // A checkpoint directory always: the default (JobManager) checkpoint storage refuses state over 5 MB, so a
        // partitioned job of a larger graph would never complete a checkpoint, and a finishing job waits for one.
        // On a small R-MAT graph (2^12 ids), so a large graph is not loaded once more just to warm up; with the
        // measured jobs' own arguments (their sampler) and every node a seed for WARMUP_EPOCHS epochs, so each store's
        // sampling code is compiled before it is timed: the memory store's calibration jobs warm its code anyway, and
        // a partitioned store warmed by one k-hop seed measured its first PPR round before PPR's code had run at all.
        // A typed graph's options (--seed-type, --ppr-channels) are refused on a plain one, a node file's ids are the
        // measured graph's, and the generated graph has no weight or time column: then it warms up on the graph itself.
        boolean ownWarmup = typedGraph || jobArgs.contains("--node-features") || jobArgs.contains("--weight-column")
                || jobArgs.contains("--time-column");
        Path warmupGraph = ownWarmup ? graph : generated(workDir, 12, 8, -1);
        Path warmup = workDir.resolve("checkpoints-warmup");
        List<String> storeList = Stream.of(stores.split(",")).map(String::trim).toList();
        for (String store : storeList) { // every store alike, so no side is measured before its own warm-up
            List<String> warm = new ArrayList<>(List.of("--graph", warmupGraph.toString(), "--store",
                    backendStore(store), "--state-backend", stateBackend(store), "--parallelism", "1",
                    "--checkpoint-interval", "2s", "--checkpoint-dir", warmup.toUri().toString()));
            if (!ppr) { // PPR refuses k-hop's fanouts
                warm.addAll(List.of("--fanout", fanout));
            }
            // Seeds of the measured graph need not exist in the small one.
            warm.addAll(ownWarmup ? jobArgs : withoutSeeds(jobArgs));
            job(warm, "--epochs", String.valueOf(WARMUP_EPOCHS));
        }
        deleteTree(warmup);
        List<Row> table = new ArrayList<>();
        // Every partitioned store samples the same epochs: epochs 1..E of a job that has just loaded the graph (E =
        // --epochs; with the default 1, the first, cold epoch). The memory store, which has nothing to warm, runs a
        // multiple of E, enough for a window of MEMORY_WINDOW_S (memoryEpochs).
        String compared = (epochs == 1 ? "the first epoch after the load (cold) of each partitioned store"
                : "epochs 1-" + epochs + " after the load of each partitioned store (the first one cold)")
                + ", the memory store's epochs for a window of about " + (int) MEMORY_WINDOW_S + " s";
        // Relative to the checkout when inside it (a generated R-MAT graph), so the committed file names no local path.
        record.details().put("graph", graph.toAbsolutePath().startsWith(root) ? root.relativize(graph.toAbsolutePath())
                .toString() : graph.toString()).put("edge_rows", rows).put("fanout", fanout)
                .put("batch_size", batchSize).put("epochs", epochs).put("compared", compared).put("managed_mb", managedMb)
                .put("heap", heap).put("stores", stores).put("parallelism", parallelisms);
        Setup setup = new Setup(workDir, graph, batchSize, fanout, ppr, checkpointInterval, List.copyOf(jobArgs), epochs);
        // The partitioned store's summary counts no stored edges: its bytes per edge use the memory store's count.
        AtomicLong storedEdges = new AtomicLong();
        for (int run = 0; run < record.repeat; run++) {
            record.startRun(run);
            for (String ps : parallelisms.split(",")) {
                int p = Integer.parseInt(ps.trim());
                int memoryEpochs = storeList.contains("memory") && !storeList.equals(List.of("memory"))
                        ? memoryEpochs(setup, p, storedEdges) : setup.epochs();
                record.details().put("memory_epochs_p" + p, memoryEpochs);
                LinkedHashMap<String, PairedRounds.Side> sides = new LinkedHashMap<>();
                for (String store : storeList) {
                    sides.put(store, round -> {
                        Row r = measure(setup, store, p, store.equals("memory") ? memoryEpochs : setup.epochs());
                        if (store.equals("memory")) {
                            storedEdges.set(r.storedEdges);
                        } else if (storedEdges.get() > 0) {
                            r.storedEdges = storedEdges.get();
                        }
                        System.out.println("    " + r.line(rows, hops));
                        if (round >= 0) {
                            table.add(r);
                        }
                        return Map.of(RATE, r.samplingRate(), LOAD_RATE, rows / r.loadSeconds, STORED,
                                (double) r.storedEdges, CHECKPOINT, (double) r.checkpointStateBytes());
                    });
                }
                PairedRounds result = PairedRounds.run("p=" + p + " (sampled edges/s)", record.warmup, record.rounds,
                        sides, RATE);
                if (!storeList.contains("memory")) {
                    continue;
                }
                for (String store : storeList) {
                    if (!store.equals("memory")) {
                        record(record, result, store, p, compared, ppr, typedGraph);
                    }
                }
            }
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "%s: %,d edge rows, fanout [%s] (%d hops: the partitioned store keeps %d copies"
                + " of the adjacency); compared: %s%n", graph.getFileName(), rows, fanout, hops, hops, compared);
        System.out.println("| store | p | load s (to 1st message) | load rate (rows/s, incl. start-up) | epochs | sampling window s"
                + " | sampled edges/s | checkpoint bytes / stored edge |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        var rowsJson = record.details().putArray("rows");
        for (Row r : table) {
            System.out.println(r.markdown(rows));
            rowsJson.addRawValue(new com.fasterxml.jackson.databind.util.RawValue(r.json(rows)));
        }
        record.write();
        BenchTables.updateReadme(root, record);
    }

    private static final String RATE = "sampled_edges_per_s";
    private static final String LOAD_RATE = "load_rows_per_s";
    private static final String STORED = "stored_edges";
    private static final String CHECKPOINT = "checkpoint_bytes";

    /**
     * One store's measurements against the memory store (issue 28's goals): sampled edges/s (k-hop: >= 0.3x with
     * RocksDB, >= 0.5x on the heap; PPR, ids prefixed {@code ppr-}: >= 0.2x), the load rate (rows/s to the first
     * message, >= 0.5x) and, for k-hop on RocksDB, checkpoint bytes per stored edge (both hop copies, <= 10).
     */
    private static void record(BenchRecord record, PairedRounds result, String store, int p,
            String compared, boolean ppr, boolean typed) {
        boolean heap = store.equals("partitioned-heap");
        String id = (typed ? "typed-" : "") + (ppr ? "ppr-" : "") + store;
        String sampler = (typed ? "typed " : "") + (ppr ? "PPR, " : typed ? "k-hop, " : "");
        record.add(id + "_p" + p, "--store " + store + " / memory, " + sampler + "p=" + p + ", " + compared,
                "sampled edges/s", "memory", store, typed ? null : ppr ? 0.2 : heap ? 0.5 : 0.3,
                result.values("memory", RATE), result.values(store, RATE));
        record.add(id + "_load_p" + p, "--store " + store + " / memory, " + sampler + "p=" + p
                + ", load rate (edge rows/s, submission to the first message)", "edge rows/s", "memory", store,
                typed ? null : 0.5, result.values("memory", LOAD_RATE), result.values(store, LOAD_RATE));
        // RocksDB's only (the heap backend's is printed and in the details): a PPR checkpoint also holds the open
        // batches' pushes, so its size is not the graph's.
        if (!ppr && !heap) {
            record.add(id + "_bytes_p" + p, "--store " + store + ", " + sampler + "p=" + p
                    + ": checkpoint bytes per stored edge (" + (typed ? "every (edge type, hop) copy" : "both hop copies")
                    + "; lower is better)", "bytes/stored edge", "stored edges", "checkpoint bytes", typed ? null : 10.0,
                    true, result.values(store, STORED), result.values(store, CHECKPOINT));
        }
    }

    /**
     * The memory store's epochs at parallelism {@code p}: {@code --epochs} times the smallest whole factor that makes
     * its sampling window about {@link #MEMORY_WINDOW_S} (its rate is timed as the first jobs ran), from up to two
     * calibration jobs (discarded).
     * The memory store samples R-MAT 2^18's five epochs in under a second, where the start and end of a window
     * (first and last message) weigh as much as the epochs; the partitioned stores sample for several seconds. It
     * keeps no cache that warms over epochs (its graph is on the heap from the load on), so its later epochs sample
     * as its first ones. The factor is fixed before the paired rounds, so every round runs the same jobs.
     */
    private static int memoryEpochs(Setup setup, int p, AtomicLong storedEdges) throws Exception {
        int factor = 1;
        // Twice: the first job's window is stretched by its JIT, so the second, at the first one's factor, corrects it.
        for (int step = 0; step < 2; step++) {
            Row calibration = measure(setup, "memory", p, factor * setup.epochs());
            storedEdges.set(calibration.storedEdges); // known before any partitioned store's first job, warm-up included
            double window = Math.max(calibration.windowSeconds, 0.05);
            if (window >= MEMORY_WINDOW_S) {
                break;
            }
            factor = (int) Math.min(64, Math.ceil(factor * MEMORY_WINDOW_S / window));
            System.out.printf(Locale.ROOT, "  p=%d: the memory store sampled %d epoch(s) in %.2f s: %d epochs next%n",
                    p, calibration.epochs, window, factor * setup.epochs());
        }
        System.out.printf(Locale.ROOT, "  p=%d: the memory store runs %d epochs a round (for a window of about %.0f s)%n",
                p, factor * setup.epochs(), MEMORY_WINDOW_S);
        return factor * setup.epochs();
    }

    /** partitioned-heap: the partitioned store on Flink's heap keyed-state backend (--state-backend hashmap). */
    private static String backendStore(String store) {
        return store.equals("partitioned-heap") ? "partitioned" : store;
    }

    private static String stateBackend(String store) {
        return store.equals("partitioned-heap") ? "hashmap" : "rocksdb";
    }

    /** What every job of a run shares. */
    private record Setup(Path workDir, Path graph, int batchSize, String fanout, boolean ppr, String checkpointInterval,
            List<String> jobArgs, int epochs) {}

    /**
     * One job of one store: every node a seed (unless the job arguments give seeds), {@code epochs} shuffled epochs,
     * output discarded; the checkpoint directory's size is polled while it runs.
     */
    private static Row measure(Setup setup, String store, int p, int epochs) throws Exception {
        Row r = new Row(store, p);
        Path checkpoints = setup.workDir().resolve("checkpoints-" + store + "-p" + p);
        deleteTree(checkpoints);
        List<String> common = new ArrayList<>(List.of("--graph", setup.graph().toString(), "--store",
                backendStore(store), "--state-backend", stateBackend(store),
                "--batch-size", String.valueOf(setup.batchSize()), "--parallelism",
                String.valueOf(p), "--checkpoint-interval", setup.checkpointInterval(), "--checkpoint-dir",
                checkpoints.toUri().toString()));
        if (!setup.ppr()) { // PPR refuses k-hop's fanouts
            common.addAll(List.of("--fanout", setup.fanout()));
        }
        common.addAll(setup.jobArgs());
        DirectorySize size = new DirectorySize(checkpoints);
        size.start();
        JobSummary sample;
        try {
            // Every job starts on a collected heap, as a fresh TaskManager would: the previous job's graph (heap
            // backend: hundreds of MB of dead keyed state in the old generation) otherwise lands its collection in
            // the next job's load (G1 young pauses of 60-76 ms and a mixed cycle during some 1.4 s loads; heap
            // backend loads 0.9-1.6 s, 0.9-1.1 s with this). Before both stores' jobs, outside the timing.
            System.gc();
            long submitted = System.currentTimeMillis();
            sample = job(common, "--epochs", String.valueOf(epochs), "--shuffle");
            // Load = submission to the first message: start-up, the load, one batch.
            r.loadSeconds = (sample.firstMessageMs - submitted) / 1e3;
        } finally {
            size.finish();
        }
        if (sample.samplingWindowSeconds < MIN_WINDOW_S) {
            System.out.printf(Locale.ROOT, "    warning: %s p=%d sampled for %.2f s only (under %.0f s: coarse timing);"
                    + " a larger graph, more seeds or more --epochs (for every store alike) time it better%n", store, p,
                    sample.samplingWindowSeconds, MIN_WINDOW_S);
        }
        r.epochs = epochs;
        r.sampleSeconds = sample.seconds;
        r.windowSeconds = sample.samplingWindowSeconds;
        r.windowRate = sample.windowSampledEdgesPerSecond();
        if (sample.headCacheHits + sample.headCacheMisses > 0) {
            r.cacheHitRate = (double) sample.headCacheHits / (sample.headCacheHits + sample.headCacheMisses);
        }
        r.compactionSeconds = sample.loadCompactionMs / 1e3;
        r.sampledEdges = sample.sampledEdges;
        r.batches = sample.batches;
        r.storedEdges = sample.graphEdges;
        r.heapBytes = sample.graphHeapBytes;
        r.checkpointBytes = size.last.get();
        r.checkpointMaxBytes = size.max.get();
        r.checkpointStateBytes = size.graphStateBytes(sample.firstMessageMs, store);
        deleteTree(checkpoints);
        return r;
    }

    /** One store at one parallelism. */
    private static final class Row {
        final String store;
        final int parallelism;
        double loadSeconds;
        double sampleSeconds;
        int epochs;
        double windowSeconds;
        double windowRate;
        /** Share of node lookups the partitioned store's cache answered (k-hop heads, PPR lists), NaN for the memory store. */
        double cacheHitRate = Double.NaN;
        /** Partitioned store: seconds compacting the loaded adjacency (part of the load), summed over subtasks. */
        double compactionSeconds;
        long sampledEdges;
        long batches;
        long storedEdges;
        long heapBytes;
        long checkpointBytes;
        long checkpointMaxBytes;
        /** The loaded graph's checkpoint state size from the checkpoints' metadata (-1: none read). */
        long checkpointStateBytes;

        Row(String store, int parallelism) {
            this.store = store;
            this.parallelism = parallelism;
        }

        double samplingRate() {
            return windowRate;
        }

        /** The checkpoint's bytes: its recorded state size, or the directory's size where no metadata was read. */
        long checkpointStateBytes() {
            return checkpointStateBytes >= 0 ? checkpointStateBytes : checkpointBytes;
        }

        double bytesPerStoredEdge() {
            return storedEdges > 0 ? (double) checkpointStateBytes() / storedEdges : Double.NaN;
        }

        String line(long rows, int hops) {
            return String.format(Locale.ROOT, "%-11s p=%d: load %.1f s (%,.0f rows/s)  sampling job %.1f s, %d epochs,"
                    + " %,d batches, %,d sampled edges, window %.2f s -> %,.0f sampled edges/s%s  checkpoint dir %,d"
                    + " bytes (max %,d), checkpoint state %,d bytes = %.1f bytes per stored edge%s", store, parallelism, loadSeconds,
                    rows / loadSeconds, sampleSeconds, epochs, batches, sampledEdges, windowSeconds, samplingRate(),
                    (Double.isNaN(cacheHitRate) ? "" : String.format(Locale.ROOT, ", lookup cache hits %.1f %%",
                            100 * cacheHitRate))
                            + (compactionSeconds > 0 ? String.format(Locale.ROOT, ", compaction %.1f s (summed over"
                            + " lookup subtasks)", compactionSeconds) : ""), checkpointBytes,
                    checkpointMaxBytes, checkpointStateBytes(), bytesPerStoredEdge(),
                    heapBytes > 0 ? String.format(Locale.ROOT, "  graph heap %,d bytes", heapBytes) : "");
        }

        String markdown(long rows) {
            return String.format(Locale.ROOT, "| %s | %d | %.1f | %,.0f | %d | %.2f | %,.0f | %s |", store,
                    parallelism, loadSeconds, rows / loadSeconds, epochs, windowSeconds, samplingRate(),
                    store.equals("memory") ? "- (heap " + String.format(Locale.ROOT, "%.1f", heapBytes / (double) storedEdges)
                            + " B/edge)" : String.format(Locale.ROOT, "%.1f", bytesPerStoredEdge()));
        }

        String json(long rows) {
            return String.format(Locale.ROOT, "{\"store\":\"%s\",\"parallelism\":%d,\"load_seconds\":%.3f,"
                    + "\"load_rows_per_s\":%.1f,\"sampling_seconds\":%.3f,\"epochs\":%d,\"window_seconds\":%.3f,\"sampled_edges\":%d,\"batches\":%d,"
                    + "\"sampled_edges_per_s\":%.1f,\"head_cache_hit_rate\":%s,\"compaction_seconds\":%.3f,\"stored_edges\":%d,\"graph_heap_bytes\":%d,"
                    + "\"checkpoint_bytes\":%d,\"checkpoint_max_bytes\":%d,\"checkpoint_state_bytes\":%d}", store,
                    parallelism, loadSeconds,
                    rows / loadSeconds, sampleSeconds, epochs, windowSeconds, sampledEdges, batches, samplingRate(),
                    Double.isNaN(cacheHitRate) ? "null" : String.format(Locale.ROOT, "%.4f", cacheHitRate),
                    compactionSeconds, storedEdges, heapBytes,
                    checkpointBytes, checkpointMaxBytes, checkpointStateBytes);
        }
    }

    private static JobSummary job(List<String> common, String... extra) throws Exception {
        List<String> all = new ArrayList<>(common);
        all.addAll(List.of(extra));
        return FanoutJob.run(FanoutJobConfig.from(FanoutJob.commandLine().parse(all.toArray(new String[0])).configuration));
    }

    /**
     * This JVM's heap as the jobs get it: its maximum, and whether it was committed whole and touched at start
     * (deploy/bin/fanout-bench does that where the machine has the memory; see docs/benchmarks.md).
     */
    private static String heapDescription() {
        List<String> args = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();
        boolean preTouched = args.contains("-XX:+AlwaysPreTouch");
        long initial = java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getInit();
        long max = Runtime.getRuntime().maxMemory();
        return String.format(Locale.ROOT, "%,d MB max heap (%s)", max >> 20, preTouched && initial >= max
                ? "committed and touched at start" : "grown as needed");
    }

    /** Epochs of the warm-up job of each store (every node of the small R-MAT graph a seed: 8 batches of 512). */
    private static final int WARMUP_EPOCHS = 3;

    /** The job arguments without a {@code --seeds FILE} pair. */
    private static List<String> withoutSeeds(List<String> jobArgs) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < jobArgs.size(); i++) {
            if (jobArgs.get(i).equals("--seeds") && i + 1 < jobArgs.size()) {
                i++;
            } else {
                out.add(jobArgs.get(i));
            }
        }
        return out;
    }

    /** The R-MAT graph of these sizes under workDir, generated on first use (seed 1, 8 parts). */
    private static Path generated(Path workDir, int scale, int edgeFactor, long edges) throws Exception {
        RmatGenerator.Spec spec = new RmatGenerator.Spec();
        spec.scale = scale;
        spec.edgeFactor = edgeFactor;
        spec.edges = edges;
        Path dir = workDir.resolve(edges >= 0 ? String.format(Locale.ROOT, "rmat-s%d-n%d", scale, edges)
                : String.format(Locale.ROOT, "rmat-s%d-e%d", scale, edgeFactor));
        Path done = dir.resolve(".complete");
        if (!Files.exists(done)) {
            deleteTree(dir);
            long start = System.nanoTime();
            long rows = new RmatGenerator(spec).writeParts(dir, Runtime.getRuntime().availableProcessors());
            double s = (System.nanoTime() - start) / 1e9;
            System.out.printf(Locale.ROOT, "generated %,d R-MAT edges into %s in %.1f s (%,.0f edges/s)%n", rows, dir, s,
                    rows / s);
            Files.writeString(done, "");
        }
        return dir;
    }

    /**
     * Edge rows of a graph (a typed graph's: of every edge type's file): the headers' num_edges when every part
     * declares it, else a count of data lines.
     */
    static long edgeRows(Path graph) throws IOException {
        long rows = 0;
        List<Path> parts = io.fanout.graph.typed.TypedGraphFiles.isTyped(graph)
                ? List.copyOf(io.fanout.graph.typed.TypedGraphFiles.of(graph).edges().values())
                : io.fanout.graph.GraphLoader.edgeFiles(graph);
        for (Path part : parts) {
            long declared = -1;
            try (var reader = new java.io.BufferedReader(new java.io.InputStreamReader(open(part), StandardCharsets.UTF_8))) {
                String first = reader.readLine();
                if (first != null && first.startsWith("#")) {
                    for (String kv : first.substring(1).trim().split("\\s+")) {
                        if (kv.startsWith("num_edges=")) {
                            declared = Long.parseLong(kv.substring("num_edges=".length()));
                        }
                    }
                }
                if (declared < 0) {
                    long n = first != null && !first.startsWith("#") ? 1 : 0;
                    for (String line; (line = reader.readLine()) != null; ) {
                        n += line.startsWith("#") ? 0 : 1;
                    }
                    declared = n;
                }
            }
            rows += declared;
        }
        return rows;
    }

    private static java.io.InputStream open(Path file) throws IOException {
        java.io.InputStream in = new java.io.BufferedInputStream(Files.newInputStream(file), 1 << 16);
        in.mark(2);
        int b1 = in.read();
        int b2 = in.read();
        in.reset();
        return b1 == 0x1f && b2 == 0x8b ? new java.util.zip.GZIPInputStream(in, 1 << 16) : in;
    }

    /**
     * Polls the total size of a checkpoint directory while a job runs: the last size seen (the latest retained
     * checkpoint of the graph's state, files of a finished job are deleted at its end) and the largest.
     */
    private static final class DirectorySize extends Thread {
        final Path dir;
        final AtomicLong last = new AtomicLong();
        final AtomicLong max = new AtomicLong();
        /**
         * Completed checkpoints read so far: chk-N -> {time its directory was first seen (ms), state bytes, finished
         * operators and subtasks}.
         */
        private final Map<String, long[]> checkpoints = new java.util.concurrent.ConcurrentHashMap<>();
        /** When each chk-N directory was first seen: within a poll of its trigger. */
        private final Map<String, Long> triggered = new java.util.concurrent.ConcurrentHashMap<>();
        volatile boolean stop;

        DirectorySize(Path dir) {
            super("checkpoint-size");
            setDaemon(true);
            this.dir = dir;
        }

        @Override
        public void run() {
            // Checkpoints every 20 ms: when each is triggered (its directory appears), and its metadata once complete
            // (the job's last checkpoint, after which its tasks finish, is deleted moments after it completes, and
            // on a short job it is the only one of the loaded graph). The directory's size every 240 ms.
            for (long poll = 0; !stop; poll++) {
                readCheckpoints();
                long size = poll % 12 == 0 ? size(dir) : 0;
                if (size > 0 && hasCompletedCheckpoint(dir)) {
                    last.set(size);
                    max.accumulateAndGet(size, Math::max);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        void finish() throws InterruptedException {
            stop = true;
            join();
        }

        /** A chk-N/_metadata file exists: the directory holds at least one whole checkpoint. */
        static boolean hasCompletedCheckpoint(Path dir) {
            try (Stream<Path> files = Files.walk(dir, 3)) {
                return files.anyMatch(f -> f.getFileName().toString().equals("_metadata"));
            } catch (IOException | UncheckedIOException e) {
                return false;
            }
        }

        /**
         * Notes when each checkpoint directory appears and reads the metadata of every completed checkpoint not read
         * yet: the state size Flink records for it, every operator's keyed and operator state, incremental RocksDB
         * checkpoints' shared files included. Unlike the directory's size this counts no subsumed checkpoint whose
         * files are not deleted yet. A checkpoint deleted mid-read is skipped.
         */
        private void readCheckpoints() {
            if (!Files.isDirectory(dir)) {
                return;
            }
            try (Stream<Path> files = Files.walk(dir, 2)) { // dir/<job id>/chk-N
                for (Path chkDir : (Iterable<Path>) files::iterator) {
                    String chk = chkDir.getFileName().toString();
                    if (!chk.startsWith("chk-")) {
                        continue;
                    }
                    triggered.putIfAbsent(chk, System.currentTimeMillis());
                    Path meta = chkDir.resolve("_metadata");
                    if (checkpoints.containsKey(chk) || !Files.exists(meta)) {
                        continue;
                    }
                    try (var in = new java.io.DataInputStream(new java.io.BufferedInputStream(
                            Files.newInputStream(meta)))) {
                        long bytes = 0;
                        long finished = 0;
                        for (var operator : org.apache.flink.runtime.checkpoint.Checkpoints.loadCheckpointMetadata(in,
                                PartitionedBench.class.getClassLoader(), meta.getParent().toString())
                                .getOperatorStates()) {
                            bytes += operator.getStateSize();
                            finished += operator.isFullyFinished() ? 1
                                    : operator.getStates().stream().filter(t -> t.isFinished()).count();
                        }
                        checkpoints.put(chk, new long[] {triggered.get(chk), bytes, finished});
                    }
                }
            } catch (IOException | RuntimeException e) {
                // a checkpoint subsumed and deleted while read: the next poll reads the newer ones
            }
        }

        /**
         * The graph's checkpoint bytes: the smallest checkpoint triggered after {@code loadedMs} (the first message:
         * the graph loaded and compacted) in which no more operators or subtasks had finished than in the first
         * of them. Triggered after: one triggered before may hold the state before the compaction after the load.
         * The smallest: beside the graph a checkpoint holds the batches in flight (on R-MAT 2^16 a checkpoint with
         * every batch of an epoch waiting in the hop stages was 15 % larger). No more finished: the checkpoints
         * taken as the job finishes count finished lookups as empty. Without one (a job shorter than the checkpoint
         * interval after its load) the last one read, with a warning; -1 when none was read.
         */
        long graphStateBytes(long loadedMs, String store) {
            long[] first = null;
            long[] last = null;
            for (long[] c : checkpoints.values()) {
                if (c[0] >= loadedMs && (first == null || c[0] < first[0])) {
                    first = c;
                }
                if (last == null || c[0] > last[0]) {
                    last = c;
                }
            }
            if (first == null) {
                if (last != null) {
                    System.out.printf(Locale.ROOT, "    warning: %s: no checkpoint triggered after the load; its bytes"
                            + " per stored edge are a checkpoint's during the load (a shorter --checkpoint-interval or"
                            + " more --epochs measure the loaded graph)%n", store);
                    return last[1];
                }
                return -1;
            }
            long best = first[1];
            for (long[] c : checkpoints.values()) {
                if (c[0] >= loadedMs && c[2] <= first[2]) {
                    best = Math.min(best, c[1]);
                }
            }
            return best;
        }

        static long size(Path dir) {
            if (!Files.isDirectory(dir)) {
                return 0;
            }
            long total = 0;
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    try {
                        if (Files.isRegularFile(f)) {
                            total += Files.size(f);
                        }
                    } catch (NoSuchFileException gone) {
                        // deleted between listing and sizing: a subsumed checkpoint's file
                    }
                }
            } catch (IOException | UncheckedIOException e) {
                return 0; // a directory vanished mid-walk: try again at the next poll
            }
            return total;
        }
    }

    /** Deletes a directory tree; retried, because Flink may still be deleting a finished job's checkpoint files. */
    private static void deleteTree(Path dir) throws IOException {
        for (int attempt = 0; ; attempt++) {
            if (!Files.exists(dir)) {
                return;
            }
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(f);
                }
                return;
            } catch (IOException | UncheckedIOException e) {
                if (attempt >= 20) {
                    throw e;
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException stop) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}
