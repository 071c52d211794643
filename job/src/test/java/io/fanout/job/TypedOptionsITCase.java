package io.fanout.job;

import static io.fanout.job.FanoutJobITCase.readMessages;
import static io.fanout.job.FanoutJobITCase.runAtParallelismOneAndTwo;
import static io.fanout.job.FanoutJobITCase.runJob;
import static io.fanout.job.FanoutJobITCase.assertSameMessages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.config.ConfigException;
import io.fanout.connectors.message.SafetensorsCodec;
import io.fanout.connectors.message.TensorMessage;
import io.fanout.testing.JobConfigs;
import io.fanout.testing.MiniClusters;
import io.fanout.testing.SharedData;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyG's options on a typed graph, through the real job (MiniCluster) on bitcoin_alpha_typed (user__trusts__user,
 * user__distrusts__user, each with weight and timestamp columns): temporal sampling per edge type, the strategy last,
 * timeless edge types, weighted draws per edge type and disjoint trees, every sampled edge checked against the files.
 */
class TypedOptionsITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MiniClusters.oneTaskManagerTwoSlots();

    private static final String TRUSTS = "user__trusts__user";
    private static final String DISTRUSTS = "user__distrusts__user";

    @TempDir
    Path tmp;

    /** One edge file as read: row i = {src, dst, weight, time}. */
    private static List<long[]> rows(Path graph, String type) throws Exception {
        List<long[]> out = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(graph.resolve("edges." + type + ".tsv"))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t");
                out.add(new long[] {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])});
            }
        }
        return out;
    }

    /** 150 users with edges, each with its own time from the graph's time range, as a seed file of id TAB time. */
    private Path seedFileWithTimes(Path graph, int count, long seed) throws Exception {
        List<long[]> trusts = rows(graph, TRUSTS);
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long[] r : trusts) {
            min = Math.min(min, r[3]);
            max = Math.max(max, r[3]);
        }
        Random random = new Random(seed);
        Set<Long> users = new java.util.LinkedHashSet<>();
        while (users.size() < count) {
            users.add(trusts.get(random.nextInt(trusts.size()))[1]); // a user with in-edges: something to sample
        }
        StringBuilder text = new StringBuilder();
        for (long user : users) {
            long time = min + (long) (random.nextDouble() * (max - min));
            text.append(user).append('\t').append(time).append('\n');
        }
        Path file = tmp.resolve("seeds-" + seed + ".tsv");
        Files.writeString(file, text);
        return file;
    }

    /** Seed id -> time of a seed file written by {@link #seedFileWithTimes}. */
    private static Map<Long, Long> seedTimes(Path file) throws Exception {
        Map<Long, Long> out = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            String[] f = line.split("\t");
            out.put(Long.parseLong(f[0]), Long.parseLong(f[1]));
        }
        return out;
    }

    private static long[] longs(TensorMessage m, String key) {
        return m.get(key).asLongArray();
    }

    /**
     * Checks every edge of one batch of a disjoint (temporal) run: real (its edge id is a row of its type's file between
     * the two nodes), no newer than its tree's seed time when timed, and the tree of both ends the same. Returns the
     * number of edges checked per tree.
     */
    private static int[] checkTemporalBatch(TensorMessage m, Map<String, List<long[]>> files, Set<String> timed,
            Map<Long, Long> seedTimeOf, boolean withTime) {
        long[] seeds = longs(m, "user.batch");
        long[] times = withTime ? longs(m, "#META.seed_time") : null;
        long[] ids = longs(m, "user.ids");
        long[] trees = longs(m, "#META.user.batch");
        assertThat(trees).hasSameSizeAs(ids);
        for (int i = 0; i < seeds.length; i++) {
            assertThat(ids[i]).isEqualTo(seeds[i]); // tree i's seed is node i
            assertThat(trees[i]).isEqualTo(i);
            if (withTime) {
                assertThat(times[i]).isEqualTo(seedTimeOf.get(seeds[i]));
            }
        }
        int[] perTree = new int[seeds.length];
        for (Map.Entry<String, List<long[]>> e : files.entrySet()) {
            long[] rows = longs(m, e.getKey() + ".rows");
            long[] cols = longs(m, e.getKey() + ".cols");
            long[] eids = longs(m, e.getKey() + ".eids");
            for (int k = 0; k < rows.length; k++) {
                long[] edge = e.getValue().get((int) eids[k]);
                int tree = (int) trees[(int) cols[k]];
                assertThat(trees[(int) rows[k]]).isEqualTo(tree);
                // edge-dir in: rows are the sampled sources, cols the nodes expanded (destinations)
                assertThat(new long[] {ids[(int) rows[k]], ids[(int) cols[k]]}).containsExactly(edge[0], edge[1]);
                if (withTime && timed.contains(e.getKey())) {
                    assertThat(edge[3]).as("edge %s row %d in tree %d", e.getKey(), eids[k], tree)
                            .isLessThanOrEqualTo(times[tree]);
                }
                perTree[tree]++;
            }
        }
        return perTree;
    }

    @Test
    void temporalNeverSamplesTheFuture() throws Exception {
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        Path seeds = seedFileWithTimes(graph, 150, 7);
        Map<Long, Long> seedTimeOf = seedTimes(seeds);
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(),
                "--seeds", seeds.toString(), "--time-column", "timestamp", "--fanout", "5,5", "--edge-dir", "in",
                "--batch-size", "1", "--with-edge");
        assertThat(messages).hasSize(150);
        Map<String, List<long[]>> files = Map.of(TRUSTS, rows(graph, TRUSTS), DISTRUSTS, rows(graph, DISTRUSTS));
        int withEdges = 0;
        long edges = 0;
        for (byte[] blob : messages.values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            int[] perTree = checkTemporalBatch(m, files, Set.of(TRUSTS, DISTRUSTS), seedTimeOf, true);
            withEdges += perTree[0] > 0 ? 1 : 0;
            edges += perTree[0];
            for (String type : files.keySet()) { // the message's own edge times agree with the file
                long[] eids = longs(m, type + ".eids");
                long[] times = longs(m, "#META." + type + ".edge_time");
                for (int k = 0; k < eids.length; k++) {
                    assertThat(times[k]).isEqualTo(files.get(type).get((int) eids[k])[3]);
                }
            }
        }
        assertThat(withEdges).as("seeds with sampled edges").isGreaterThan(75);
        assertThat(edges).isGreaterThan(300);
    }

    @Test
    void temporalLastTakesTheMostRecent() throws Exception {
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        Path seeds = seedFileWithTimes(graph, 40, 11);
        Map<Long, Long> seedTimeOf = seedTimes(seeds);
        Path out = tmp.resolve("last");
        runJob("--graph", graph.toString(), "--seeds", seeds.toString(), "--time-column", "timestamp",
                "--temporal-strategy", "last", "--fanout", "3,0", "--edge-dir", "in", "--batch-size", "4",
                "--with-edge", "--output", out.toString(), "--parallelism", "1");
        List<long[]> trusts = rows(graph, TRUSTS);
        int checked = 0;
        for (byte[] blob : readMessages(out).values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            checkTemporalBatch(m, Map.of(TRUSTS, trusts, DISTRUSTS, rows(graph, DISTRUSTS)), Set.of(TRUSTS, DISTRUSTS),
                    seedTimeOf, true);
            long[] seedIds = longs(m, "user.batch");
            long[] times = longs(m, "#META.seed_time");
            long[] cols = longs(m, TRUSTS + ".cols");
            long[] eids = longs(m, TRUSTS + ".eids");
            for (int s = 0; s < seedIds.length; s++) {
                // The 3 most recent in-edges up to the seed's time: every earlier eligible edge is no newer than them.
                List<Long> eligible = new ArrayList<>();
                for (long[] r : trusts) {
                    if (r[1] == seedIds[s] && r[3] <= times[s]) {
                        eligible.add(r[3]);
                    }
                }
                eligible.sort(null);
                List<Long> taken = new ArrayList<>();
                for (int k = 0; k < cols.length; k++) {
                    if (cols[k] == s) {
                        taken.add(trusts.get((int) eids[k])[3]);
                    }
                }
                taken.sort(null);
                assertThat(taken).isEqualTo(eligible.subList(Math.max(0, eligible.size() - 3), eligible.size()));
                checked += taken.size();
            }
        }
        assertThat(checked).isGreaterThan(20);
    }

    @Test
    void timelessEdgeTypesAreDeclared() throws Exception {
        // A typed graph whose distrust edges have no time column: refused until the user declares them timeless.
        Path graph = Files.createDirectories(tmp.resolve("mixed"));
        Path source = SharedData.graph("bitcoin_alpha_typed");
        Files.copy(source.resolve("edges." + TRUSTS + ".tsv"), graph.resolve("edges." + TRUSTS + ".tsv"));
        Files.copy(source.resolve("nodes.user.tsv"), graph.resolve("nodes.user.tsv"));
        StringBuilder untimed = new StringBuilder("# directed=true columns=src,dst id_base=0\n");
        for (long[] r : rows(source, DISTRUSTS)) {
            untimed.append(r[0]).append('\t').append(r[1]).append('\n');
        }
        Files.writeString(graph.resolve("edges." + DISTRUSTS + ".tsv"), untimed);
        Path seeds = seedFileWithTimes(source, 30, 5);
        assertThatThrownBy(() -> JobConfigs.parse("--graph", graph.toString(), "--time-column", "timestamp"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("fanout.time-column")
                .hasMessageContaining(DISTRUSTS)
                .hasMessageContaining("--timeless-edge-types");
        Path out = tmp.resolve("timeless");
        runJob("--graph", graph.toString(), "--seeds", seeds.toString(), "--time-column", "timestamp",
                "--timeless-edge-types", DISTRUSTS, "--fanout", "-1,0", "--edge-dir", "in", "--batch-size", "5",
                "--with-edge", "--output", out.toString(), "--parallelism", "1");
        List<long[]> distrusts = rows(source, DISTRUSTS);
        Map<Long, Long> seedTimeOf = seedTimes(seeds);
        int newer = 0;
        for (byte[] blob : readMessages(out).values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            checkTemporalBatch(m, Map.of(TRUSTS, rows(graph, TRUSTS), DISTRUSTS, distrusts), Set.of(TRUSTS),
                    seedTimeOf, true);
            assertThat(m.contains("#META." + DISTRUSTS + ".edge_time")).isFalse();
            long[] seedIds = longs(m, "user.batch");
            long[] times = longs(m, "#META.seed_time");
            long[] cols = longs(m, DISTRUSTS + ".cols");
            long[] eids = longs(m, DISTRUSTS + ".eids");
            for (int s = 0; s < seedIds.length; s++) { // fanout -1: every distrust in-edge, whatever its time
                int got = 0;
                for (int k = 0; k < cols.length; k++) {
                    if (cols[k] == s) {
                        got++;
                        newer += distrusts.get((int) eids[k])[3] > times[s] ? 1 : 0;
                    }
                }
                final long id = seedIds[s];
                assertThat(got).isEqualTo((int) distrusts.stream().filter(r -> r[1] == id).count());
            }
        }
        assertThat(newer).as("timeless edges newer than their seed's time, followed as declared").isGreaterThan(0);
        // The partitioned store declares them as the memory store does (its lookups of the timeless type keep no
        // times): the same bytes, without --with-edge (it keeps no edge ids).
        StoreRuns runs = new StoreRuns(tmp.resolve("stores"));
        String[] options = {"--seeds", seeds.toString(), "--time-column", "timestamp", "--timeless-edge-types",
            DISTRUSTS, "--fanout", "-1,2", "--edge-dir", "in", "--batch-size", "5", "--temporal-strategy", "last"};
        TreeMap<Long, byte[]> memory = runs.run("memory", 1, graph, options);
        assertSameMessages(memory, runs.run("partitioned", 2, graph, options));
    }

    @Test
    void disjointTreesPerSeed() throws Exception {
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        TreeMap<Long, byte[]> messages = runAtParallelismOneAndTwo(tmp, "--graph", graph.toString(), "--disjoint",
                "--fanout", "4,3", "--edge-dir", "in", "--batch-size", "200", "--with-edge", "--seeds", "0,1,2,3,4,5,6,7,8,9,7");
        assertThat(messages).hasSize(1);
        TensorMessage m = SafetensorsCodec.decode(messages.firstEntry().getValue());
        Map<String, List<long[]>> files = Map.of(TRUSTS, rows(graph, TRUSTS), DISTRUSTS, rows(graph, DISTRUSTS));
        int[] perTree = checkTemporalBatch(m, files, Set.of(), Map.of(), false);
        assertThat(m.contains("#META.seed_time")).isFalse();
        // Seed 7 given twice is two trees, sampled independently; within a tree a (node) appears once.
        long[] ids = longs(m, "user.ids");
        long[] trees = longs(m, "#META.user.batch");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < ids.length; i++) {
            assertThat(seen.add(trees[i] + ":" + ids[i])).isTrue();
        }
        assertThat(perTree[7]).isGreaterThan(0);
        assertThat(perTree[10]).isGreaterThan(0);
    }

    @Test
    void weightedPerEdgeType() throws Exception {
        // User 1's 10 or so in-edges of each type with their own weights: drawn 1 per batch many times, the edge
        // counts follow the weights (successive sampling of one = proportional to the weight).
        Path graph = SharedData.graph("bitcoin_alpha_typed");
        List<long[]> trusts = rows(graph, TRUSTS);
        long seed = busiestWithUnequalWeights(trusts);
        Path out = tmp.resolve("weighted");
        int epochs = 400;
        runJob("--graph", graph.toString(), "--seeds", String.valueOf(seed), "--weight-column", "weight",
                "--fanout", "1,0", "--edge-dir", "in", "--batch-size", "1", "--epochs", String.valueOf(epochs),
                "--with-edge", "--output", out.toString(), "--parallelism", "2");
        Map<Long, Integer> drawn = new HashMap<>();
        for (byte[] blob : readMessages(out).values()) {
            TensorMessage m = SafetensorsCodec.decode(blob);
            long[] eids = longs(m, TRUSTS + ".eids");
            assertThat(eids).hasSize(1);
            assertThat(trusts.get((int) eids[0])[1]).isEqualTo(seed);
            drawn.merge(eids[0], 1, Integer::sum);
        }
        double total = 0;
        for (long[] r : trusts) {
            total += r[1] == seed ? r[2] : 0;
        }
        // Chi-square against the weights (df = in-degree - 1 < 40): far beyond a uniform draw's fit.
        double chi = 0;
        int degree = 0;
        for (int row = 0; row < trusts.size(); row++) {
            long[] r = trusts.get(row);
            if (r[1] == seed) {
                degree++;
                double expected = epochs * r[2] / total;
                double got = drawn.getOrDefault((long) row, 0);
                chi += (got - expected) * (got - expected) / expected;
            }
        }
        assertThat(chi).as("chi-square of %d in-edges", degree).isLessThan(2.0 * degree + 30);
        // The same draws without weights are uniform: the heaviest edge is drawn clearly more often with them.
        Path uniform = tmp.resolve("uniform");
        runJob("--graph", graph.toString(), "--seeds", String.valueOf(seed), "--fanout", "1,0", "--edge-dir", "in",
                "--batch-size", "1", "--epochs", String.valueOf(epochs), "--with-edge", "--output", uniform.toString(),
                "--parallelism", "1");
        long heaviest = -1;
        for (int row = 0; row < trusts.size(); row++) {
            if (trusts.get(row)[1] == seed && (heaviest < 0 || trusts.get(row)[2] > trusts.get((int) heaviest)[2])) {
                heaviest = row;
            }
        }
        int uniformHeaviest = 0;
        for (byte[] blob : readMessages(uniform).values()) {
            uniformHeaviest += longs(SafetensorsCodec.decode(blob), TRUSTS + ".eids")[0] == heaviest ? 1 : 0;
        }
        assertThat(drawn.getOrDefault(heaviest, 0)).isGreaterThan(uniformHeaviest);
    }

    /** A user with 10..40 trust in-edges whose weights differ most (max/min), so weighting shows. */
    private static long busiestWithUnequalWeights(List<long[]> trusts) {
        Map<Long, long[]> stats = new HashMap<>(); // id -> {count, min, max}
        for (long[] r : trusts) {
            stats.merge(r[1], new long[] {1, r[2], r[2]},
                    (a, b) -> new long[] {a[0] + 1, Math.min(a[1], b[1]), Math.max(a[2], b[2])});
        }
        long best = -1;
        double bestRatio = 0;
        for (Map.Entry<Long, long[]> e : stats.entrySet()) {
            long[] s = e.getValue();
            double ratio = s[2] / (double) s[1];
            if (s[0] >= 10 && s[0] <= 40 && (ratio > bestRatio || ratio == bestRatio && e.getKey() < best)) {
                best = e.getKey();
                bestRatio = ratio;
            }
        }
        return best;
    }
}
