package io.fanout.sampling.hetero;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.FeatureDType;
import io.fanout.graph.EdgeDirection;
import io.fanout.graph.NodeIdMap;
import io.fanout.graph.typed.EdgeType;
import io.fanout.graph.typed.TypedAdjacency;
import io.fanout.sampling.WeightedDraws;
import io.fanout.store.GraphSpec;
import io.fanout.store.TypedGraphStore;
import io.fanout.testing.SharedData;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link HeteroDisjointKHopSampler} on its own (no Flink), on a typed temporal graph built from college_msg's real
 * messages: users with sparse ids (3 x id + 5) message users (user__messages__user, parallel edges kept) and post in
 * threads (user__posts__thread: the receiver's id mod 97, a second node type), both with times. Every sampled edge is
 * checked against the rows it came from, in both directions, uniform, last and weighted.
 */
class HeteroDisjointKHopSamplerTest {
    private static final String MESSAGES = "user__messages__user";
    private static final String POSTS = "user__posts__thread";

    @TempDir
    static Path tmp;

    static Path graph;
    /** Edge type -> rows {src id, dst id, time} in file order (a row's index is its edge id). */
    static final Map<String, List<long[]>> ROWS = new TreeMap<>();

    @BeforeAll
    static void writeGraph() throws Exception {
        graph = Files.createDirectories(tmp.resolve("college_typed"));
        List<long[]> messages = new ArrayList<>();
        List<long[]> posts = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(SharedData.graph("college_msg").resolve("edges.tsv"))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t");
                long src = 3 * Long.parseLong(f[0]) + 5;
                long dst = 3 * Long.parseLong(f[1]) + 5;
                long time = Long.parseLong(f[3]);
                messages.add(new long[] {src, dst, time, 1 + (time % 7)});
                if (messages.size() % 3 == 0) {
                    posts.add(new long[] {src, Long.parseLong(f[1]) % 97, time, 1 + (src % 5)});
                }
            }
        }
        ROWS.put(MESSAGES, messages);
        ROWS.put(POSTS, posts);
        for (Map.Entry<String, List<long[]>> e : ROWS.entrySet()) {
            StringBuilder text = new StringBuilder("# directed=true columns=src,dst,weight,timestamp\n");
            for (long[] r : e.getValue()) {
                text.append(r[0]).append('\t').append(r[1]).append('\t').append(r[3]).append('\t').append(r[2])
                        .append('\n');
            }
            Files.writeString(graph.resolve("edges." + e.getKey() + ".tsv"), text);
        }
    }

    private static TypedGraphStore load(EdgeDirection direction, boolean weighted) throws Exception {
        GraphSpec spec = new GraphSpec(graph.toString(), direction, null, FeatureDType.FLOAT32, true)
                .withTimeColumn("timestamp").withWeightColumn(weighted ? "weight" : null);
        return TypedGraphStore.load(spec);
    }

    @ParameterizedTest(name = "{0}, last={1}, weighted={2}, replace={3}")
    @CsvSource({"OUT,false,false,false", "IN,false,false,false", "OUT,true,false,false", "IN,true,false,true",
            "OUT,false,true,false", "IN,false,true,true"})
    void noTreeFollowsAnEdgeNewerThanItsSeed(EdgeDirection direction, boolean last, boolean weighted, boolean replace)
            throws Exception {
        TypedGraphStore store = load(direction, weighted);
        Map<String, int[]> fanouts = TypedFanouts.parse("4,3").resolve(store.adjacency().keySet());
        Map<EdgeType, WeightedDraws> weights = null;
        if (weighted) {
            weights = new TreeMap<>();
            for (Map.Entry<EdgeType, TypedAdjacency> e : store.adjacency().entrySet()) {
                weights.put(e.getKey(), new WeightedDraws(e.getValue().csr().weights(), store.aliasTable(e.getKey())));
            }
        }
        HeteroDisjointKHopSampler sampler = new HeteroDisjointKHopSampler(store.adjacency(), store.nodeIds(), fanouts,
                "user", replace, true, weights, Set.of(), last);
        NodeIdMap users = store.nodeIds("user");
        List<long[]> messages = ROWS.get(MESSAGES);
        long minTime = messages.get(0)[2];
        long maxTime = messages.get(messages.size() - 1)[2];
        Random random = new Random(direction.ordinal() * 10 + (last ? 1 : 0) + (weighted ? 2 : 0));
        int[] seeds = new int[150];
        long[] times = new long[seeds.length];
        for (int i = 0; i < seeds.length; i++) {
            seeds[i] = random.nextInt(users.size());
            times[i] = minTime + (long) (random.nextDouble() * (maxTime - minTime));
        }
        HeteroSubgraph sub = sampler.sample(seeds, times, 42, 0, 0);
        HeteroSubgraph again = sampler.sample(seeds, times, 42, 0, 0);
        int[] perTree = new int[seeds.length];
        for (Map.Entry<EdgeType, HeteroSubgraph.Edges> e : sub.edges.entrySet()) {
            HeteroSubgraph.Edges edges = e.getValue();
            EdgeType stored = edges.adjacency.type();
            List<long[]> rows = ROWS.get(stored.toString());
            // Reported type: rows are the sampled neighbours (source of the reported type), cols the expanded nodes.
            HeteroSubgraph.Nodes from = sub.nodes.get(e.getKey().src());
            HeteroSubgraph.Nodes to = sub.nodes.get(e.getKey().dst());
            int[] edgeIds = edges.adjacency.csr().edgeIds();
            for (int k = 0; k < edges.rows.length; k++) {
                int tree = to.trees[edges.cols[k]];
                assertThat(from.trees[edges.rows[k]]).isEqualTo(tree);
                long[] row = rows.get(edgeIds[edges.positions[k]]);
                long neighbour = store.nodeIds(e.getKey().src()).id(from.indices[edges.rows[k]]);
                long expanded = store.nodeIds(e.getKey().dst()).id(to.indices[edges.cols[k]]);
                // The stored edge's source is the expanded node for out, the neighbour for in.
                long[] ends = direction == EdgeDirection.OUT ? new long[] {expanded, neighbour}
                        : new long[] {neighbour, expanded};
                assertThat(new long[] {row[0], row[1]}).containsExactly(ends);
                assertThat(row[2]).as("%s edge time vs tree %d's seed time", stored, tree).isLessThanOrEqualTo(times[tree]);
                perTree[tree]++;
            }
            assertThat(again.edges.get(e.getKey()).positions).containsExactly(edges.positions);
        }
        int withEdges = 0;
        for (int count : perTree) {
            withEdges += count > 0 ? 1 : 0;
        }
        assertThat(withEdges).as("trees with edges").isGreaterThan(seeds.length / 3);
        // Within a tree each node of a type appears once; the seeds are nodes 0..149 of the user type, tree i.
        HeteroSubgraph.Nodes u = sub.nodes.get("user");
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < u.indices.length; i++) {
            assertThat(seen.add((long) u.trees[i] << 32 | u.indices[i])).isTrue();
            if (i < seeds.length) {
                assertThat(u.trees[i]).isEqualTo(i);
                assertThat(u.indices[i]).isEqualTo(seeds[i]);
            }
        }
    }

    /**
     * A link batch's seeds of two node types (users, then threads; PyG's seed_dict): trees are numbered across the
     * types in the map's order as pyg-lib numbers them, each tree's time is its own, and trees rooted at threads
     * grow too (edge-dir in: a thread's posters).
     */
    @org.junit.jupiter.api.Test
    void seedsOfTwoNodeTypesAreTreesNumberedAcrossTheTypes() throws Exception {
        TypedGraphStore store = load(EdgeDirection.IN, false);
        Map<String, int[]> fanouts = TypedFanouts.parse("3,2").resolve(store.adjacency().keySet());
        HeteroDisjointKHopSampler sampler = new HeteroDisjointKHopSampler(store.adjacency(), store.nodeIds(), fanouts,
                "user", false, true, null, Set.of(), false);
        List<long[]> posts = ROWS.get(POSTS);
        Map<String, int[]> seeds = new java.util.LinkedHashMap<>();
        int n = 40;
        int[] users = new int[n];
        int[] threads = new int[n];
        long[] times = new long[2 * n];
        for (int i = 0; i < n; i++) {
            long[] post = posts.get(300 + 37 * i);
            users[i] = store.nodeIds("user").indexOf(post[0]);
            threads[i] = store.nodeIds("thread").indexOf(post[1]);
            times[i] = post[2];
            times[n + i] = post[2];
        }
        seeds.put("user", users);
        seeds.put("thread", threads);
        HeteroSubgraph sub = sampler.sample(seeds, times, 7, 0, 3);
        assertThat(sub.seedTypes).containsExactly("thread", "user");
        HeteroSubgraph.Nodes u = sub.nodes.get("user");
        HeteroSubgraph.Nodes t = sub.nodes.get("thread");
        for (int i = 0; i < n; i++) {
            assertThat(u.indices[i]).isEqualTo(users[i]);
            assertThat(u.trees[i]).isEqualTo(i);
            assertThat(t.indices[i]).isEqualTo(threads[i]);
            assertThat(t.trees[i]).isEqualTo(n + i);
        }
        int[] perTree = new int[2 * n];
        for (Map.Entry<EdgeType, HeteroSubgraph.Edges> e : sub.edges.entrySet()) {
            HeteroSubgraph.Edges edges = e.getValue();
            List<long[]> rows = ROWS.get(edges.adjacency.type().toString());
            int[] edgeIds = edges.adjacency.csr().edgeIds();
            HeteroSubgraph.Nodes from = sub.nodes.get(e.getKey().src());
            HeteroSubgraph.Nodes to = sub.nodes.get(e.getKey().dst());
            for (int k = 0; k < edges.rows.length; k++) {
                int tree = to.trees[edges.cols[k]];
                assertThat(from.trees[edges.rows[k]]).isEqualTo(tree);
                assertThat(rows.get(edgeIds[edges.positions[k]])[2]).isLessThanOrEqualTo(times[tree]);
                perTree[tree]++;
            }
        }
        int threadTreesWithEdges = 0;
        for (int i = n; i < 2 * n; i++) {
            threadTreesWithEdges += perTree[i] > 0 ? 1 : 0;
        }
        assertThat(threadTreesWithEdges).as("thread-rooted trees with edges").isGreaterThan(n / 2);
    }
}
